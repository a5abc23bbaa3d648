#!/usr/bin/env bash
# Build weir, start it on a temporary data directory, run a short psql
# session against it, and stop it again.
set -euo pipefail
cd "$(dirname "$0")/.."

PORT="${PORT:-4566}"
work="$(mktemp -d)"
pid=""
cleanup() {
  if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "building weir"
go build -o "$work/weir" ./cmd/weir

echo "starting weir on 127.0.0.1:$PORT (data in $work/data)"
"$work/weir" serve --listen "127.0.0.1:$PORT" --data-dir "$work/data" \
  --metrics-listen 127.0.0.1:0 2>"$work/weir.log" &
pid=$!

for _ in $(seq 1 100); do
  if psql -X -h 127.0.0.1 -p "$PORT" -U root -d dev -c 'SELECT 1' >/dev/null 2>&1; then
    break
  fi
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "weir exited; log:" >&2
    cat "$work/weir.log" >&2
    exit 1
  fi
  sleep 0.1
done

psql -X -e -h 127.0.0.1 -p "$PORT" -U root -d dev <<'SQL'
CREATE TABLE fruit (id int PRIMARY KEY, name text NOT NULL, price numeric(6,2));
INSERT INTO fruit VALUES (1, 'apple', 0.50), (2, 'pear', 0.75), (3, 'fig', 2.10);
SELECT name, price FROM fruit WHERE price < 1 ORDER BY name;
CREATE MATERIALIZED VIEW fruit_stats AS
  SELECT price < 1 AS cheap, count(*) AS n, sum(price) AS total, max(price) AS top FROM fruit GROUP BY price < 1;
SELECT * FROM fruit_stats ORDER BY cheap;
INSERT INTO fruit VALUES (4, 'kiwi', 0.30);
UPDATE fruit SET price = 3.00 WHERE name = 'pear';
SELECT * FROM fruit_stats ORDER BY cheap;
SQL

echo "stopping weir"
kill -TERM "$pid"
wait "$pid" || true
pid=""
