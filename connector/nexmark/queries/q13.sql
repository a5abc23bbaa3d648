-- Bounded side input join: each bid joined, by a process-time lookup,
-- with the row of the side_input table its auction names (q13.setup.sql
-- creates and fills side_input).
SELECT B.auction,
       B.bidder,
       B.price,
       B.date_time,
       S.value
FROM bid B
         JOIN side_input FOR SYSTEM_TIME AS OF PROCTIME() S
              ON mod(B.auction, 10000) = S.key
