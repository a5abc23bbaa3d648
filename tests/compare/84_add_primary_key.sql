-- ADD PRIMARY KEY on a table created without one (as pg_dump restores
-- one: rows first, then ALTER TABLE ONLY ... ADD CONSTRAINT), and
-- ONLY taking every action.
CREATE TABLE apk (id int, v text, n int DEFAULT 7);
CREATE INDEX apk_v ON apk (v);
INSERT INTO apk VALUES (3, 'c'), (1, 'a'), (2, 'b');
ALTER TABLE ONLY apk ADD CONSTRAINT apk_pkey PRIMARY KEY (id);
\d apk
SELECT * FROM apk ORDER BY id;
INSERT INTO apk VALUES (2, 'again');
INSERT INTO apk VALUES (4, 'd');
SELECT * FROM apk WHERE v = 'd';
SELECT * FROM apk WHERE id = 2;
ALTER TABLE apk ADD PRIMARY KEY (v);
-- A null or a repeated key fails, and leaves the table as it was.
CREATE TABLE apn (a int, b int);
INSERT INTO apn VALUES (1, 1), (NULL, 2);
ALTER TABLE apn ADD PRIMARY KEY (a);
DELETE FROM apn WHERE a IS NULL;
INSERT INTO apn VALUES (1, 3), (5, 5), (5, 6);
ALTER TABLE apn ADD PRIMARY KEY (a);
ALTER TABLE apn ADD PRIMARY KEY (a, a);
ALTER TABLE apn ADD PRIMARY KEY (nosuch);
\d apn
ALTER TABLE apn ADD PRIMARY KEY (a, b);
\d apn
SELECT * FROM apn ORDER BY a, b;
-- ONLY with UNIQUE, CHECK and a column action.
CREATE TABLE onl3 (p int, q int);
ALTER TABLE ONLY onl3 ADD CONSTRAINT onl3_p_key UNIQUE (p);
ALTER TABLE ONLY onl3 ADD CONSTRAINT onl3_q_check CHECK (q > 0);
ALTER TABLE ONLY onl3 ALTER COLUMN q SET DEFAULT 1;
\d onl3
-- OWNER TO its owner (pg_dump writes it for every relation) changes
-- nothing.
CREATE SEQUENCE onl3_seq;
CREATE VIEW onl3_v AS SELECT p FROM onl3;
ALTER TABLE onl3 OWNER TO root;
ALTER TABLE ONLY onl3 OWNER TO CURRENT_USER;
ALTER SEQUENCE onl3_seq OWNER TO root;
ALTER VIEW onl3_v OWNER TO SESSION_USER;
ALTER TABLE IF EXISTS nosuch OWNER TO root;
ALTER TABLE nosuch OWNER TO root;
ALTER TABLE onl3 OWNER TO nosuch;
ALTER SEQUENCE onl3 OWNER TO root;
ALTER VIEW onl3 OWNER TO root;

-- ADD PRIMARY KEY checks its columns before the table's key.
create table p2 (a int primary key, b int, j jsonb);
alter table p2 add primary key (nosuch);
alter table p2 add primary key (a, a);
alter table p2 add primary key (b);
create table p3 (a int, j json);
alter table p3 add primary key (j);
alter table p2 add primary key (j);
drop table p2, p3;
