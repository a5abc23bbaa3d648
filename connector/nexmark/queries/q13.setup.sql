-- q13's side input: a table of 10,000 keys, as RisingWave's CI creates it.
CREATE TABLE side_input (key BIGINT PRIMARY KEY, value VARCHAR);
INSERT INTO side_input SELECT v, v::varchar FROM generate_series(0, 9999) AS t(v);
