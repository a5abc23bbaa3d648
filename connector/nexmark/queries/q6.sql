-- Average selling price by seller: per seller, the average winning bid
-- of its last 10 auctions. (RisingWave's text groups by A.id, A.seller
-- while selecting B.date_time, which PostgreSQL rejects; this orders the
-- frame by the auction's own time instead.)
SELECT Q.seller,
       Q.id,
       AVG(Q.final) OVER (PARTITION BY Q.seller ORDER BY Q.date_time, Q.id
           ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) AS avg
FROM (SELECT MAX(B.price) AS final, A.seller, A.id, A.date_time
      FROM auction AS A,
           bid AS B
      WHERE A.id = B.auction
        AND B.date_time BETWEEN A.date_time AND A.expires
      GROUP BY A.id, A.seller, A.date_time) AS Q
