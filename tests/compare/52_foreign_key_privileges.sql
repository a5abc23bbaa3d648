-- Foreign keys and privileges: REFERENCES on the referenced table to
-- make one, and what a violation's DETAIL shows a role that may not
-- read the table it names.
CREATE ROLE fk_ann;
CREATE TABLE kp (id int PRIMARY KEY, v text);
INSERT INTO kp VALUES (1, 'a'), (2, 'b');
GRANT CREATE ON SCHEMA public TO fk_ann;
SET ROLE fk_ann;
CREATE TABLE kc (id int PRIMARY KEY, p int REFERENCES kp);
RESET ROLE;
GRANT REFERENCES ON kp TO fk_ann;
SET ROLE fk_ann;
CREATE TABLE kc (id int PRIMARY KEY, p int REFERENCES kp ON DELETE CASCADE);
CREATE TABLE kr (id int PRIMARY KEY, p int REFERENCES kp);
INSERT INTO kc VALUES (1, 1), (2, 2);
INSERT INTO kr VALUES (1, 2);
INSERT INTO kc VALUES (3, 3);
SELECT has_table_privilege('kp', 'references'), has_table_privilege('kp', 'select');
RESET ROLE;
GRANT INSERT, DELETE ON kc TO PUBLIC;
GRANT DELETE ON kp TO fk_ann;
CREATE ROLE fk_bob;
SET ROLE fk_bob;
INSERT INTO kc VALUES (4, 4);
RESET ROLE;
SET ROLE fk_ann;
-- A cascade needs no privilege on the referencing table; a refused
-- delete shows the key only to a role that may read kp.
DELETE FROM kp;
RESET ROLE;
DELETE FROM kr;
SET ROLE fk_ann;
DELETE FROM kp;
RESET ROLE;
SELECT * FROM kc ORDER BY id;
INSERT INTO kp VALUES (2, 'b');
INSERT INTO kr VALUES (1, 2);
DELETE FROM kp WHERE id = 2;
DROP TABLE kc, kr, kp;
REVOKE CREATE ON SCHEMA public FROM fk_ann;
DROP ROLE fk_ann;
DROP ROLE fk_bob;
