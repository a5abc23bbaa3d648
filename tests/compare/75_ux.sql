-- Small things a new user meets first, as PostgreSQL 15 has them.
CREATE TABLE p (id int PRIMARY KEY);
CREATE TABLE c1 (p int REFERENCES p DEFERRABLE INITIALLY DEFERRED, q int REFERENCES p DEFERRABLE, r int REFERENCES p);
SELECT constraint_name, constraint_type, is_deferrable, initially_deferred
  FROM information_schema.table_constraints WHERE table_name = 'c1' ORDER BY 1;
-- Array dimensions: a prefix that matches the elements, and the errors
-- of one that does not.
SELECT '[1:2]={1,2}'::int[], '[2]={a,b}'::text[], ' [1:1] = {7}'::int[];
SELECT '[1:3]={1,2}'::int[];
SELECT '[1:2]={}'::int[];
SELECT '[2:1]={}'::int[];
SELECT '[1:2]{1,2}'::int[];
SELECT '[1:b]={1,2}'::int[];
SELECT '[1:2={1,2}'::int[];
SELECT '[]={}'::int[];
SELECT ' [ 1 : 2 ] = {1,2}'::int[];
SELECT '[1:2]=1'::int[];
-- Declared array dimensions and sizes mean nothing.
CREATE TABLE arr (a int[][], b int[3], c text[][2]);
\d arr
INSERT INTO arr VALUES ('{1,2}', '{1,2,3,4}', '{x}');
SELECT * FROM arr;
SELECT '{1,2}'::int[][];
