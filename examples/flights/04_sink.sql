-- The departure board as an upsert stream keyed by origin airport, written
-- to the Kafka topic departure_board exactly once (read it with
-- kcat -X isolation.level=read_committed). Run with psql -v broker=HOST:PORT.
CREATE SINK departure_board_out FROM departure_board
WITH (
  connector = 'kafka',
  topic = 'departure_board',
  properties.bootstrap.server = :'broker',
  primary_key = 'origin'
) FORMAT UPSERT ENCODE JSON;
