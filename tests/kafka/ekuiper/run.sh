#!/usr/bin/env bash
# Runs LF Edge eKuiper (kuiperd) over a JSON-lines file of bids with
#
#   SELECT auction, count(*) AS c, sum(price) AS s FROM bids
#   GROUP BY auction, TumblingWindow(ss, 1)
#
# and prints its events per CPU-second: the user + system time of the
# kuiperd process (/proc/PID/stat) from just before the rule is created
# until the window operator has taken in every bid and emitted a window
# after the last one. The bids file is the one the Kafka group-by
# benchmark writes (-groupby.jsonl), so that both run over the same data.
#
# Usage: KUIPERD=path/to/kuiperd ./run.sh bids.jsonl [rounds]
#
# Environment: KUIPERD (the kuiperd binary, required), CPU (the core it is
# pinned to, default 1), GOMAXPROCS (default 1), REST_PORT (default 9181),
# CLI_PORT (default 20598), VERIFY (1: the rule writes its windows to a
# file sink instead of nop, and the counts of all windows are summed and
# checked against the bids; for checking, not timing). Each round starts a fresh kuiperd in a
# temporary directory and stops it by its PID.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
bids=${1:?usage: KUIPERD=path/to/kuiperd $0 bids.jsonl [rounds]}
rounds=${2:-1}
kuiperd=${KUIPERD:?set KUIPERD to the kuiperd binary}
cpu=${CPU:-1}
procs=${GOMAXPROCS:-1}
rest_port=${REST_PORT:-9181}
cli_port=${CLI_PORT:-20598}
api=http://127.0.0.1:$rest_port

bids=$(cd "$(dirname "$bids")" && pwd)/$(basename "$bids")
n=$(wc -l <"$bids")
tick=$(getconf CLK_TCK)

# cpu_ticks PID: user + system time of the process, in clock ticks.
cpu_ticks() {
	# Fields after the command name (which may hold spaces): utime is the
	# 12th, stime the 13th.
	sed 's/^.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'
}

# metric STATUS NAME: the value of the first metric whose name ends in NAME.
metric() {
	printf '%s' "$1" | tr ',{}' '\n\n\n' | grep -E "\"op_[0-9]+_window_0_$2\"" | head -1 | sed 's/.*: *//' | tr -d ' "'
}

for round in $(seq 1 "$rounds"); do
	base=$(mktemp -d)
	mkdir -p "$base/etc/sources" "$base/data" "$base/log" "$base"/plugins/{sources,sinks,functions,portable,wasm}
	cp "$here/kuiper.yaml" "$base/etc/kuiper.yaml"
	cat >"$base/etc/sources/file.yaml" <<-YAML
	bench:
	  fileType: lines
	  path: $(dirname "$bids")
	  interval: 1h
	  sendInterval: 0
	  actionAfterRead: 0
	YAML
	load0=$(cut -d' ' -f1-3 /proc/loadavg)
	KuiperBaseKey=$base KUIPER__BASIC__RESTPORT=$rest_port KUIPER__BASIC__PORT=$cli_port \
		GOMAXPROCS=$procs taskset -c "$cpu" "$kuiperd" >"$base/log/stdout" 2>&1 &
	pid=$!
	trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$base"' EXIT
	for _ in $(seq 1 100); do
		curl -sf "$api/ping" >/dev/null 2>&1 && break
		sleep 0.1
	done
	curl -sf "$api/ping" >/dev/null || { echo "kuiperd did not start:" >&2; cat "$base/log/stdout" >&2; exit 1; }
	stream=$(printf '{"sql":"CREATE STREAM bids (auction bigint, bidder bigint, price bigint, ts bigint) WITH (TYPE=\\"file\\", DATASOURCE=\\"%s\\", FORMAT=\\"json\\", CONF_KEY=\\"bench\\")"}' "$(basename "$bids")")
	curl -sf -X POST "$api/streams" -H 'Content-Type: application/json' -d "$stream" >/dev/null
	c0=$(cpu_ticks "$pid")
	t0=$(date +%s.%N)
	rule=$(cat "$here/rule.json")
	if [ "${VERIFY:-0}" = 1 ]; then
		rule=${rule/'{"nop": {}}'/'{"file": {"path": "'$base/out.jsonl'", "fileType": "lines", "format": "json"}}'}
	fi
	curl -sf -X POST "$api/rules" -H 'Content-Type: application/json' -d "$rule" >/dev/null
	# Done once the window operator has taken in every bid and either
	# emitted a window after that (or the rule has stopped, as it does at
	# the end of the file with the file source's interval at 0).
	out_at_n=""
	start=$SECONDS
	while :; do
		sleep 0.1
		st=$(curl -sf "$api/rules/groupby/status")
		in=$(metric "$st" records_in_total)
		out=$(metric "$st" records_out_total)
		if [ "${in:-0}" -ge "$n" ]; then
			if printf '%s' "$st" | grep -q '"status": *"stopped"'; then
				break
			elif [ -z "$out_at_n" ]; then
				out_at_n=$out
			elif [ "$out" -gt "$out_at_n" ]; then
				break
			fi
		fi
		if [ $((SECONDS - start)) -gt 600 ]; then
			echo "the rule did not finish in 10 minutes: $st" >&2
			exit 1
		fi
	done
	c1=$(cpu_ticks "$pid")
	t1=$(date +%s.%N)
	st=$(curl -sf "$api/rules/groupby/status")
	src_in=$(printf '%s' "$st" | tr ',{}' '\n\n\n' | grep -E '"source_bids_0_records_in_total"' | sed 's/.*: *//')
	exc=$(printf '%s' "$st" | tr ',{}' '\n\n\n' | grep -E '_exceptions_total"' | sed 's/.*: *//' | paste -sd+ | bc)
	awk -v r="$round" -v n="$n" -v src="$src_in" -v win="$(metric "$st" records_in_total)" \
		-v wout="$(metric "$st" records_out_total)" -v exc="$exc" -v c="$(( c1 - c0 ))" -v tick="$tick" \
		-v wall="$(echo "$t1 - $t0" | bc)" -v la="$load0" 'BEGIN {
		cpu = c / tick
		printf "ekuiper round %d: %d bids (source in %s, window in %s, windows out %s, exceptions %s) in %.2f s wall, %.2f s CPU: %.0f events per CPU-second, %.0f events/s wall, load %s\n",
			r, n, src, win, wout, exc, wall, cpu, n / cpu, n / wall, la
	}'
	if [ "${VERIFY:-0}" = 1 ]; then
		# Let the file sink write and close before the server stops.
		sleep 2
		curl -sf -X POST "$api/rules/groupby/stop" >/dev/null
		sleep 1
	fi
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	if [ "${VERIFY:-0}" = 1 ]; then
		counted=$(grep -o '"c":[0-9]*' "$base/out.jsonl" | cut -d: -f2 | paste -sd+ | bc)
		echo "ekuiper round $round: the windows count $counted bids, want $n"
		[ "$counted" = "$n" ] || exit 1
	fi
	trap - EXIT
	rm -rf "$base"
done
