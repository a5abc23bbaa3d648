-- TABLESAMPLE BERNOULLI and SYSTEM: only the cases whose rows do not
-- depend on how rows are chosen (0 and 100 percent), and the errors.
create table ts (id int primary key, v text);
insert into ts select g, 'r' || g from generate_series(1, 500) g;
create materialized view tsm as select id, v from ts where id % 2 = 0;
create view tsv as select * from ts;
select count(*) from ts tablesample bernoulli (100);
select count(*) from ts tablesample system (100) repeatable (7);
select count(*), sum(id) from ts as a tablesample bernoulli (100) where a.id > 250;
select * from ts tablesample bernoulli (0);
select * from ts tablesample system (0) repeatable (1);
select count(*) from tsm tablesample bernoulli (100);
select count(*) from tsm tablesample system (0);
select x, y from ts as a(x, y) tablesample bernoulli (100) where x < 3 order by x;
select count(*) from ts tablesample bernoulli (100) join ts u using (id);
select count(*) from ts tablesample bernoulli ('100');
select count(*) from ts tablesample bernoulli (50 + 50) repeatable (1.5);
-- Argument errors.
select * from ts tablesample bernoulli (101);
select * from ts tablesample system (-0.5);
select * from ts tablesample bernoulli (null);
select * from ts tablesample bernoulli (10) repeatable (null);
select * from ts tablesample bernoulli ('abc');
select * from ts tablesample bernoulli (true);
-- Methods and forms.
select * from ts tablesample foo (10);
select * from ts tablesample bernoulli (10, 2);
select * from ts tablesample system ();
select * from tsv tablesample bernoulli (10);
with c as (select 1) select * from c tablesample bernoulli (10);
select * from (select 1) s tablesample bernoulli (10);
select * from generate_series(1, 3) tablesample bernoulli (10);
-- A view keeps the clause.
create view tsv0 as select id from ts as a tablesample bernoulli (0) repeatable (1);
create view tsv100 as select id, v from ts tablesample system (50 + 50);
select count(*) from tsv0;
select count(*) from tsv100;
select pg_get_viewdef('tsv0');
select pg_get_viewdef('tsv100');
-- A materialized view over a sample of all or no rows.
create materialized view tsm100 as select id from ts tablesample bernoulli (100) repeatable (2);
create materialized view tsm0 as select id from ts tablesample bernoulli (0) repeatable (2);
select count(*), sum(id) from tsm100;
select count(*) from tsm0;
