-- The named array functions behind the || operators (array_append,
-- array_prepend, array_cat) and trim_array, with their NULL handling and
-- errors, in queries and in a materialized view under DML; max and min
-- over arrays, ordered element by element, in queries and in
-- materialized views whose deletes retract the current extreme.
select array_append(array[1, 2], 3), array_prepend(0, array[1, 2]), array_cat(array[1, 2], array[3, 4]);
select array_append('{a,b}'::text[], 'c'), array_prepend('z', '{a}'::text[]), array_cat('{a}'::text[], '{b,"c d"}');
select array_append(null::int[], 1), array_append(array[1], null), array_append(null::int[], null);
select array_prepend(null, array[1]), array_prepend(1, null::int[]), array_prepend(null::int, null::int[]);
select array_cat(null::int[], array[1]), array_cat(array[1], null), array_cat(null::int[], null::int[]) is null;
select array_cat('{}'::int[], '{}'::int[]), array_append('{}'::numeric[], 1.50), array_prepend(now()::date - now()::date, '{}'::int[]);
select pg_typeof(array_append(array[1::int2], 2::int2)), pg_typeof(array_cat(array[1.5], array[2]));
select array_append(array[1, 2], 'x');
select array_cat(array[1, 2], array['a']);
select array_append(array[1, 2], array[3]);
-- anycompatiblearray and anycompatible: the elements' common type,
-- text for untyped literals alone; the || operators alike.
select array_append(array[1, 2], 2.5), array_prepend(2.5, array[1, 2]), array_cat(array[1, 2], array[2.5]);
select array_cat('{1}', '{2}'), array_append('{1}', '2'), array_prepend('1', '{2}'), array_append(null, null);
select array_append(array[1]::int8[], 2::int2), pg_typeof(array_append(array[1::int2], 2)), pg_typeof(array_cat(array['a'::char(2)], array['b'::varchar]));
select array[1, 2] || 2.5, 2.5 || array[1], array[1::int4] || 2::int8, pg_typeof(array[1::int4] || 2::int8);
select 'a'::text || array['b'], array['b'] || 'a'::text, 'a'::varchar || array['b'::text];
select array_append(array[1], array[2]);
select array['a'] || 1;
select 1 || array['a'];
select array_prepend(1, '{a}');
select trim_array('{1,2}', 1);
select trim_array(array[1, 2, 3, 4], 2), trim_array(array[1, 2, 3], 0), trim_array(array[1, 2, 3], 3);
select trim_array('{a,NULL,c}'::text[], 1), trim_array('{}'::int[], 0), trim_array(null::int[], 1), trim_array(array[1], null);
select trim_array(array[1, 2, 3], 4);
select trim_array(array[1, 2, 3], -1);
select trim_array('{}'::int[], 1);
select pg_typeof(trim_array(array[1.5, 2], 1));
create type mood as enum ('sad', 'ok', 'happy');
select array_append('{ok}'::mood[], 'happy'), array_prepend('sad'::mood, '{ok}'::mood[]), array_cat('{ok}'::mood[], '{sad}'), trim_array('{ok,sad}'::mood[], 1);
select array_append('{ok}'::mood[], 'bad');
create table t (id int primary key, a int[], x int, m mood[]);
insert into t values (1, '{1,2}', 3, '{ok}'), (2, null, 4, null), (3, '{5}', null, '{happy,sad}'), (4, '{}', 0, '{}');
create materialized view mv as
  select id, array_append(a, x) as app, array_prepend(x, a) as pre, array_cat(a, a) as cat,
         trim_array(a, 1) as tr, array_append(m, 'happy') as ma
  from t where id <> 4;
select * from mv order by id;
insert into t values (5, '{7,8,9}', 10, '{sad}');
update t set a = '{6}', x = null where id = 1;
delete from t where id = 3;
refresh materialized view mv;
select * from mv order by id;
insert into t values (6, '{2}', 1, '{}');
refresh materialized view mv;
select * from mv order by id;
delete from t where id = 6;
refresh materialized view mv;
select * from mv order by id;
-- max and min over arrays.
select max(array[x, null]), min(array[null, x]), max(array[x::text]) from generate_series(8, 11) x;
select max(a) from (values (array['$.a'::jsonpath]), (array['$.b'::jsonpath])) v(a);
select max(a), min(a) from (values (array['$.a'::jsonpath])) v(a);
select max(a), min(a) from (values (array[1, 2]), (array[1, 10]), (array[2]), (array[1]), (null), ('{}')) v(a);
select max(a), min(a) from (values ('{b,a}'::text[]), ('{b}'), ('{a,z,z}'), ('{NULL}'), ('{a,NULL}')) v(a);
select max(a), min(a), pg_typeof(max(a)) from (values ('{1.5,2}'::numeric[]), ('{1.50,3}')) v(a);
select max(a), min(a) from (values ('{t,f}'::bool[]), ('{f,t}')) v(a);
select max(a), min(a) from (values ('{2024-01-01}'::date[]), ('{1999-12-31,2030-01-01}')) v(a);
select max(a) from (values (null::int[])) v(a);
select max(a), min(a) from (values ('{happy,sad}'::mood[]), ('{ok}'), ('{sad,happy}'), ('{happy}')) v(a);
select id % 2 as k, max(a), min(a) from t group by 1 order by 1;
select max(a) over (order by id), min(m) over (order by id) from t order by id;
create table s (id int primary key, g int, a int[], m mood[]);
insert into s values (1, 1, '{1,2}', '{ok}'), (2, 1, '{3}', '{happy}'), (3, 1, '{1,2,0}', '{sad,happy}'),
  (4, 2, '{}', '{}'), (5, 2, null, null), (6, 2, '{NULL}', '{sad}');
