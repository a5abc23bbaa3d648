-- DDL that PostgreSQL 15 accepts or refuses in a particular way, matched
-- exactly.

-- An index's definition keeps each key's direction and NULLS placement,
-- leaving out the direction's default.
create table ix (a int, b text, c int);
create index ix_1 on ix (a desc nulls last, b nulls first);
create index ix_2 on ix (a asc nulls first, b desc);
create index ix_3 on ix (a desc nulls first, b asc nulls last, (c + 1) nulls first);
create unique index ix_4 on ix ((a) desc nulls last) include (b);
select indexname, indexdef from pg_indexes where tablename = 'ix' order by 1;
select pg_get_indexdef('ix_3'::regclass);
alter table ix alter column a type bigint;
\d ix

-- jsonb's ->>, array subscripts and EXTRACT from a timestamp are
-- immutable: allowed in index expressions and generated columns; EXTRACT
-- from a timestamptz reads the TimeZone and is not.
create table im (id int primary key, j jsonb, ts timestamp, tz timestamptz, d date, arr int[]);
create index im_1 on im ((j->>'k'));
create index im_2 on im ((j->'n'->>'m'));
create index im_3 on im ((extract(year from ts)));
create index im_4 on im ((arr[1]));
create index im_5 on im ((extract(month from d)), (arr[2] + 1));
create index im_6 on im (id) where j->>'k' = 'a' and arr[1] > 0;
create index im_7 on im ((extract(year from tz)));
create index im_8 on im ((date_part('hour', tz)));
select indexname, indexdef from pg_indexes where tablename = 'im' order by 1;
\d im
create table gen (j jsonb, k text generated always as (j->>'k') stored,
  n jsonb generated always as (j->'n') stored,
  ts timestamp, y numeric generated always as (extract(year from ts)) stored,
  arr int[], f int generated always as (arr[1]) stored);
insert into gen (j, ts, arr) values ('{"k": "b", "n": [1]}', '2022-01-01', '{7}');
select k, n, y, f from gen;
create table gen2 (tz timestamptz, y numeric generated always as (extract(year from tz)) stored);
\d gen

-- TRUNCATE of a table on which deferred foreign key checks wait.
create table tp (id int primary key);
create table tc (id int references tp deferrable initially deferred);
begin;
insert into tc values (1);
truncate tc;
rollback;
begin;
insert into tc values (1);
truncate tp, tc;
rollback;
begin;
insert into tc values (1);
truncate tp cascade;
rollback;
begin;
insert into tp values (1);
truncate tp cascade;
rollback;
insert into tp values (1);
begin;
delete from tp;
truncate tp cascade;
rollback;
begin;
insert into tc values (1);
delete from tc;
truncate tc;
rollback;
begin;
insert into tc values (1);
set constraints all immediate;
truncate tc;
commit;
begin;
savepoint a;
insert into tc values (1);
rollback to savepoint a;
truncate tc;
commit;
create table tn (id int references tp, d int references tp deferrable);
begin;
insert into tn values (1, 1);
set constraints tn_d_fkey immediate;
truncate tn;
commit;

-- A DEFAULT may not read a column, and converts to the column's type by
-- an assignment cast.
create table d1 (x int, y int default x = 1);
create table d1 (x int, y int default length(x::text) + 1);
create table d1 (y int default x + (select 1));
create table d1 (y int default (select 1) + x);
create table d1 (y int default sum(1));
create table d1 (ts timestamptz default 'abc'::text);
create table d1 (n numeric default now());
create table d1 (i int default 'x'::text, j int default y);
create table d0 (a int);
alter table d0 alter column a set default a + 1;
alter table d0 add column b int default a;
alter table d0 alter column a set default 'x'::text;
alter table d0 add column c bool default 1;
alter table d0 add column g int default '1'::varchar;
alter table d0 add column k int[] default '{1}'::text[];
create domain dd as int default 'x'::text;
create table d2 (i int default 1.5, t text default 1, b bigint default 1::numeric,
  d date default now(), q json default '{}'::jsonb);
insert into d2 default values;
select i, t, b, d is not null, q from d2;
\d d2

-- A LIMIT, OFFSET or FETCH FIRST count may not read its query's columns.
create table lt (a int, b int);
insert into lt values (1, 2), (2, 2);
select a from lt limit a;
select a from lt offset b;
select a from lt fetch first a rows only;
select a from lt x limit x.a;
select a from lt group by a limit a;
select 1 fetch first x rows only;
select 1 limit x;
select a from lt limit nosuch;
select (select x.a from lt limit x.a - 1) from lt x order by 1;

-- ALTER TABLE ... RENAME TO renames views, materialized views,
-- sequences and indexes too.
create table rt (a int);
create view rv as select a from rt;
create materialized view rm as select a from rt;
create view rv2 as select rv.a, rm.a as b from rv, rm;
create sequence rs;
create index ri on rt (a);
alter table rv rename to rv1;
alter table rm rename to rm1;
alter table rs rename to rs1;
alter table ri rename to ri1;
alter view rt rename to x;
alter view rm1 rename to x;
alter materialized view rv1 rename to x;
alter table if exists nosuch rename to x;
alter table rv1 rename to rt;
\d
select pg_get_viewdef('rv2');
insert into rt values (1);
refresh materialized view rm1;
select * from rv2;
select nextval('rs1');
select indexname from pg_indexes where tablename = 'rt';

-- Unlogged tables (weir keeps them as durable as any other).
create unlogged table un (a int primary key, b text);
\d un
insert into un values (1, 'x');
create materialized view un_n as select count(*) as n from un;
insert into un values (2, 'y');
refresh materialized view un_n;
select * from un_n;
create table lg (a int references un);
create temp table tmp (a int);
alter table tmp set logged;
alter table tmp set unlogged;
alter table un set logged;
\d un
alter table un set logged;
create table lg (a int references un);
alter table un set unlogged;
alter table lg set unlogged;
alter table un set unlogged;
create unlogged table un2 (a int references un);
create temp table tmpk (a int primary key);
create unlogged table un3 (a int references tmpk);
drop table tmpk;
alter table un2 set logged;
select relname, relpersistence from pg_class
  where relname in ('un', 'lg', 'un2', 'tmp', 'un_n') order by 1;
create view unv as select 1;
alter table unv set logged;
alter table un_n set unlogged;
create unlogged materialized view um as select 1;
create unlogged view uv as select 1;
