-- Auction top-10 price: the ten highest bids of each auction.
SELECT *
FROM (SELECT *,
             ROW_NUMBER() OVER (
                 PARTITION BY auction
                 ORDER BY price DESC
                 ) AS rank_number
      FROM bid) AS b
WHERE rank_number <= 10