create materialized view mm as select g, max(a) as hi, min(a) as lo, max(m) as mhi, min(m) as mlo, count(*) from s group by g;
create materialized view mt as select max(a) as hi, min(a) as lo from s;
select * from mm order by g;
select * from mt;
delete from s where id = 2;
refresh materialized view mm;
refresh materialized view mt;
select * from mm order by g;
select * from mt;
delete from s where id = 6;
refresh materialized view mm;
refresh materialized view mt;
select * from mm order by g;
update s set a = '{9}', m = '{happy,happy}' where id = 5;
refresh materialized view mm;
refresh materialized view mt;
select * from mm order by g;
select * from mt;
delete from s where g = 1;
refresh materialized view mm;
refresh materialized view mt;
select * from mm order by g;
select * from mt;
create table s2 (id int primary key, a text[], n numeric[]);
insert into s2 values (1, '{a,b}', '{9.5}'), (2, '{ab}', '{10}'), (3, '{a}', '{-1}'), (4, '{a,NULL}', '{1e3}'), (5, '{B}', '{9,1}');
create materialized view mm2 as select max(a) as hi, min(a) as lo, max(n) as nhi, min(n) as nlo from s2;
select * from mm2;
delete from s2 where id in (2, 3);
refresh materialized view mm2;
select * from mm2;
delete from s2 where id in (4, 5);
refresh materialized view mm2;
select * from mm2;
-- pg_typeof of a column that is an array of a domain, its elements and
-- slices, and of a domain over an array.
create domain posint as int check (value > 0);
create domain intlist as int[] check (cardinality(value) < 4);
create table d (id int, p posint, b posint[], a intlist);
insert into d values (1, 1, '{1,2}', '{3}');
select pg_typeof(p), pg_typeof(b), pg_typeof(b[1]), pg_typeof(b[1:1]), pg_typeof(d.b[2]), pg_typeof(a), pg_typeof(a[1]), pg_typeof(a[1:1]) from d;
select pg_typeof(array_append(b, 3)), array_append(b, 3), pg_typeof(array_cat(a, a)), max(b), max(a) from d group by b, a;
select array_append(b, -3) from d;
-- The columns of views, materialized views and subqueries keep the
-- domain of the column or cast they come from (\d, pg_typeof).
create domain tags as text[];
alter table d add column c tags;
update d set c = '{x}';
create view dv as select p, b, a, c, a || 5 as a5, b[1] as b1, b[1:1] as bs, p::posint as p2, 3::posint as p3, p + 1 as p4 from d;
\d dv
select pg_typeof(p), pg_typeof(b), pg_typeof(b1), pg_typeof(a), pg_typeof(c), pg_typeof(p4) from dv;
create view dv2 as select p, b from dv union all select p, b from d;
\d dv2
create view dv3 as select p, b, count(*) from d group by p, b;
\d dv3
create materialized view dm as select id, p, b, a, c, b[2] as b2 from d;
\d dm
select pg_typeof(b), pg_typeof(b2), pg_typeof(c) from dm;
insert into d values (2, 5, '{7}', '{}', '{}');
refresh materialized view dm;
select * from dm order by id;
select pg_typeof(x.b), pg_typeof(x.b[1]), pg_typeof(x.k) from (select b, 2::posint as k from d) x limit 1;
with w as (select b, a from d) select pg_typeof(b), pg_typeof(a) from w limit 1;
alter domain posint add constraint lt10 check (value < 10);
insert into d values (3, 12, '{1}', '{}', '{}');
-- CREATE TABLE AS keeps them too, and the new table's columns check
-- the domain.
create table t2 as select p, b, b[1] as b1, p + 1 as q from d;
\d t2
insert into t2 values (-1, '{1}', 1, 1);
insert into t2 values (1, '{1}', -3, 1);
insert into t2 values (2, '{2}', 2, -2);
select * from t2 order by p;
-- A string literal cast to an array of a domain is checked as it is
-- read: the error points at it.
create domain nnint as int not null;
select '{-1}'::posint[];
select cast('{3,-1}' as posint[]);
select 1, '{1,NULL}'::nnint[];
select array[-1]::posint[];
-- So is one stored into a column that is an array of a domain, in
-- VALUES, UPDATE and INSERT ... SELECT; a mismatch names the domain.
create table da (id int, b posint[], n nnint[]);
insert into da (b) values ('{1}'), ('{2}'), ('{-1}');
insert into da (n) values ('{1,NULL}');
insert into da (b) values (array[-1]);
insert into da (b) values (null), ('{3}');
update da set b = '{-2}';
update da set b = '{4}' where b = '{3}';
insert into da (b) select '{-1}';
insert into da (b) select '{-1}' union all select '{2}';
insert into da (b) values (1);
select b, n from da order by b;
