-- US airports (vega-datasets airports.csv), loaded from the client with \copy.
-- Run from the repository root.
CREATE TABLE airports (
  iata varchar PRIMARY KEY,
  name varchar,
  city varchar,
  state varchar,
  country varchar,
  latitude double precision,
  longitude double precision
);
\copy airports FROM 'examples/flights/airports.csv' WITH (FORMAT csv, HEADER true)
