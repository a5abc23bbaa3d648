-- current_schema() and current_schemas() follow search_path: the
-- schemas it lists that exist, and with include_implicit pg_catalog
-- (and the session's temporary schema, once it has one) where the path
-- does not place them.
SELECT current_schema(), current_schemas(false), current_schemas(true);
CREATE SCHEMA cs1;
SET search_path = cs1, public;
SELECT current_schema(), current_schemas(false), current_schemas(true);
SET search_path = nosuch, cs1;
SELECT current_schema(), current_schemas(false), current_schemas(true);
SET search_path = '';
SELECT current_schema() IS NULL AS none, current_schemas(false), current_schemas(true);
SET search_path = public, pg_catalog, cs1;
SELECT current_schema(), current_schemas(false), current_schemas(true);
SET search_path = "$user", public;
SELECT current_schema(), current_schemas(false);
CREATE SCHEMA root;
SELECT current_schema(), current_schemas(false);
RESET search_path;
DROP SCHEMA root;
DROP SCHEMA cs1;
