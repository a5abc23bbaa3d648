-- Every type's text output and psql's alignment of it.
SET TimeZone = 'UTC';
SELECT true AS t, false AS f, NULL::boolean AS n;
SELECT 32767::smallint AS i2, (-2147483648)::int AS i4, 9223372036854775807::bigint AS i8, -1::bigint AS neg;
SELECT 'NaN'::float8 AS nan, 'Infinity'::float8 AS inf, '-Infinity'::float8 AS ninf, '-0'::float8 AS negzero, 1e16::float8 AS big, 1e15::float8 AS below, 0.1::float8 + 0.2 AS sum, 1e-5::float8 AS small;
SELECT 'NaN'::real AS nan4, 1.1::real AS r, 3.4028235e38::real AS maxr, 1e-45::real AS tiny, 1::real / 3 AS third;
SELECT 1.5::numeric AS n, 123.4500::numeric AS trailing, 0.001::numeric(5,3) AS scaled, 2::numeric(10,4) AS padded, 'NaN'::numeric AS nan, -0.0::numeric AS negzero, 12345678901234567890.123::numeric AS huge;
SELECT 1::numeric / 3 AS div, 10::numeric / 4 AS quarter, round(2.567, 1) AS r, 1e-10::numeric AS tiny;
SELECT 'plain'::text AS t, ''::text AS empty, 'ünïcødé ✓'::text AS uni, '日本語テキスト'::text AS wide, 'tab	here' AS tab, 'multi
line' AS nl;
SELECT 'abc'::varchar(5) AS vc, 'x'::varchar AS v2, 'quote''s "dq" \back' AS q;
SELECT '\x00ff10'::bytea AS b1, ''::bytea AS b2, 'abc'::bytea AS b3, '\\'::bytea AS b4;
SELECT '2024-02-29'::date AS d, '0001-01-01'::date AS first, '0044-03-15 BC'::date AS bc, 'infinity'::date AS inf, '-infinity'::date AS ninf, '5874897-12-31'::date AS maxd;
SELECT '00:00'::time AS midnight, '23:59:59.999999'::time AS last, '24:00'::time AS end, '12:34:56.5'::time AS half;
SELECT '2024-02-29 13:14:15'::timestamp AS ts, '2024-02-29 13:14:15.123456'::timestamp AS us, '0100-01-01 00:00 BC'::timestamp AS bc, 'infinity'::timestamp AS inf, '1999-12-31 23:59:59.5'::timestamp AS half;
SELECT '2024-02-29 13:14:15+00'::timestamptz AS tz_utc, '2024-07-01 00:00:00-07'::timestamptz AS summer, '1900-01-01 00:00+00'::timestamptz AS old, '2024-01-01 12:00:00.25+05:30'::timestamptz AS frac;
SET TimeZone = 'America/New_York';
SELECT '2024-02-29 13:14:15+00'::timestamptz AS tz_ny, '2024-07-01 00:00:00-07'::timestamptz AS summer, '1900-01-01 00:00+00'::timestamptz AS old, '2024-01-01 12:00:00.25+05:30'::timestamptz AS frac;
SET TimeZone = 'Asia/Kathmandu';
SELECT '2024-02-29 13:14:15+00'::timestamptz AS tz_ktm, '1900-01-01 00:00+00'::timestamptz AS lmt;
SET TimeZone = 'UTC';
SELECT interval '1 year 2 months 3 days 04:05:06.789' AS full, interval '-1 day' AS neg_day, interval '1 day -01:00' AS mixed, interval '0' AS zero;
SELECT interval '90 minutes' AS m, interval '36 hours' AS h, interval '1.5 years' AS y, interval '-1 mon +2 days -03:00:00' AS signs, interval '1 week' AS w, interval '0.000001 s' AS us;
SELECT interval '100 years' AS c, interval '-00:00:01' AS neg_s, interval '1 mon' * 2.5 AS times, age('2024-03-01'::timestamp, '2023-01-15 12:00') AS age;
SELECT '{"b": 2, "a": [1, 2.50, "x", null, true, false], "c": {"d": "ü"}}'::jsonb AS j, '[]'::jsonb AS ea, '{}'::jsonb AS eo, '"s"'::jsonb AS s, 'null'::jsonb AS jn, '1e3'::jsonb AS num;
SELECT '{"a": 1, "a": 2}'::jsonb AS dupkey, '{"k": "line\nbreak"}'::jsonb AS esc, '[1, [2, [3]]]'::jsonb -> 1 AS arrow, '{"a": "x"}'::jsonb ->> 'a' AS text_arrow;
CREATE TABLE alltypes (b boolean, i2 smallint, i4 int, i8 bigint, f4 real, f8 float8, n numeric(6,2), t text, vc varchar(4), by bytea, d date, tm time, ts timestamp, tz timestamptz, iv interval, j jsonb);
INSERT INTO alltypes VALUES (true, 1, 2, 3, 4.5, 6.25, 7.5, 'eight', 'nine', '\x0a', '2010-10-10', '10:10:10', '2010-10-10 10:10:10', '2010-10-10 10:10:10+00', '10 days', '{"ten": 10}'),
  (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
SELECT * FROM alltypes;
\x on
SELECT * FROM alltypes;
\x off
