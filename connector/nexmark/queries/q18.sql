-- Last bid: each bidder's latest bid on each auction.
SELECT auction, bidder, price, channel, url, date_time
FROM (SELECT *,
             ROW_NUMBER() OVER (
                 PARTITION BY bidder, auction
                 ORDER BY date_time DESC
                 ) AS rank_number
      FROM bid) AS b
WHERE rank_number <= 1
