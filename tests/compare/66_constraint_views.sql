-- information_schema.table_constraints and check_constraints, as the
-- role may see them: table_constraints for tables it may change,
-- check_constraints for what it owns. NOT NULL columns show as CHECK
-- constraints named <schema oid>_<table oid>_<attnum>_not_null.
CREATE TABLE tc (id int PRIMARY KEY, a int CHECK (a > 0), b text UNIQUE, c int REFERENCES tc, CONSTRAINT named CHECK (b <> '') NOT VALID);
CREATE TABLE tn (x int NOT NULL, y int UNIQUE NULLS NOT DISTINCT, z int, CHECK (z > x));
CREATE UNIQUE INDEX tn_z ON tn (z);
CREATE DOMAIN posint AS int CHECK (VALUE > 0);
CREATE VIEW tv AS SELECT * FROM tc;
SELECT constraint_catalog, constraint_schema, regexp_replace(constraint_name, '^[0-9]+_[0-9]+_', 'S_T_') AS constraint_name, table_catalog, table_schema, table_name, constraint_type, is_deferrable, initially_deferred, enforced, nulls_distinct FROM information_schema.table_constraints WHERE table_schema = 'public' ORDER BY table_name, 3;
SELECT table_name, count(*) FROM information_schema.table_constraints WHERE constraint_name = 'public'::regnamespace::oid || '_' || 'tc'::regclass::oid || '_1_not_null' OR constraint_name = 'public'::regnamespace::oid || '_' || 'tn'::regclass::oid || '_1_not_null' GROUP BY 1 ORDER BY 1;
SELECT constraint_catalog, constraint_schema, regexp_replace(constraint_name, '^[0-9]+_[0-9]+_', 'S_T_') AS constraint_name, check_clause FROM information_schema.check_constraints WHERE constraint_schema = 'public' ORDER BY 3, 4;
CREATE ROLE pgcat_r1;
GRANT SELECT ON tc TO pgcat_r1;
GRANT INSERT ON tn TO pgcat_r1;
SET ROLE pgcat_r1;
SELECT table_name, constraint_type, count(*) FROM information_schema.table_constraints WHERE table_schema = 'public' GROUP BY 1, 2 ORDER BY 1, 2;
SELECT count(*) FROM information_schema.check_constraints WHERE constraint_schema = 'public';
RESET ROLE;
DROP TABLE tn;
DROP TABLE tc CASCADE;
DROP DOMAIN posint;
DROP ROLE pgcat_r1;
