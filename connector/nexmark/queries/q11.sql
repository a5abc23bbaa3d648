-- User sessions: how many bids each bidder made in each session of
-- activity, a session ending after 10 seconds without a bid (Flink's
-- formulation; RisingWave's is a window function over the same
-- sessions). SESSION is a grouping: a late bid that falls between two
-- sessions joins them, and the view retracts both rows for the joined
-- one.
SELECT B.bidder,
       count(*)                                          AS bid_count,
       SESSION_START(B.date_time, INTERVAL '10' SECOND) AS starttime,
       SESSION_END(B.date_time, INTERVAL '10' SECOND)   AS endtime
FROM bid B
GROUP BY B.bidder, SESSION(B.date_time, INTERVAL '10' SECOND)
