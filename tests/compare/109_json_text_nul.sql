-- -> ->> #> #>> and json_extract_path_text of json de-escape every
-- string of the document as they parse it in PostgreSQL 15: a \u0000
-- anywhere in it is 22P05, whatever part they select.
SELECT '["\u0000"]'::json->>0;
SELECT '{"a": "\u0000"}'::json->>'a';
SELECT '{"a": "x\u0000y"}'::json->>'a';
SELECT '{"a": ["\u0000"]}'::json#>>'{a,0}';
SELECT json_extract_path_text('{"a": "\u0000"}', 'a');
SELECT '["\u0000"]'::json->0;
SELECT '{"a": "\u0000", "b": "ok"}'::json->>'b';
SELECT '["\u0041"]'::json->>0;
SELECT '"\u0000"'::json->>0;
