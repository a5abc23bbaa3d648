-- Arrays of enum types: the array type CREATE TYPE ... AS ENUM makes,
-- literals and casts, a bad label (22P02), columns, ordering by the
-- labels' order, unnest, = ANY, containment, subscripts, the array
-- functions, array_agg, and a materialized view over a mood[] column
-- under DML.
create type mood as enum ('sad', 'ok', 'happy');
select '{happy,sad}'::mood[];
select pg_typeof('{happy,sad}'::mood[]), pg_typeof(('{happy}'::mood[])[1]);
select array['happy', 'ok']::mood[];
select '{happy,bad}'::mood[];
select '{happy,NULL,"ok"}'::mood[];
select '{}'::mood[], '{happy}'::mood[] is null;
select '{happy}'::text[]::mood[], '{happy,sad}'::mood[]::text[];
select '{happy}'::mood[] = '{happy}'::mood[], '{sad}'::mood[] < '{happy}'::mood[], '{ok,sad}'::mood[] > '{ok}'::mood[];
create table t (id int primary key, m mood[]);
insert into t values (1, '{happy,sad}'), (2, '{ok}'), (3, array['sad','sad']::mood[]), (4, null), (5, '{}');
insert into t values (6, '{bad}');
insert into t values (6, '{happy,"very bad"}');
select * from t order by id;
select * from t order by m, id;
select * from t order by m desc nulls last, id;
select id, unnest(m) from t order by 1, 2;
select u, count(*) from t, unnest(m) u group by u order by u;
select id from t where 'ok' = any(m) order by id;
select id from t where 'ok'::mood = any(m) order by id;
select id from t where 'nope' = any(m) order by id;
select id from t where m @> '{sad}' order by id;
select id from t where m && '{ok,happy}' order by id;
select id, m[1], m[2], m[1] > 'ok' from t order by id;
select id, array_length(m, 1), cardinality(m), array_position(m, 'sad') from t order by id;
select id, m || 'ok'::mood, array_remove(m, 'sad') from t order by id;
select array_agg(x order by x) from unnest('{happy,sad,ok}'::mood[]) x;
select array_agg(x order by x desc), pg_typeof(array_agg(x)) from unnest('{happy,sad,ok}'::mood[]) x;
select * from unnest('{happy,sad,ok}'::mood[]) u order by 1;
create materialized view mv as select id, m, m[1] as first, cardinality(m) as n from t where m is not null;
select * from mv order by id;
insert into t values (7, '{happy,happy}');
update t set m = '{sad,ok,happy}' where id = 2;
delete from t where id = 1;
refresh materialized view mv;
select * from mv order by id;
select * from mv order by m, id;
select format_type(atttypid, atttypmod), pg_type_is_visible(atttypid) from pg_attribute where attrelid = 't'::regclass and attname = 'm';
select t.typname, t.typcategory, e.typname as elem from pg_type t join pg_type e on e.oid = t.typelem where t.typname = '_mood';
select typname from pg_type where oid = (select typarray from pg_type where typname = 'mood');
\d t
-- Arrays of domains: each element is checked (23514, 23502 for a NULL
-- element of a NOT NULL domain), a NULL array passes, columns, psql's \d,
-- a materialized view under DML, and ALTER DOMAIN refused while a column
-- holds arrays of the domain.
create domain posint as int check (value > 0);
create domain nnint as int not null;
create domain shorttext as varchar(5) check (value <> 'bad');
select '{1,2}'::posint[];
select pg_typeof('{1,2}'::posint[]);
select '{1,NULL}'::posint[];
select null::nnint[];
select array[3, 4]::posint[];
select array[3, -4]::posint[];
select array[3, null]::nnint[];
select array['abc', 'bad']::shorttext[];
create table dt (id int primary key, p posint[], s shorttext[]);
insert into dt values (1, '{1,2}', '{a,b}'), (2, null, '{}');
insert into dt values (3, array[0], null);
insert into dt values (3, '{5}', array['bad']);
update dt set p = array[7, -7] where id = 1;
update dt set p = '{7,8}' where id = 1;
select * from dt order by id;
select id, unnest(p) from dt order by 1, 2;
select id from dt where 8 = any(p) order by id;
select format_type(atttypid, atttypmod) from pg_attribute where attrelid = 'dt'::regclass and attnum > 0 order by attnum;
\d dt
create materialized view dmv as select id, p, cardinality(p) as n from dt;
insert into dt values (4, '{9,10,11}', '{x}');
delete from dt where id = 2;
refresh materialized view dmv;
select * from dmv order by id;
alter domain posint add constraint small check (value < 10);
alter domain posint add constraint small check (value < 10) not valid;
insert into dt values (5, array[10], null);
prepare p(posint[]) as select $1;
execute p(array[-1]);
execute p('{1}');
