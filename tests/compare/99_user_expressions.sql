-- Expressions the catalog keeps as the user wrote them (CHECK
-- constraints, generated columns, DEFAULTs, domain CHECKs, index keys
-- and predicates) are PostgreSQL text like any other: # is XOR, not a
-- comment, -2 ^ 2 is 4, MySQL's operators are refused and the
-- functions the SQL front end uses internally are not callable.
CREATE TABLE ck1 (a int CHECK (a > 5 # 3));
INSERT INTO ck1 VALUES (6);
INSERT INTO ck1 VALUES (7);
SELECT * FROM ck1;
CREATE TABLE ck2 (a int CHECK (a <=> 1));
CREATE TABLE ck4 (a int CHECK (pg_cast(a, 'text') = '1'));
CREATE TABLE ck5 (a int CHECK (a > -2 ^ 2));
INSERT INTO ck5 VALUES (3);
INSERT INTO ck5 VALUES (5);
CREATE TABLE ck6 (a int, CHECK (a <> 1 # 1));
INSERT INTO ck6 VALUES (0);
INSERT INTO ck6 VALUES (1);
CREATE TABLE ck7 (a int);
ALTER TABLE ck7 ADD CHECK (a > 5 # 3);
ALTER TABLE ck7 ADD CONSTRAINT c2 CHECK (`a` > 1);
INSERT INTO ck7 VALUES (6);
INSERT INTO ck7 VALUES (7);
CREATE TABLE ck8 (a int DEFAULT 5 # 3, b int GENERATED ALWAYS AS (a # 1) STORED);
INSERT INTO ck8 DEFAULT VALUES;
INSERT INTO ck8 (a) VALUES (2);
SELECT * FROM ck8 ORDER BY a;
CREATE TABLE ck9 (a int DEFAULT 1 <=> 2);
CREATE TABLE ck10 (a int GENERATED ALWAYS AS (a <=> 1) STORED);
CREATE DOMAIN dm AS int CHECK (VALUE > 5 # 3);
SELECT 6::dm;
SELECT 7::dm;
CREATE INDEX ck8_i ON ck8 ((a # 1));
CREATE INDEX ck8_j ON ck8 (a) WHERE a > 5 # 3;
CREATE INDEX ck8_k ON ck8 ((a <=> 1));
CREATE UNIQUE INDEX ck8_u ON ck8 ((a # 2));
INSERT INTO ck8 (a) VALUES (6);
\d ck8
-- Operators PostgreSQL's lexer forms and neither server has: named with
-- their operands' types, after the names around them resolve.
CREATE TABLE ot (id int PRIMARY KEY, a int, t text);
INSERT INTO ot VALUES (1, 2, 'x');
SELECT 1 <=> 1;
SELECT 1 <=> 'a';
SELECT a <=> t FROM ot;
SELECT a <=> nosuch FROM ot;
SELECT 1 <=> 1 FROM nosuch;
SELECT !! 5;
SELECT ! 5;
SELECT 1 + 2 <=> 3 * 4;
SELECT 1 <=> 2 <=> 3;
SELECT 1 < 2 <=> 3;
SELECT a FROM ot WHERE a <=> 2 AND t = 'x';
SELECT 2 @- 3;
SELECT 1 #=# 2;
SELECT concat_ws(',', 'a' <=> 'b');
SELECT CASE WHEN 1 <=> 2 THEN 1 END;
-- A backtick is one of those operators' characters, not a quote.
SELECT `a` FROM ot;
SELECT `a`;
SELECT `a` + 1 FROM ot;
SELECT ` 1;
SELECT 1 <=> ;
SELECT <=> 1;
-- An expression standing alone has no column label.
CREATE TABLE x15 (a int DEFAULT 1 foo);
CREATE TABLE x16 (a int CHECK (a foo));
CREATE TABLE x17 (a int CHECK (a > 1 foo));
CREATE TABLE x18 (t text CHECK (t REGEXP 'a'));
CREATE TABLE x19 (a int GENERATED ALWAYS AS (a + 1 b) STORED);
CREATE TABLE x20 (a int, b int GENERATED ALWAYS AS (a as b) STORED);
CREATE TABLE x21 (a int DEFAULT 1 'x');
CREATE TABLE x22 (a int DEFAULT int4 '5', b date DEFAULT date '2024-01-02', c int CHECK (c > int4 '1'));
INSERT INTO x22 (c) VALUES (2);
SELECT * FROM x22;
-- OPERATOR(schema.op) of an operator neither server has: named as
-- written, at OPERATOR.
SELECT 1 OPERATOR(pg_catalog.<=>) 2;
SELECT 1 OPERATOR(<=>) 2;
SELECT OPERATOR(pg_catalog.<=>) 2;
SELECT 1 OPERATOR(pg_catalog.+) 2, 3 OPERATOR(-) 1;
