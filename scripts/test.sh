#!/usr/bin/env bash
# The project's test command: every package's tests, then each fuzz target
# for a short bounded run. Fuzz targets are found automatically (any
# `func FuzzX(f *testing.F)` in a _test.go file).
#
# The end-to-end tests need PostgreSQL 15, MariaDB, psql, kcat and jq: those
# missing are installed on a Debian machine (scripts/deps.sh).
#
# Environment:
#   FUZZTIME     how long each fuzz target runs, as go test's -fuzztime
#                (default 40000x; 0 skips fuzzing). A count, not a duration:
#                Go 1.26's fuzz coordinator can fail a duration run with a
#                bare "context deadline exceeded" when the deadline races a
#                worker on a loaded machine (golang/go#75804), which a count
#                never does.
#   TEST_TIMEOUT go test -timeout (default 15m)
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZTIME="${FUZZTIME:-40000x}"
TEST_TIMEOUT="${TEST_TIMEOUT:-15m}"

source scripts/deps.sh
need_go
need postgres mariadb psql kcat jq

echo "== go vet ./..."
go vet ./...

echo "== go test ./..."
go test -timeout "$TEST_TIMEOUT" ./...

if [[ "$FUZZTIME" == "0" ]]; then
  exit 0
fi

echo "== fuzz targets (${FUZZTIME} each)"
# grep prints file:FuzzName for each target; the package is the file's directory.
grep -rEo --include='*_test.go' '^func (Fuzz[A-Za-z0-9_]*)\(\w+ \*testing\.F\)' . \
  | sed -E 's/^(.*)\/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\(.*/\1 \2/' \
  | sort -u \
  | while read -r dir name; do
      echo "-- $name in $dir"
      go test -run='^$' -fuzz="^${name}\$" -fuzztime="$FUZZTIME" "$dir"
    done
