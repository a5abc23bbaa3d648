-- pg_get_expr without the pretty flag puts every operator in parentheses
-- of its own, as PostgreSQL's plain deparsed form does.
CREATE TABLE e (a int CHECK (a > 0), b int DEFAULT 5, c text DEFAULT 'x', d int DEFAULT 1 + 2, f int CHECK (f > 0 AND f < 10 OR f IS NULL), g int GENERATED ALWAYS AS (a * 2) STORED, h numeric DEFAULT -1.5, j text CHECK (j <> 'q' AND length(j) < 5));
SELECT conname, pg_get_expr(conbin, conrelid), pg_get_expr(conbin, conrelid, true), pg_get_expr(conbin, conrelid, false) FROM pg_constraint WHERE conrelid = 'e'::regclass ORDER BY 1;
SELECT adnum, pg_get_expr(adbin, adrelid), pg_get_expr(adbin, adrelid, true) FROM pg_attrdef WHERE adrelid = 'e'::regclass ORDER BY 1;
