-- pg_prepared_statements.statement is the client's whole query string:
-- the PREPARE with its semicolon and comments.
prepare p1 as select 1;
prepare p2(int) as select $1 + 1 ;
PREPARE p3 AS SELECT 2 -- a comment
;
prepare p4 as
  select 'x' || 'y';
select name, statement, parameter_types, from_sql from pg_prepared_statements order by name;
deallocate all;
