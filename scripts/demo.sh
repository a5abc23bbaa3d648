#!/usr/bin/env bash
# Build weir and show its main job on a temporary data directory: a Kafka
# broker (`weir kafka`), a weir server, JSON orders produced with kcat, a
# source, a materialized view kept up to date, an exactly-once Kafka sink
# read back with kcat at read_committed, then a SIGKILL of the server in
# the middle of a stream and the same answers after the restart.
# Needs Go, psql and kcat: on Debian it installs those missing
# (scripts/deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

PORT="${PORT:-4566}"
KAFKA_PORT="${KAFKA_PORT:-9092}"
BROKER="127.0.0.1:$KAFKA_PORT"
work="$(mktemp -d)"
weir_pid=""
kafka_pid=""
cleanup() {
  for p in "$weir_pid" "$kafka_pid"; do
    if [[ -n "$p" ]] && kill -0 "$p" 2>/dev/null; then
      kill -TERM "$p" 2>/dev/null || true
      wait "$p" 2>/dev/null || true
    fi
  done
  rm -rf "$work"
}
trap cleanup EXIT

source scripts/deps.sh
need_go
need psql kcat
need_free_ports "$PORT" "$KAFKA_PORT"

psql_() { psql -X -h 127.0.0.1 -p "$PORT" -U root -d dev -v ON_ERROR_STOP=1 "$@"; }

start_weir() {
  "$work/weir" serve --listen "127.0.0.1:$PORT" --data-dir "$work/data" \
    --metrics-listen 127.0.0.1:0 2>>"$work/weir.log" &
  weir_pid=$!
  for _ in $(seq 1 300); do
    if psql_ -c 'SELECT 1' >/dev/null 2>&1; then return; fi
    if ! kill -0 "$weir_pid" 2>/dev/null; then
      echo "weir exited; log:" >&2; cat "$work/weir.log" >&2; exit 1
    fi
    sleep 0.1
  done
  echo "weir did not start" >&2; exit 1
}

# orders FROM TO: JSON orders with ids FROM..TO, five customers.
orders() {
  seq "$1" "$2" | awk '{ printf "{\"id\": %d, \"customer\": \"c%d\", \"amount\": %d.%02d}\n", $1, $1 % 5, $1 % 97, $1 % 100 }'
}

echo "== building weir"
go build -o "$work/weir" ./cmd/weir

echo "== starting a Kafka broker on $BROKER (weir kafka) and weir on 127.0.0.1:$PORT"
"$work/weir" kafka --listen "$BROKER" --data-dir "$work/kafka" >"$work/kafka.log" 2>&1 &
kafka_pid=$!
start_weir

echo "== producing 1000 orders to topic 'orders' with kcat"
orders 1 1000 | kcat -P -b "$BROKER" -t orders

psql_ -e <<SQL
CREATE SOURCE orders (id bigint, customer text, amount numeric)
  WITH (connector = 'kafka', topic = 'orders', properties.bootstrap.server = '$BROKER')
  FORMAT PLAIN ENCODE JSON;
CREATE MATERIALIZED VIEW revenue AS
  SELECT customer, count(*) AS orders, sum(amount) AS total, max(amount) AS biggest
  FROM orders GROUP BY customer;
CREATE SINK revenue_out FROM revenue
  WITH (connector = 'kafka', topic = 'revenue', properties.bootstrap.server = '$BROKER', primary_key = 'customer')
  FORMAT UPSERT ENCODE JSON;
FLUSH;
SELECT * FROM revenue ORDER BY customer;
SHOW SINKS;
SQL

echo "== producing 20000 more orders; SIGKILL weir in the middle of the stream"
orders 1001 21000 | kcat -P -b "$BROKER" -t orders &
producer=$!
sleep 0.5
kill -KILL "$weir_pid"
wait "$weir_pid" 2>/dev/null || true
wait "$producer"
echo "== restarting weir on the same data directory"
start_weir

# Wait until the view has seen all 21000 orders.
for _ in $(seq 1 300); do
  n="$(psql_ -At -c 'SELECT sum(orders) FROM revenue')"
  [[ "$n" == "21000" ]] && break
  sleep 0.1
done
psql_ -e <<'SQL'
FLUSH;
SELECT * FROM revenue ORDER BY customer;
SELECT sum(orders) AS orders_seen, sum(total) AS revenue FROM revenue;
SQL
echo "== expected: orders_seen 21000, revenue $(orders 1 21000 | awk -F'"amount": ' '{ split($2, a, "}"); s += a[1] } END { printf "%.2f", s }')"

echo "== the sink topic 'revenue' read with kcat -X isolation.level=read_committed (latest record per key)"
kcat -C -b "$BROKER" -t revenue -e -q -X isolation.level=read_committed -f '%k\t%s\n' |
  awk -F'\t' '{ last[$1] = $2 } END { for (k in last) print k "\t" last[k] }' | sort

echo "== stopping"
kill -TERM "$weir_pid"; wait "$weir_pid" || true; weir_pid=""
kill -TERM "$kafka_pid"; wait "$kafka_pid" || true; kafka_pid=""
