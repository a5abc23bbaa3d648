-- pg_stat_ssl, as psql users check TLS: a plain session has its row,
-- ssl false and the rest NULL; the view's columns and their types.
SELECT ssl, version, cipher, bits FROM pg_stat_ssl WHERE pid = pg_backend_pid();
SELECT ssl, version IS NULL, cipher IS NULL, bits IS NULL, client_dn IS NULL, client_serial IS NULL, issuer_dn IS NULL
  FROM pg_stat_ssl WHERE pid = pg_backend_pid();
SELECT pg_typeof(pid), pg_typeof(ssl), pg_typeof(version), pg_typeof(cipher), pg_typeof(bits),
       pg_typeof(client_dn), pg_typeof(client_serial), pg_typeof(issuer_dn)
  FROM pg_stat_ssl WHERE pid = pg_backend_pid();
SELECT count(*) FROM pg_stat_ssl WHERE pid = pg_backend_pid() AND NOT ssl;
SELECT * FROM pg_stat_ssl WHERE false;
