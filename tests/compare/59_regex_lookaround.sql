-- Lookahead and lookbehind constraints in regular expressions, which
-- the backtracking engine runs, in every regular-expression function.
SELECT 'abc' ~ 'a(?=b)', 'abc' ~ 'a(?!b)', 'abc' ~ '(?<=a)b', 'abc' ~ '(?<!a)b';
SELECT regexp_replace('foobar', 'o(?=b)', 'X', 'g'), regexp_replace('foo bar baz', '(?<=ba)[rz]', '_', 'g');
SELECT regexp_matches('price: 100 USD, 200 EUR', '\d+(?= USD)', 'g');
SELECT substring('abc123def' from '[a-z]+(?=\d)');
SELECT 'a(?=b)' ~ '\(\?=';
SELECT regexp_split_to_array('a1b2c3', '(?<=\d)');
