#!/usr/bin/env bash
# The flights example (examples/flights) end to end on a temporary data
# directory: a Kafka broker (`weir kafka`, its own process so that killing
# weir leaves the broker's transactions alone), a weir server, the airports
# table loaded with \copy, materialized views over a Kafka source of flights
# and an exactly-once UPSERT sink of the departure board; `weir replay`
# produces the 20,000 flights in event-time order with a little jitter while
# weir is SIGKILLed mid-stream and restarted. Then it checks, and exits
# non-zero unless:
#   (a) every view equals its own query run as a batch query over a plain
#       table holding the same flights (loaded with \copy from a CSV made
#       from the JSON file, not through Kafka), and
#   (b) the latest record per key of the sink topic, read with kcat at
#       read_committed, equals the departure board's rows.
# Needs psql, kcat and jq, and installs those missing on a Debian machine
# (scripts/deps.sh). Environment: PORT, KAFKA_PORT (free ports),
# WEIR (a built weir binary; built from this tree if unset), ANSWERS (a
# file that receives the answers printed after the restart; the README
# shows them, and tests/kafka checks that it shows them as they are).
set -euo pipefail
cd "$(dirname "$0")/.."

PORT="${PORT:-4566}"
KAFKA_PORT="${KAFKA_PORT:-9092}"
BROKER="127.0.0.1:$KAFKA_PORT"
EX=examples/flights
TOTAL=20000
work="$(mktemp -d)"
weir_pid=""
kafka_pid=""
replay_pid=""
cleanup() {
  for p in "$replay_pid" "$weir_pid" "$kafka_pid"; do
    if [[ -n "$p" ]] && kill -0 "$p" 2>/dev/null; then
      kill -TERM "$p" 2>/dev/null || true
      wait "$p" 2>/dev/null || true
    fi
  done
  rm -rf "$work"
}
trap cleanup EXIT

source scripts/deps.sh
need psql kcat jq
need_free_ports "$PORT" "$KAFKA_PORT"

psql_() { psql -X -h 127.0.0.1 -p "$PORT" -U root -d dev -v ON_ERROR_STOP=1 -v broker="$BROKER" "$@"; }

