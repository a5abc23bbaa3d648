-- Small things a new user meets first, as PostgreSQL 15 has them.
CREATE TABLE p (id int PRIMARY KEY);
CREATE TABLE c1 (p int REFERENCES p DEFERRABLE INITIALLY DEFERRED, q int REFERENCES p DEFERRABLE, r int REFERENCES p);
SELECT constraint_name, constraint_type, is_deferrable, initially_deferred
  FROM information_schema.table_constraints WHERE table_name = 'c1' ORDER BY 1;
