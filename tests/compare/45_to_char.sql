-- to_char of timestamps and intervals through date/time templates: each
-- pattern with and without FM and TH, quoted and escaped literals, and
-- the same template over many rows (weir parses a template once and
-- reuses it).
CREATE TABLE ts (id int PRIMARY KEY, t timestamp);
INSERT INTO ts VALUES
  (1, '2026-12-03 13:05:09.123456'), (2, '2001-01-01 00:00:00'), (3, '1999-12-31 23:59:59.999999'),
  (4, '2024-02-29 12:00:00.5'), (5, '0900-07-04 01:02:03'), (6, '2011-11-11 11:11:11.011');
SELECT id, to_char(t, 'YYYY-MM-DD') AS day, to_char(t, 'HH24:MI') AS minute, to_char(t, 'HH12:MI:SS AM') AS ampm,
  to_char(t, 'FMHH12 pm A.M.') AS fm FROM ts ORDER BY id;
SELECT id, to_char(t, 'Month|MONTH|month|FMMonth|Mon|MON|mon') AS m, to_char(t, 'Day|DAY|day|FMDay|Dy|DY|dy') AS d FROM ts ORDER BY id;
SELECT id, to_char(t, 'YYY YY Y IYYY IW ID D DDD WW Q J') AS nums, to_char(t, 'FMDDth FMMMTH DDD"th" Dth') AS th FROM ts ORDER BY id;
SELECT id, to_char(t, 'MS US SS.US') AS frac, to_char(t, '"quoted YYYY" \"HH24') AS lit,
  to_char(t, 'yyyy-mm-dd hh24:mi:ss') AS lower FROM ts ORDER BY id;
SELECT id, to_char(t, '"unterminated YYYY') AS open_quote, to_char(t, 'FM') AS fm_only, to_char(t, '') AS empty FROM ts ORDER BY id;
SELECT to_char(t, 'YYYY-MM-DD') AS day, to_char(t, 'HH24:MI') AS minute, count(*)
  FROM (SELECT timestamp '2026-12-03 00:00:00' + i * interval '17 minutes' AS t FROM generate_series(1, 500) AS s(i)) AS g
  GROUP BY 1, 2 ORDER BY 1, 2 LIMIT 12;
SELECT to_char(interval '3 days 04:05:06.789', 'DD HH24:MI:SS.MS'), to_char(interval '5 hours', 'HH24 FMHH24'),
  to_char(interval '40 hours 2 minutes', 'HH24:MI HH12');
SELECT to_char(timestamptz '2026-06-01 12:00:00+00', 'YYYY-MM-DD HH24:MI TZ OF');
