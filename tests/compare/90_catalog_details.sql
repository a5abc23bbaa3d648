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
-- CREATE MATERIALIZED VIEW and CREATE TABLE AS report SELECT n, the rows
-- they were populated with (psql's ROW_COUNT reads the tag's count).
create table src (a int primary key, b text);
insert into src select g, 'x' || (g % 2) from generate_series(1, 5) g;
create materialized view mv1 as select a, b from src where a > 1;
\echo :ROW_COUNT
create materialized view mv2 as select count(*) from src;
\echo :ROW_COUNT
create materialized view mv3 as select a from src where false;
\echo :ROW_COUNT
create materialized view mv4 as select b, count(*) from src group by b;
\echo :ROW_COUNT
create materialized view mv5 as select generate_series(1, 3) g;
\echo :ROW_COUNT
create materialized view if not exists mv1 as select 1;
\echo :ROW_COUNT
create table ctas as select * from src;
\echo :ROW_COUNT
create table if not exists ctas as select * from src;
\echo :ROW_COUNT
create temp table ctas5 as select * from src where a < 4;
\echo :ROW_COUNT
-- SELECT INTO creates a table as CREATE TABLE AS does.
select * into s1 from src where a < 3;
\echo :ROW_COUNT
select a into temp s2 from src;
select a into temporary table s3 from src;
select a into unlogged s4 from src;
select a into table public.s5 from src;
select a, b into local temp s6 from src where a = 5;
\echo :ROW_COUNT
select a from src into s7;
select 1 union select a into s8 from src;
select a into s9 from src union select 7;
\echo :ROW_COUNT
with c as (select a from src) select * into s10 from c;
select a into s1 from src;
select a into x.s11 from src;
select count(*) into s12;
select a into from src;
select * from s1 order by 1;
select * from s6;
select * from s9 order by 1;
select relname, relpersistence, relkind from pg_class where relname in ('s2','s3','s4','s5','s6','s9','s10','s12') order by 1;
-- An index is as persistent as its table (relpersistence).
create unlogged table ut (id int primary key, v text, s serial, g int generated always as identity);
create index ut_v on ut (v);
create unique index ut_vu on ut (lower(v));
create table pt (id int primary key, v text);
create index pt_v on pt (v);
create temp table tt (id int primary key, v text);
create index tt_v on tt (v);
select relname, relpersistence, relkind from pg_class where relname in ('ut', 'ut_pkey', 'ut_v', 'ut_vu', 'ut_s_seq', 'ut_g_seq', 'pt', 'pt_pkey', 'pt_v', 'tt', 'tt_pkey', 'tt_v') order by relname;
-- TABLESAMPLE arguments: any expression that does not refer to the
-- sampled relation, assignment-coerced to real (and double precision).
create table ts (id int primary key, v text);
insert into ts select g, 'r' || g from generate_series(1, 50) g;
select count(*) from ts tablesample bernoulli ((select 50)) where false;
select count(*) from ts tablesample bernoulli ((select 100));
select count(*) from ts tablesample system (random()*0+100) repeatable (1);
select count(*) from ts tablesample system (100) repeatable ((select 3));
select count(*) from ts tablesample bernoulli (abs(-100));
select count(*) from ts tablesample bernoulli (id);
select count(*) from ts tablesample bernoulli (100) repeatable (id);
select count(*) from ts t tablesample bernoulli (t.id);
select count(*) from ts tablesample bernoulli ((select count(*) from ts) * 2);
select count(*) from ts tablesample bernoulli ((select 200));
select count(*) from ts tablesample bernoulli (sum(1));
select count(*) from ts tablesample bernoulli (generate_series(1,2));
select count(*) from ts tablesample bernoulli ($1);
select count(*) from ts tablesample bernoulli (100::numeric);
select count(*) from ts tablesample bernoulli ('50'::text);
select count(*) from ts tablesample bernoulli (case when true then 100 end);
select count(*) from ts tablesample bernoulli (100) repeatable (random());
select count(*) from ts tablesample bernoulli ((select null::int));
select count(*) from ts tablesample bernoulli (row_number() over ());
prepare q(int) as select count(*) from ts tablesample bernoulli ($1);
execute q(100);
execute q(0);
create view tsv as select id from ts tablesample bernoulli ((select 100)) repeatable (2);
select pg_get_viewdef('tsv');
select count(*) from tsv;
select count(*) from ts tablesample bernoulli (sum(1));
select count(*) from ts tablesample bernoulli (generate_series(1,2));
select count(*) from ts tablesample bernoulli (row_number() over ());
select count(*) from ts tablesample bernoulli (100) repeatable (id);
select count(*) from ts t tablesample bernoulli (t.id);
select count(*) from ts tablesample bernoulli (100) repeatable (sum(1));
select count(*) from ts tablesample bernoulli (100) repeatable (generate_series(1,2));
select count(*) from ts tablesample bernoulli (100) repeatable ('x'::text);
select count(*) from ts tablesample bernoulli (100) repeatable (nosuch.x);
select count(*) from ts tablesample bernoulli (100) repeatable (nosuch);
-- SELECT INTO parenthesized whole.
(select a into s13 from src);
\echo :ROW_COUNT
((select a, b into s14 from src where a > 3));
select * from s14 order by a;
(select a from src) into s15;
-- CREATE TABLE AS ... WITH NO DATA creates the table empty.
create table ctas_nd as select a, b, a * 2 as c from src with no data;
\echo :ROW_COUNT
select * from ctas_nd;
select attname, atttypid::regtype from pg_attribute where attrelid = 'ctas_nd'::regclass and attnum > 0 order by attnum;
create table ctas_wd as select a from src where a < 3 with data;
\echo :ROW_COUNT
-- CREATE TABLE name (columns) AS, and duplicate column names.
create table c1 (x, y) as values (1, 'a'), (2, 'b');
\echo :ROW_COUNT
select * from c1 order by x;
create table c2 (k) as select a, b from src;
select * from c2 order by k;
create table c3 (p, q, r) as select a, b from src;
create table c4 (x, x) as select a, b from src;
create table c5 as select 1 as a, 2 as a;
create table c6 ("Mixed", y) as select a, b from src with no data;
select attname from pg_attribute where attrelid = 'c6'::regclass and attnum > 0 order by attnum;
create table c7 (x y) as select 1;
create table c8 (x,) as select 1;
