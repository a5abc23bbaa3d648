-- The text output of every type, including timestamptz in two time zones.
CREATE TABLE o (i2 smallint, i4 int, i8 bigint, f4 real, f8 double precision, n numeric(12,3), b boolean,
  t text, vc varchar(5), d date, tm time, ts timestamp, tz timestamptz, iv interval, j jsonb, by bytea);
INSERT INTO o VALUES (-32768, 2147483647, -9223372036854775808, 1.5e-7, -0.1, 12345.6789, true, 'a b', 'xy',
  '2024-02-29', '23:59:59.999999', '2024-01-02 03:04:05.678', '2024-06-01 12:00:00+02', '1 year 2 mons 3 days 04:05:06.7',
  '{"b": [1, 2.50, null], "a": "x"}', '\x00ff41');
INSERT INTO o VALUES (NULL, 0, 0, 'Infinity', '-Infinity', -0.5, false, '', '', '0001-01-01', '00:00', '1999-12-31 23:59:59',
  '1970-01-01 00:00:00+00', '-1 days +02:00', '[]', '');
SET TimeZone = 'UTC';
SELECT * FROM o;
SET TimeZone = 'America/New_York';
SELECT tz, tz::date AS d, tz::time AS t, ts::timestamptz AS ts_in_zone FROM o;
SELECT '2024-03-10 02:30:00'::timestamptz, '2024-11-03 01:30:00'::timestamptz, '2024-07-04 12:00'::timestamptz AT TIME ZONE 'UTC';
SET TimeZone = 'Asia/Kolkata';
SELECT tz, date_trunc('day', tz) AS day, extract(hour FROM tz) AS h FROM o;
SHOW TimeZone;
RESET TimeZone;
SELECT 1::int2, 2::int8, 3.0::float4, 4.25::float8, 1e100::float8, 'NaN'::numeric, 0.000001::numeric, 1::numeric(5,2);
SELECT interval '1 day' * 2.5, interval '90 minutes', interval '-1 month 1 day', interval '0';
SELECT 'true'::boolean, 'f'::boolean, 'yes'::boolean;
SELECT '{"z": {"y": [true, false]}, "a": 1e3}'::jsonb, '"str"'::jsonb, 'null'::jsonb;
SELECT ARRAY['a', NULL, 'b c', '"q"']::text[], '{}'::text[];
SELECT E'tab\there', 'multi
line', 'unicode é ü';
-- An empty ARRAY constructor takes the type of the array type it is cast to.
SELECT ARRAY[]::int[];
SELECT ARRAY[]::text[] AS t, ARRAY[]::varchar(3)[] AS v, cardinality(ARRAY[]::int[]) AS c;
SELECT array_length(ARRAY[]::int[], 1), ARRAY[]::int[] = '{}'::int[] AS eq, ARRAY[]::bigint[] || 5::bigint AS app;
SELECT (ARRAY[])::numeric[];
SELECT CAST(ARRAY[] AS date[]);
SELECT ARRAY[]::int;
SELECT ARRAY[];
