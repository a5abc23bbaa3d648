-- The settings a plain pg_dump sets in its header are accepted, and
-- SHOW gives PostgreSQL's values; bad values fail as there.
SHOW check_function_bodies;
SHOW xmloption;
SHOW default_tablespace;
SHOW default_table_access_method;
SET check_function_bodies = false;
SHOW check_function_bodies;
SET check_function_bodies = 'YES';
SHOW check_function_bodies;
SET check_function_bodies = 'of';
SHOW check_function_bodies;
SET check_function_bodies = 'maybe';
SET check_function_bodies = 'o';
SET xmloption = content;
SET xmloption = DOCUMENT;
SHOW xmloption;
SET xmloption = 'nosuch';
SET default_tablespace = '';
SHOW default_tablespace;
SET default_tablespace = pg_default;
SHOW default_tablespace;
SET default_tablespace = 'nosuch';
SET default_table_access_method = heap;
SHOW default_table_access_method;
SET default_table_access_method = 'nosuch';
SET default_table_access_method = '';
SET default_table_access_method = btree;
RESET ALL;
SHOW check_function_bodies;
SHOW xmloption;
SELECT name, setting, vartype, enumvals FROM pg_settings
  WHERE name IN ('check_function_bodies', 'xmloption', 'default_tablespace', 'default_table_access_method') ORDER BY name;
