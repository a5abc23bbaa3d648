-- Passthrough: every bid, four of its fields.
SELECT auction, bidder, price, date_time
FROM bid
