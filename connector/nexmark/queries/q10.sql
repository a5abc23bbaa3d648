-- Log to file system: every bid with its day and its time of day as
-- text. RisingWave's version writes into a blackhole sink instead of
-- files partitioned by day and hour, as every query here does.
SELECT auction,
       bidder,
       price,
       date_time,
       to_char(date_time, 'YYYY-MM-DD') AS date,
       to_char(date_time, 'HH:MI')      AS time
FROM bid
