-- ALTER ... RENAME of a relation that does not exist names it a
-- relation, whatever kind the statement said, as PostgreSQL does.
ALTER TABLE nosuch RENAME TO x;
ALTER VIEW nosuch RENAME TO x;
ALTER MATERIALIZED VIEW nosuch RENAME TO x;
ALTER TABLE IF EXISTS nosuch RENAME TO x;
ALTER TABLE nosuch RENAME COLUMN a TO b;
ALTER TABLE nosuch ADD COLUMN a int;