start_weir() {
  "$weir" serve --listen "127.0.0.1:$PORT" --data-dir "$work/data" \
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

# wait_for WHAT QUERY WANT: poll QUERY until it prints WANT (at most 60 s).
wait_for() {
  local got=""
  for _ in $(seq 1 600); do
    got="$(psql_ -At -c "$2" 2>/dev/null || true)"
    [[ "$got" == "$3" ]] && return
    sleep 0.1
  done
  echo "FAIL: $1: got '$got', want '$3'" >&2; exit 1
}

weir="${WEIR:-}"
if [[ -z "$weir" ]]; then
  need_go
  echo "== building weir"
  go build -o "$work/weir" ./cmd/weir
  weir="$work/weir"
fi

echo "== starting a Kafka broker on $BROKER (weir kafka) and weir on 127.0.0.1:$PORT"
"$weir" kafka --listen "$BROKER" --data-dir "$work/kafka" >"$work/kafka.log" 2>&1 &
kafka_pid=$!
start_weir

echo "== source, airports (\\copy), views and the departure-board sink"
psql_ -f "$EX/01_source.sql" -f "$EX/02_airports.sql" -f "$EX/03_views.sql" -f "$EX/04_sink.sql"

echo "== replaying $TOTAL flights (weir replay, 2000 records/s, jitter up to 10 minutes of event time)"
"$weir" replay --brokers "$BROKER" --topic flights --file "$EX/flights-20k.json" \
  --rate 2000 --jitter-ms 600000 >"$work/replay.out" &
replay_pid=$!

wait_for "first flights" "SELECT sum(departures) > 0 FROM departure_board" "t"
psql_ -c 'SELECT sum(departures) AS flights_so_far FROM departure_board'
echo "== SIGKILL weir in the middle of the stream"
kill -KILL "$weir_pid"
wait "$weir_pid" 2>/dev/null || true
echo "== restarting weir on the same data directory"
start_weir
wait "$replay_pid"; replay_pid=""
cat "$work/replay.out"

wait_for "all flights counted" "SELECT sum(departures) FROM departure_board" "$TOTAL"
wait_for "all flights in the hourly view" "SELECT sum(departures) FROM delay_by_origin_hour" "$TOTAL"
psql_ -c 'FLUSH' >/dev/null
echo "== the answers after the restart (each view is checked against its batch query below)"
psql_ <<'SQL' | tee "$work/answers.txt"
\echo 'Flights counted once each across the SIGKILL (checked: all 20000):'
SELECT sum(departures) AS flights FROM departure_board;
\echo 'Delay per origin per hour (TUMBLE), the five worst hours:'
SELECT origin, window_start, departures, round(avg_delay, 2) AS avg_delay
  FROM delay_by_origin_hour ORDER BY avg_delay DESC, origin, window_start LIMIT 5;
\echo 'Rolling 3-hour departures by state (HOP joined with the airports), the five busiest:'
SELECT state, window_start, window_end, departures, round(avg_delay, 2) AS avg_delay
  FROM delay_by_state_3h ORDER BY departures DESC, state, window_start LIMIT 5;
\echo 'The ten most delayed routes (top-N, at least 10 departures):'
SELECT origin, destination, departures, round(avg_delay, 2) AS avg_delay
  FROM most_delayed_routes ORDER BY avg_delay DESC, origin, destination;
\echo 'The departure board, the ten busiest airports (the sink below carries every row):'
SELECT origin, departures, late, round(avg_delay, 2) AS avg_delay, last_departure
  FROM departure_board ORDER BY departures DESC, origin LIMIT 10;
\echo 'The last departures of SFO and JFK (group top-N):'
SELECT * FROM last_departures WHERE origin IN ('SFO', 'JFK') ORDER BY origin, date DESC;
SQL

if [[ -n "${ANSWERS:-}" ]]; then cp "$work/answers.txt" "$ANSWERS"; fi

echo "== (a) every view equals its query run as a batch query over a plain table"
# The same flights as CSV, converted as weir replay converts them.
jq -r '.[] | [(.date | gsub("/"; "-") | sub(" "; "T")) + ":00", .delay, .distance, .origin, .destination] | @csv' \
  "$EX/flights-20k.json" >"$work/flights.csv"
psql_ <<SQL
CREATE TABLE flights_batch (date timestamp, delay int, distance int, origin varchar, destination varchar);
\\copy flights_batch FROM '$work/flights.csv' WITH (FORMAT csv)
SQL
wait_for "batch table loaded" "SELECT count(*) FROM flights_batch" "$TOTAL"
# Each view of 03_views.sql: its name and its query with flights_batch for flights.
grep -v '^[[:space:]]*--' "$EX/03_views.sql" | tr '\n' ' ' | tr ';' '\n' |
  sed -n 's/^ *CREATE MATERIALIZED VIEW \([a-z_0-9]*\) AS \(.*\)$/\1\t\2/p' >"$work/views.tsv"
nviews=0
failed=0
while IFS=$'\t' read -r name query; do
  nviews=$((nviews + 1))
  batch="$(sed 's/\bflights\b/flights_batch/g' <<<"$query")"
  psql_ --csv -c "SELECT * FROM $name" | sort >"$work/view.csv"
  psql_ --csv -c "$batch" | sort >"$work/batch.csv"
  rows=$(($(wc -l <"$work/view.csv") - 1))
  if diff -q "$work/view.csv" "$work/batch.csv" >/dev/null; then
    echo "ok   $name: $rows rows equal the batch query"
  else
    echo "FAIL $name differs from the batch query (< view, > batch):"
    diff "$work/view.csv" "$work/batch.csv" >"$work/diff" || true
    head -20 "$work/diff"
    failed=1
  fi
done <"$work/views.tsv"
if [[ "$nviews" -lt 5 ]]; then
  echo "FAIL: found $nviews views in $EX/03_views.sql, want 5" >&2; exit 1
fi

echo "== (b) the sink topic 'departure_board' (kcat -X isolation.level=read_committed) equals the view"
# The latest record per key as CSV in the view's column order (the JSON
# object's fields, in order, with their names and quotes taken off; text
# rather than jq so that numerics keep every digit); a record without a
# value (a tombstone) deletes its key.
sink_rows() {
  kcat -C -b "$BROKER" -t departure_board -e -q -X isolation.level=read_committed -f '%k\t%s\n' |
    awk -F'\t' '{ if ($2 == "") delete last[$1]; else last[$1] = $2 } END { for (k in last) print last[k] }' |
    sed -e 's/"[a-z_]*"://g' -e 's/[{}"]//g' | sort
}
psql_ --csv -t -c 'SELECT * FROM departure_board' | sort >"$work/board.csv"
# The sink commits its transaction after the view's epoch: wait for it.
sink_ok=0
for _ in $(seq 1 100); do
  sink_rows >"$work/sink.csv"
  if diff -q "$work/board.csv" "$work/sink.csv" >/dev/null; then sink_ok=1; break; fi
  sleep 0.3
done
if [[ "$sink_ok" == 1 ]]; then
  echo "ok   departure_board_out: $(wc -l <"$work/sink.csv") keys equal the view's rows, for example:"
  # origin, departures, late, avg_delay, last_departure, as the view's
  # columns; the average printed to two decimals.
  # (awk reads to the end: a "| head" would end sort with SIGPIPE.)
  sort -t, -k2,2nr "$work/sink.csv" |
    awk -F, 'NR <= 3 { printf "       %s: %d departures, %d late, average delay %.2f min, last at %s\n", $1, $2, $3, $4, $5 }'
else
  echo "FAIL the sink topic differs from departure_board (< view, > sink):"
  diff "$work/board.csv" "$work/sink.csv" >"$work/diff" || true
  head -20 "$work/diff"
  failed=1
fi

echo "== stopping"
kill -TERM "$weir_pid"; wait "$weir_pid" || true; weir_pid=""
kill -TERM "$kafka_pid"; wait "$kafka_pid" || true; kafka_pid=""
if [[ "$failed" != 0 ]]; then
  echo "FAIL: flights example checks failed" >&2; exit 1
fi
echo "PASS: $nviews views equal their batch queries; the sink equals the board"
