-- Calculation: converted prices in a range, each bid labelled by the
-- time of day it was made. (RisingWave's text leaves out the count_char
-- user-defined function of Flink's.)
SELECT auction,
       bidder,
       0.908 * price AS price,
       CASE
           WHEN extract(hour FROM date_time) >= 8 AND extract(hour FROM date_time) <= 18 THEN 'dayTime'
           WHEN extract(hour FROM date_time) <= 6 OR extract(hour FROM date_time) >= 20 THEN 'nightTime'
           ELSE 'otherTime'
           END AS bidTimeType,
       date_time,
       extra
FROM bid
WHERE 0.908 * price > 1000000
  AND 0.908 * price < 50000000
