-- N'...' is a national character literal: PostgreSQL's lexer writes it
-- as NCHAR '...', a bpchar without a length, whose trailing spaces do
-- not count.
SELECT N'abc', pg_typeof(N'ab'), N'ab ' = 'ab', length(N'ab '), n'x';
SELECT N'ab  ' || 'c', N'ab '::text || '|', octet_length(N'a  ');
CREATE TABLE nl (id int PRIMARY KEY, s text, c char(4));
INSERT INTO nl VALUES (1, N'ab  ', N'xy'), (2, 'cd', 'cd');
SELECT id, s || '|', c || '|', length(s) FROM nl ORDER BY id;
SELECT id FROM nl WHERE c = N'xy   ' ORDER BY id;
SELECT id FROM nl WHERE s = N'cd ' ORDER BY id;
CREATE VIEW nlv AS SELECT id, N'k ' AS k FROM nl;
SELECT * FROM nlv ORDER BY id;
\d+ nlv
