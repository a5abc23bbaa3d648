-- A multi-row INSERT ... VALUES of literals of 64 kB and more runs its
-- rows a piece at a time: the same rows, errors and positions as
-- PostgreSQL's, nothing written by a statement that fails in a late
-- row. \gexec sends each generated statement as one query.
create table iv (a int primary key, b text not null default 'dflt', c numeric, d date, e boolean);
select 'insert into iv values ' || string_agg(format('(%s, %s, %s.5, ''2020-01-%s''::date, %s)', g,
         case g % 4 when 0 then 'DEFAULT' when 1 then format('E''t\\t%s''', g) when 2 then format('$$d''%s$$', g) else format('''p''''%s''', g) end,
         -g, lpad((g % 28 + 1)::text, 2, '0'), case g % 3 when 0 then 'TRUE' when 1 then 'false' else 'NULL' end), ', ' order by g)
  from generate_series(1, 3000) g \gexec
select count(*), sum(a), sum(c), count(e), min(d), max(d), count(*) filter (where b = 'dflt') from iv;
select * from iv where a in (1, 2, 3, 4, 2999) order by a;
-- A bad value, a NULL into NOT NULL, a short row and a long one, late.
select 'insert into iv values ' || string_agg(format('(%s, ''r'')', case g when 5900 then '''x''' else (10000 + g)::text end), ', ' order by g)
  from generate_series(1, 6000) g \gexec
select 'insert into iv (a, b) values ' || string_agg(format('(%s, %s)', 10000 + g, case g when 5900 then 'NULL' else '''r''' end), ', ' order by g)
  from generate_series(1, 6000) g \gexec
select 'insert into iv (a, b) values ' || string_agg(case g when 5900 then '(1)' else format('(%s, ''r'')', 10000 + g) end, ', ' order by g)
  from generate_series(1, 6000) g \gexec
select 'insert into iv (a, b) values ' || string_agg(case g when 5900 then '(1, ''r'', 3)' else format('(%s, ''r'')', 10000 + g) end, ', ' order by g)
  from generate_series(1, 6000) g \gexec
select 'insert into iv (a) values ' || string_agg(format('(%s)', case g when 9900 then '99999999999' else (10000 + g)::text end), ', ' order by g)
  from generate_series(1, 10000) g \gexec
select count(*) from iv;
-- ON CONFLICT across pieces: a key proposed twice, then an upsert.
select 'insert into iv (a, b) values ' || string_agg(format('(%s, ''u'')', case g when 5900 then 5 else g end), ', ' order by g)
  || ' on conflict (a) do update set b = excluded.b' from generate_series(1, 6000) g \gexec
select 'insert into iv (a, b) values ' || string_agg(format('(%s, ''u%s'')', g * 2, g), ', ' order by g)
  || ' on conflict (a) do update set b = excluded.b || iv.b' from generate_series(1, 6000) g \gexec
select 'insert into iv (a, b) values ' || string_agg(format('(%s, ''w%s'')', g * 2, repeat('-', 30)), ', ' order by g)
  || ' on conflict do nothing returning a, b' from generate_series(1, 6005) g \gexec
select count(*), count(*) filter (where b like 'u%'), md5(string_agg(b, ',' order by a)) from iv;
-- Every row is analysed before anything runs, and before ON CONFLICT and
-- RETURNING: a bad value in the last row is the statement's error, ahead
-- of the tail's and of a value too long for its column in an early row,
-- and the serial's sequence does not move.
create table io (id int primary key, v varchar(6), s serial);
select 'insert into io (id, v) values ' || string_agg(case g when 8000 then '(''x'', ''y'')' else format('(%s, ''r%s'')', g, g) end, ', ' order by g)
  from generate_series(1, 8000) g \gexec
select 'insert into io (id, v) values ' || string_agg(case g when 8000 then '(''x'', ''y'')' else format('(%s, ''r%s'')', g, g) end, ', ' order by g)
  || ' returning nosuch' from generate_series(1, 8000) g \gexec
select 'insert into io (id, v) values ' || string_agg(case g when 8000 then '(''x'', ''y'')' else format('(%s, ''r%s'')', g, g) end, ', ' order by g)
  || ' on conflict (nosuch) do nothing' from generate_series(1, 8000) g \gexec
select 'insert into io (id, v) values ' || string_agg(case g when 8000 then '(''1.5'', ''y'')' else format('(%s, ''too long %s'')', g, g) end, ', ' order by g)
  || ' returning *' from generate_series(1, 8000) g \gexec
select 'insert into io (id, v) values ' || string_agg(case g when 8000 then '(-3, ''far too long'')' else format('(%s, ''r%s'')', g, g) end, ', ' order by g)
  || ' returning s' from generate_series(1, 8000) g \gexec
insert into io (id, v) values (-1, 'one') returning s;
insert into io (id, v) values (1, 'too long'), ('x', 'y') returning nosuch;
