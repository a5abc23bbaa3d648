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
