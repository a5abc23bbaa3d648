-- Date/time input out of range: a month or day outside its absolute
-- bounds carries the DateStyle hint, other range errors do not.
select '2024-13-01'::date;
select '2024-00-01'::date;
select '2024-01-00'::date;
select '2024-01-32'::date;
select '13/01/2024'::date;
select 'jan 32 2024'::date;
select '20241301'::date;
select '2024-02-30'::date;
select '0000-01-01'::date;
select '2024-13-01 00:00'::timestamp;
select '2024-13-01 00:00'::timestamptz;
select '2024-01-40 10:00+02'::timestamptz;
select '2024-13-01 25:00'::timestamp;
select '2024-01-01 25:00'::timestamp;
select '2024-02-30 10:00'::timestamptz;
select '2024-13-01'::date::text;
-- Unicode escapes: U&'..' strings and U&".." identifiers, with UESCAPE.
select U&'d\0061t\+000061';
select U&'d!0061t' UESCAPE '!';
select U&'d!0061t' uescape '!' || 'x' as v;
select 1 as U&"d\0061t";
select 1 as U&"d!0061t" UESCAPE '!';
select U&'\D83D\DE00', U&'\+01F600', U&'a\\b', U&'\00e9t\00E9';
select U&'d!0061t' UESCAPE 'x';
select U&'12'::int + 1;
select U&'ab'
  'cd';
select u&'\0041', U&'\0041' as "U&";
select * from (select 1) as U&"t!0031" UESCAPE '!' (U&"c!0031" UESCAPE '!');
create table ue (U&"k\0031" int primary key, v text);
insert into ue values (1, U&'x!0079' UESCAPE '!'), (2, U&'\00e9');
insert into ue values (3, U&'a\0062;c');
select * from ue order by 1;
select U&"k\0031", "k1" from ue where v = U&'\00E9';
select U&'\zzzz';
select U&'é\zzzz';
select U&'a''b\zz';
select U&'\D83D';
select U&'\DE00';
select U&'\D83Dx';
select U&'\D83D\0061';
select U&'\0000';
select U&'\+110000';
select U&'\+00';
select U&'abc\';
select U&'a!0062' UESCAPE '+';
select U&'a!0062' UESCAPE 'a';
select U&'a!0062' UESCAPE '''';
select U&'a!0062' UESCAPE '"';
select U&'a!0062' UESCAPE ' ';
select U&'a!0062' UESCAPE 'ab';
select U&'a!0062' UESCAPE 1;
select U&'a!0062' UESCAPE E'!';
select U&'a!0062' UESCAPE;
select U&"\0000";
select U&"";
select U&"a\zz";
insert into ue values (4, U&'\zzzz');
-- E'..' escapes.
select E'\uD83D\uDE00', E'\U0001F600', E'\u00e9';
select E'\u0000';
select E'\uzzzz';
select E'ab\u00';
select E'\U0000004';
select E'\U00110000';
select E'\uD83D';
select E'\uD83Dx';
select E'\uDE00';
select E'\uD83D\u0061';
select E'é\uzz';
select E'a''\u0000';
select E'ab\xff';
-- A cast to a type that does not exist points at the type's name.
select 'a'::nosuchtype;
select 1, 'a'::nosuchtype;
select 'a'::public.nosuchtype;
select cast('a' as nosuchtype);
select cast('a' as public.nosuchtype);
select 'a'::nosuchtype[];
select ('a')::nosuchtype;
select 'a'::text::nosuchtype;
select 1 + 'a' :: nosuchtype;
select 'a'::"NoSuch";
select array['a']::nosuchtype[];
select 'x'::int;
select cast(1 as date);
select 'a'::nosuch.typ;
select cast('a' as nosuch.typ);
select 'a'::public.typ;
select 'a'::nosuch.typ[];
create schema s1;
select 'a'::s1.typ;
drop schema s1;
select 'a'::information_schema.typ;
-- to_date and to_timestamp: fields out of range name the input; a zero
-- month or day is one not given, year 0 is 1 BC.
select to_date('2024-13-01','YYYY-MM-DD');
select to_date('2024-02-30','YYYY-MM-DD');
select to_date('2024-01-32','YYYY-MM-DD');
select to_date('2024-00-10','YYYY-MM-DD');
select to_timestamp('2024-13-01 10:00','YYYY-MM-DD HH24:MI');
select to_timestamp('2024-02-30','YYYY-MM-DD');
select to_date('0000-01-01','YYYY-MM-DD');
select to_timestamp('2024-01-01 25:00','YYYY-MM-DD HH24:MI');
select make_date(2024, 13, 1);
select to_date('05','MM');
select to_timestamp('2024-01-01 24:00','YYYY-MM-DD HH24:MI');
select to_timestamp('2024-01-01 10:60','YYYY-MM-DD HH24:MI');
select to_timestamp('2024-01-01 10:59:60','YYYY-MM-DD HH24:MI:SS');
select to_date('2024-02-29','YYYY-MM-DD'), to_date('2023-02-29','YYYY-MM-DD');
-- time input: the DateStyle hint too, and a date without a time is no
-- time.
select '2024-13-01 10:00'::time;
select '2024-01-32 10:00'::time;
select '2024-02-30 10:00'::time;
select '2024-13-01'::time;
select '2024-01-01'::time;
select '25:00'::time;
select '2024-01-01 25:00'::time;
-- An empty GROUP BY item is a syntax error at the comma after it.
select 1 group by ,;
select 1 group by 1, , 2;
select 1 group by 1, 2, ;
select 1 group by grouping sets ((1), , (2));
select 1 group by rollup (1, , 2);
-- After the first half of a surrogate pair in E'..'.
select E'\uD83D\uzz';
select E'\uD83D\U0000DE00';
select E'\uD83D\\';
select E'\uD83D''';

-- String continuation: escapes go on across the newline; E'\0' is a NUL, refused; INTO takes one name.
select 'a'
'b', E'\x41'
'\x42', U&'\0041'
'\0042', 'a' -- c
 'b', 'a'
-- c
'c';
select 'a'  /* x */
'd';
select $$a$$
'b';
select 'x'
E'y';
select U&'!0041'
'!0042' uescape '!';
select E'\0', E'\000';
select E'\x00';
select E'\400';
select E'a\0b';
select 1 into strict ts9 from (select 1) s;
select 1 into tsa;
select 1 into tsb from (select 2) s where true;
select 1 into tsc (x);
drop table tsa, tsb;

-- LIKE and ILIKE ... ESCAPE, like_escape, in views and materialized views.
select 'a#b' ilike 'A##B' escape '#', 'a%b' like 'a#%b' escape '#', 'axb' like 'a#%b' escape '#', 'a\b' like 'a\b' escape '', 'a\b' like 'a\\b' escape '#', 'a_b' not like 'a!_b' escape '!';
select like_escape('a#%b\c', '#'), like_escape('a\b', ''), like_escape('x', '\');
select like_escape('a', 'ab');
create table le (s text);
insert into le values ('50%'), ('500'), ('5_0');
create view lev as select s from le where s like '50!%' escape '!';
select pg_get_viewdef('lev');
select * from lev;
create materialized view lem as select s from le where s not like '5!_%' escape '!';
select * from lem order by 1;
drop materialized view lem; drop view lev; drop table le;
