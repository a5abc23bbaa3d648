-- Processing-time windows: the bids of each bidder in each 10-second
-- window of processing time. RisingWave declares the column on the
-- source (p_time TIMESTAMPTZ AS PROCTIME()); here a WITH query adds it.
-- proctime() is the time of the checkpoint epoch a bid is processed in,
-- so the result depends on when the query runs.
WITH B AS (SELECT bidder, PROCTIME() AS p_time FROM bid)
SELECT bidder, count(*) AS bid_count, window_start, window_end
FROM TUMBLE(B, p_time, INTERVAL '10' SECOND)
GROUP BY bidder, window_start, window_end
