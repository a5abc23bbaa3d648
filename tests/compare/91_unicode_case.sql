-- Character classification and case mapping follow LC_CTYPE C.UTF-8
-- (simple Unicode case mappings, glibc's character classes) while text
-- still sorts by code point (LC_COLLATE C).
SELECT current_setting('lc_ctype') AS lc_ctype, current_setting('lc_collate') AS lc_collate;
SELECT datctype, datcollate FROM pg_database WHERE datname = current_database();
SELECT name, setting, boot_val, reset_val FROM pg_settings WHERE name IN ('lc_ctype', 'lc_collate') ORDER BY name;
-- upper, lower, initcap: one character for one, no special casing.
SELECT upper('é'), lower('É'), upper('straße'), lower('STRASSE'), upper('ﬁ');
SELECT upper('αβγ ςσ'), lower('ΑΒΓ Σ'), upper('привет'), lower('ПРИВЕТ');
SELECT lower('İ') = 'i' AS dotted_i_lowers, upper('ı'), upper('i'), lower('I');
SELECT upper('ǅ'), lower('ǅ'), initcap('ǆemal'), initcap('ǅemal'), upper('ǆ');
SELECT upper('µ'), lower('K'), lower('Ω'), upper('ÿ'), upper('ŉ');
SELECT initcap('élan vital'), initcap('ÉLAN VITAL'), initcap('straße-café'), initcap('ßa');
SELECT initcap('hello wörld'), initcap('mañana,tarde'), initcap('x١y z²w'), initcap('αβγ-δεζ');
SELECT initcap('o''neil mcdonald'), initcap('1st 2ND'), initcap('a_b c.d');
-- ILIKE folds as lower() does.
SELECT 'Émile' ILIKE 'é%', 'ÉMILE' ILIKE '%mile', 'Straße' ILIKE 'STRASSE', 'ΣΟΦΙΑ' ILIKE 'σοφια';
SELECT 'Émile' NOT ILIKE 'é%', 'K' ILIKE 'k', 'ПРИВЕТ' ILIKE '_ривет';
-- Case-insensitive regular expressions.
SELECT 'Émile' ~* '^é', 'émile' ~* '^É', 'ПРИВЕТ' ~* 'привет', 'Émile' !~* '^é';
SELECT regexp_replace('Café CAFÉ café', 'é', 'e', 'gi'), regexp_match('ÀÉÎ', 'àéî', 'i');
SELECT regexp_count('ÅåÄä', 'å', 1, 'i'), regexp_like('ÑU', 'ñu', 'i');
-- A literal character matches its lower- and upper-case mappings only
-- (not the rest of its case folding orbit, nor itself when title-case);
-- a bracket range adds the mappings of its characters.
SELECT chr(8490) ~* 'k' AS kelvin, 'k' ~* chr(8490) AS kelvin2, 'ſ' ~* 's' AS longs, 's' ~* 'ſ', 'ς' ~* 'σ', 'σ' ~* 'ς', 'Σ' ~* 'ς', 'ß' ~* 'ẞ', 'ẞ' ~* 'ß', 'µ' ~* 'μ', 'Μ' ~* 'µ';
SELECT 'ς' ~* '[σ]', chr(8490) ~* '[a-z]', 'É' ~* '[à-ê]', 'ǅ' ~* 'ǆ', 'ǆ' ~* 'ǅ', 'ǅ' ~* 'Ǆ', 'ǅ' ~* 'ǅ', 'ǅ' ~* '[ǅ]', 'ǅ' ~* '[^ǅ]', 'A' ~* '[^a]';
SELECT regexp_replace('ABC abc', 'b', '_', 'gi'), regexp_replace('a.b A.B', 'A.B', '_', 'gqi'), 'xÉy' ~* 'x[[:lower:]]y', 'ÉÈ' ~* '^[è-é]+$', 'KK' ~* '^k{2}$', 'İ' ~* 'i', 'i' ~* 'İ', 'I' ~* 'ı';
SELECT regexp_matches('AbC aBc', '(b)(c)', 'gi'), 'Straße' ~* 'STRASSE', 'ǈ' ~* '[ǉ]';
-- Hexadecimal escapes are characters like any other: they take every
-- digit (\x) or four (\u) or eight (\U), and match in any case under i.
SELECT 'A' ~* '\x61', 'A' ~* '[\x61]', 'a' ~ '[\x61-\x63]', 'B' ~* '[\x61-\x63]', 'é' ~ '\u00e9', 'É' ~* '\u00e9', 'é' ~ '\U000000e9';
SELECT 'é' ~ '\xe9', 'ab' ~ '\x61b', 'ag' ~ '\x61g', 'A' ~* '[\x41]', 'x' ~ '\x110000', 'a-c' ~ '^[\x61\-c]+$', 'b' ~ '[^\x61]';
SELECT 'é' ~ '\x{e9}';
SELECT 'a' ~ '\x';
SELECT 'a' ~ '\u00';
SELECT 'Ab' ~* '[[:upper:]]b', 'a]' ~ '[]a]+', 'a^' ~ '[a^]+$', '-' ~ '[a-]', 'z' ~ '[a-]', 'x' ~ '[^]a]';
-- Embedded options, (?letters) at the start, set case-insensitivity too.
SELECT 'ABC' ~ '(?i)abc', 'ABC' ~* '(?i)abc', 'ABC' ~* '(?c)abc', 'a.c' ~ '(?q)a.c', 'abc' ~ '(?q)a.c', 'ABC' ~ '(?ix)a b c', 'ÉTÉ' ~ '(?i)été';
SELECT regexp_replace(E'a\nb', '(?n)^b', 'X'), regexp_replace('A.b', '(?qi)a.B', 'x'), regexp_match('ab', '(?:a)(b)');
SELECT 'ABC' ~ '(?z)abc';
SELECT 'ABC' ~ '(?i';
-- Character classes are the locale's.
SELECT 'é' ~ '[[:alpha:]]', 'é' ~ '\w', 'É' ~ '[[:upper:]]', 'é' ~ '[[:lower:]]', 'É' ~ '[[:lower:]]';
SELECT 'ж' ~ '^\w+$', 'Ω' ~ '[[:alnum:]]', '٣' ~ '\d', '٣' ~ '[[:alpha:]]', '3' ~ '\d';
SELECT 'é' ~ '\W', 'é!' ~ '^\w\W$', '¿' ~ '[[:punct:]]', 'é' ~ '[^[:alpha:]]';
SELECT E'\u00a0' ~ '\s', E'\u2003' ~ '\s', E'\u2003' ~ '[[:space:]]', E'\u2003' ~ '[[:blank:]]', E'\u0085' ~ '[[:cntrl:]]';
SELECT 'É' ~* '[[:lower:]]', 'é' ~* '[[:upper:]]', 'ǅ' ~ '[[:upper:]]', 'ǅ' ~ '[[:lower:]]';
SELECT regexp_replace('naïve café über', '\w+', '<\&>', 'g');
SELECT regexp_matches('Ærø Ñandú Ölçü', '([[:upper:]])([[:lower:]]+)', 'g');
SELECT regexp_split_to_array('mot-clé, été; ça', '\W+');
SELECT regexp_replace(E'é\nè', '\W', '_', 'n'), regexp_replace(E'é\nè', '\S', '_', 'gn');
SELECT substring('prix: 12€ ou ١٢' from '[[:digit:]]+'), 'x' ~ '[[:xdigit:]]', 'ａ' ~ '[[:xdigit:]]';
SELECT 'Ünïcödé' SIMILAR TO '[[:alpha:]]+', 'abc' SIMILAR TO '%[[:upper:]]%';
-- Word constraints know the locale's word characters.
SELECT 'café' ~ 'caf\y', 'café' ~ 'caf\Y', 'été x' ~ '\yx', regexp_replace('été x', '\y', '|', 'g'), regexp_replace('été x-ça', '\Y', '.', 'g');
SELECT 'été' ~ '\mété\M', 'aé' ~ 'a\M', regexp_replace('un été à Montréal', '\m', '<', 'g'), regexp_replace('un été à Montréal', '\M', '>', 'g');
SELECT regexp_replace('un été', '[[:<:]]', '<', 'g'), regexp_replace('un été', '[[:>:]]', '>', 'g'), regexp_matches('Éé éÉ', '\m(é+)\M', 'gi');
SELECT 'foo bar' ~ '\mbar', 'foobar' ~ '\mbar', regexp_count('a b  c', '\y'), 'x' ~ '^\Y';
-- On ASCII text they run as RE2's \b and \B.
SELECT regexp_replace('ete x-ca', '\y', '|', 'g'), regexp_replace('ete x-ca', '\Y', '.', 'g'), 'cafe' ~ 'caf\y', 'caf e' ~ 'caf\y', regexp_count('a b  c', '\y'), regexp_matches('ab cd', '\y(\w)', 'g');
SELECT regexp_replace('ete x' COLLATE "C", '\y', '|', 'g'), regexp_split_to_array('one two', '\y'), regexp_instr('xx yy', '\yy'), 'x' ~ '^\Y';
-- Sorting stays by code point.
CREATE TABLE uc (s text);
INSERT INTO uc VALUES ('é'), ('E'), ('e'), ('É'), ('z'), ('Z'), ('ß'), ('ss'), ('Ω'), ('ω'), ('я'), ('Я'), ('İ'), ('i'), ('ǅ'), ('a');
SELECT string_agg(s, ' ' ORDER BY s) FROM uc;
SELECT s, upper(s), lower(s), initcap(s) FROM uc ORDER BY s;
SELECT string_agg(s, ' ' ORDER BY upper(s), s) FROM uc;
SELECT string_agg(s, ' ' ORDER BY s) FROM uc WHERE s ILIKE 'é' OR s ~* '^ω$';
SELECT lower(s), count(*) FROM uc GROUP BY lower(s) ORDER BY 1;
-- An index on lower(s) finds what lower(s) = ... finds without one.
CREATE INDEX uc_lower ON uc (lower(s));
SELECT s FROM uc WHERE lower(s) = 'é' ORDER BY s;
SELECT s FROM uc WHERE lower(s) = lower('Я') ORDER BY s;
DROP TABLE uc;
-- Under a collation whose LC_CTYPE is C (C, POSIX, ucs_basic) only ASCII
-- letters change case and classes are ASCII's; C.utf8 is the default's.
SELECT upper('é' COLLATE "C"), lower('É' COLLATE "C"), initcap('élan éTÉ' COLLATE "C"), upper('é' COLLATE "POSIX"), upper('é' COLLATE "ucs_basic"), upper('é' COLLATE "C.utf8"), upper('é' COLLATE "default");
SELECT 'É' ILIKE 'é' COLLATE "C", 'é' ~ '[[:alpha:]]' COLLATE "C", 'é' ~* 'É' COLLATE "C", 'é' ~ ('\w' COLLATE "C"), 'aé' ~ ('a\y' COLLATE "C"), 'A' ~* 'a' COLLATE "C";
SELECT regexp_replace('Été été' COLLATE "C", 'é', '_', 'gi'), regexp_match('Été' COLLATE "C", '\w+'), regexp_like('É' COLLATE "C", 'é', 'i'), regexp_count('été' COLLATE "C", '[[:alpha:]]');
SELECT regexp_instr('aé' COLLATE "C", '\W'), regexp_substr('xÉy' COLLATE "C", '[[:upper:]]+'), regexp_split_to_array('aébéc' COLLATE "C", '\W'), substring('éa1' COLLATE "C" FROM '\w+');
SELECT regexp_replace('Été été', 'é', '_', 'gi'), regexp_match('Été', '\w+'), substring('éa1' FROM '\w+');
SELECT 'é' SIMILAR TO '[[:alpha:]]' COLLATE "C", 'é' SIMILAR TO '[[:alpha:]]', 'É' ILIKE ANY (ARRAY['é']) , 'É' ILIKE ANY (ARRAY['é'] COLLATE "C"), 'é' ~ ANY (ARRAY['\w'] COLLATE "C");
CREATE TABLE cc (s text COLLATE "C", t text, u varchar(5) COLLATE "POSIX");
INSERT INTO cc VALUES ('é', 'é', 'éA');
SELECT upper(s), upper(t), lower(u), s ~ '\w', t ~ '\w', s ILIKE 'É', t ILIKE 'É', s NOT ILIKE 'É', u ~* 'Éa', upper(s || t), upper(s COLLATE "default") FROM cc;
CREATE VIEW ccv AS SELECT upper(s) AS us, s ~* 'É' AS m FROM cc;
SELECT * FROM ccv;
SELECT pg_get_viewdef('ccv'::regclass);
DROP VIEW ccv;
DROP TABLE cc;
-- Index keys, generated columns and CHECK constraints follow their
-- columns' collations too.
CREATE TABLE ci (id int PRIMARY KEY, s text COLLATE "C", t text);
INSERT INTO ci VALUES (1, 'É', 'É'), (2, 'é', 'é'), (3, 'E', 'E');
CREATE INDEX ci_ls ON ci (lower(s));
CREATE INDEX ci_lt ON ci (lower(t));
SELECT id FROM ci WHERE lower(s) = 'É' ORDER BY id;
SELECT id FROM ci WHERE lower(s) = 'é' ORDER BY id;
SELECT id FROM ci WHERE lower(t) = 'é' ORDER BY id;
INSERT INTO ci VALUES (4, 'Ÿ', 'Ÿ');
SELECT id FROM ci WHERE lower(s) = 'Ÿ' ORDER BY id;
SELECT id FROM ci WHERE lower(t) = 'ÿ' ORDER BY id;
CREATE UNIQUE INDEX ci_u ON ci (upper(t));
CREATE UNIQUE INDEX ci_us ON ci (upper(s));
DROP TABLE ci;
CREATE TABLE cg (s text COLLATE "C", g text GENERATED ALWAYS AS (upper(s)) STORED, CHECK (s !~* 'É'));
INSERT INTO cg (s) VALUES ('é');
INSERT INTO cg (s) VALUES ('É');
INSERT INTO cg (s) VALUES ('ä');
SELECT s, g FROM cg ORDER BY s;
DROP TABLE cg;
