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
