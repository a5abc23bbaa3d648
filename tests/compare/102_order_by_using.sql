-- ORDER BY x USING op: < and > are ASC and DESC; any other operator is
-- refused by the type of x, once x binds: 42883 for an operator the type
-- has not got (or reaches only by a conversion), 42809 for one that is
-- no ordering operator.
CREATE TABLE us (a int, t text);
INSERT INTO us VALUES (1, 'x'), (2, 'y');
SELECT a FROM us ORDER BY a USING >;
SELECT a FROM us ORDER BY a USING <=>;
SELECT a FROM us ORDER BY t USING <=>;
SELECT a FROM us ORDER BY a USING ~~;
SELECT array_agg(a ORDER BY a USING >) FROM us;
SELECT a FROM us ORDER BY nosuch USING <=>;
SELECT a FROM us ORDER BY a USING =;
SELECT a FROM us ORDER BY a USING <=;
SELECT a FROM us ORDER BY t USING ~~;
SELECT a FROM us ORDER BY a, t USING <>;
SELECT a FROM us ORDER BY a USING #;
SELECT a FROM us ORDER BY a + 1 USING =;
SELECT a, row_number() OVER (ORDER BY a USING =) FROM us;
SELECT a FROM us ORDER BY a USING ^;
SELECT a FROM us ORDER BY a::float8 USING ^;
SELECT a FROM us ORDER BY a USING ||;
SELECT a FROM us ORDER BY t USING ||;
SELECT a FROM us ORDER BY a::int2 USING =;
SELECT a FROM us ORDER BY a::numeric USING +;
SELECT a FROM us ORDER BY 1 USING =;
