-- Materialized views over the flights source, kept up to date as flights
-- arrive. Each is one CREATE MATERIALIZED VIEW statement ending in ';' on its
-- own (scripts/flights.sh checks every view against the same query run as a
-- batch query over a plain table of the replayed flights).

-- Average departure delay per origin airport per hour of departure.
CREATE MATERIALIZED VIEW delay_by_origin_hour AS
SELECT origin, window_start, window_end,
       count(*) AS departures, avg(delay) AS avg_delay, max(delay) AS max_delay
FROM TUMBLE(flights, date, INTERVAL '1 hour')
GROUP BY origin, window_start, window_end;

-- Rolling three-hour delay by state of the origin airport, every hour.
CREATE MATERIALIZED VIEW delay_by_state_3h AS
SELECT a.state, f.window_start, f.window_end,
       count(*) AS departures, avg(f.delay) AS avg_delay
FROM HOP(flights, date, INTERVAL '1 hour', INTERVAL '3 hours') AS f
JOIN airports AS a ON f.origin = a.iata
GROUP BY a.state, f.window_start, f.window_end;

-- The ten routes with the highest average delay (routes of at least ten
-- flights; ties broken by route).
CREATE MATERIALIZED VIEW most_delayed_routes AS
SELECT origin, destination, departures, avg_delay
FROM (SELECT origin, destination, count(*) AS departures, avg(delay) AS avg_delay
      FROM flights GROUP BY origin, destination) AS r
WHERE departures >= 10
ORDER BY avg_delay DESC, origin, destination
LIMIT 10;

-- The departure board: per origin airport, departures so far, how many left
-- more than 15 minutes late, the average delay and the latest departure.
CREATE MATERIALIZED VIEW departure_board AS
SELECT origin, count(*) AS departures,
       count(*) FILTER (WHERE delay > 15) AS late,
       avg(delay) AS avg_delay, max(date) AS last_departure
FROM flights
GROUP BY origin;

-- The last three departures of every origin airport (group top-N).
CREATE MATERIALIZED VIEW last_departures AS
SELECT origin, date, destination, delay
FROM (SELECT origin, date, destination, delay,
             ROW_NUMBER() OVER (PARTITION BY origin
                                ORDER BY date DESC, destination, delay) AS rn
      FROM flights) AS d
WHERE rn <= 3;
