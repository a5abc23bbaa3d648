-- COPY through psql's \copy: text and CSV, to and from stdout/stdin.
CREATE TABLE c (id int PRIMARY KEY, name text, score numeric(5,2), at timestamp);
\copy c FROM stdin
1	ann	1.50	2024-01-01 10:00:00
2	\N	2	2024-01-02 00:00:00
3	tab\there	-3.25	\N
\.
\copy c (id, name) FROM stdin WITH (FORMAT csv)
4,"quoted, comma"
5,""
6,
\.
SELECT * FROM c ORDER BY id;
\copy c TO stdout
\copy c TO stdout WITH (FORMAT csv, HEADER)
\copy (SELECT id, upper(name) FROM c WHERE id < 3 ORDER BY id) TO stdout WITH (FORMAT csv)
\copy c FROM stdin
7	bad	notanumber	\N
\.
\copy c FROM stdin
1	dup	0	\N
\.
\copy nosuch FROM stdin
\.
SELECT count(*) FROM c;
