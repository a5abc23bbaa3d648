-- The flights topic, as produced by `weir replay` (one JSON record a flight):
-- departure time, departure delay in minutes, distance in miles, IATA codes.
-- Run with psql -v broker=HOST:PORT.
CREATE SOURCE flights (
  date timestamp,
  delay int,
  distance int,
  origin varchar,
  destination varchar
) WITH (
  connector = 'kafka',
  topic = 'flights',
  properties.bootstrap.server = :'broker',
  scan.startup.mode = 'earliest'
) FORMAT PLAIN ENCODE JSON;
