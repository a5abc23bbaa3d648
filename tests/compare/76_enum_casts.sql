-- Conversions of enums to and from text go through the labels' text,
-- which ALTER TYPE ... RENAME VALUE changes: index expressions, index
-- predicates and generated columns refuse them (42P17) as PostgreSQL
-- does, while comparisons with a label, which follow the labels' order,
-- stay allowed.
create type col2 as enum ('red', 'green');
create table ce2 (id int, c col2, s text, v varchar);
create table ca (a col2[], s text);
create unique index ce2_u on ce2 ((c::text));
create unique index ce2_s on ce2 ((s::col2));
create index i3 on ce2 ((c::varchar));
create index i4 on ce2 ((v::col2));
create index i5 on ca ((a::text));
create index i6 on ca ((a::text[]));
create index i7 on ca ((s::col2[]));
create index i8 on ce2 (id) where c = 'red';
create index i9 on ce2 (id) where c::text = 'red';
create index i10 on ce2 ((c = 'red'));
create index i11 on ce2 (('red'::col2));
create index i12 on ce2 ((c::name));
create index i13 on ce2 ((c::bpchar));
create index i14 on ce2 ((c::text::col2));
create index i15 on ce2 ((c || 'x'));
create index i16 on ce2 ((c < 'green'));
create index i17 on ca ((a = '{red}'));
create table g1 (s text, c col2 generated always as (s::col2) stored);
create table g2 (c col2, s text generated always as (c::text) stored);
create table g3 (c col2, s text generated always as (c) stored);
create table g5 (c col2, s text generated always as (c || 'x') stored);
create table g6 (c col2, s bool generated always as (c = 'red') stored);
insert into ce2 values (1, 'red', 'red', 'green'), (2, 'green', 'x', 'red');
insert into g6 (c) values ('red'), ('green');
drop table ca;
alter type col2 rename value 'red' to 'blue';
select * from ce2 order by id;
select * from ce2 where c = 'blue';
select * from g6 order by c;
select * from g3 order by c;
-- reg* values converted to text are their names, as their output
-- functions print them, not their OIDs.
select to_regclass('pg_class')::text, 'int4'::regtype::text, 'pg_catalog'::regnamespace::text, 'now'::regproc::text, 'root'::regrole::text;
select 'int4'::regtype::varchar, concat('x', 'int4'::regtype), format('%s', 'pg_class'::regclass), concat_ws('-', 'int4'::regtype, 'pg_class'::regclass);
select 'int4'::regtype || 'x', 'pg_class'::regclass::oid, 'pg_class'::regclass::text::regclass;
select 'sum(int4)'::regprocedure::text, 'numeric'::regtype::text;
-- A name computed at run time is read as the input function reads it.
select a::regclass from (values ('pg_class')) v(a);
select a::regtype::text from (values ('int4')) v(a);
select a::regclass from (values ('nosuch')) v(a);
create table rt (n text);
insert into rt values ('rt'), (null);
select n::regclass, n::regclass::oid = 'rt'::regclass::oid from rt order by 1;
drop table rt;
select a::regrole::text, a::regrole from (values ('root')) v(a);
select a::regproc, a::regproc::text from (values ('now')) v(a);
select n.oid::regnamespace from pg_namespace n where nspname = 'public';
-- OID 0 prints as "-" (psql's \dew shows a wrapper without handler so).
select 0::oid::regproc, 0::oid::regprocedure, 0::oid::regnamespace, 0::oid::regrole;
select a::regproc, a::regnamespace, a::regproc::text from (values (0::oid)) v(a);
-- information_schema.key_column_usage shows a role the columns of a
-- table's UNIQUE constraints when it holds a privilege on the table.
create role ec_kcu;
create table ku (id int primary key, a int unique, b int, constraint ku_b unique (b));
grant references on ku to ec_kcu;
set role ec_kcu;
select constraint_name, table_name, column_name, ordinal_position from information_schema.key_column_usage where table_name = 'ku' order by 1, 3;
reset role;
revoke references on ku from ec_kcu;
grant select on ku to ec_kcu;
set role ec_kcu;
select constraint_name, table_name, column_name, ordinal_position from information_schema.key_column_usage where table_name = 'ku' order by 1, 3;
reset role;
drop table ku;
drop role ec_kcu;
