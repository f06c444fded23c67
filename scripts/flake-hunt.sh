#!/usr/bin/env bash
# Runs the whole test suite N times in a row on this machine and reports every failure.
#
#   scripts/flake-hunt.sh 10                  # the README's test command, ten times
#   scripts/flake-hunt.sh 5 -E 'binary(cluster)'   # or a part of it (arguments go to nextest)
#
# Builds once, then runs the README's test command (`cargo nextest run --release`, which runs
# every test however many fail) N times, each beside its own
# private PostgreSQL (scripts/test-services.sh). A failure is never retried: it is what this script is for. Each run's whole output is
# kept only when it failed, under target/flake-hunt/<time of the hunt>/run-K.log; the end prints, per run, its
# time and the tests that failed, and the script exits 1 if any did. Nothing else is left
# behind: the tests clean their own directories and servers, and test-services.sh its
# PostgreSQL (the script checks for leftover processes and /tmp entries after each run).
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${1:-10}"
case "$runs" in
  '' | *[!0-9]*) echo "usage: $0 N [NEXTEST ARGS...]" >&2; exit 2 ;;
esac
shift || true
export CI="${CI:-1}"
export CARGO_TERM_COLOR=never

# A directory per hunt: an earlier hunt's logs are never overwritten.
logs=target/flake-hunt/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$logs"

cargo nextest run --release --no-run

# What a run may leave behind that it should not: server, database and browser processes, and
# entries under /tmp. Compared before and after each run.
leftovers() {
  {
    pgrep -a -f 'target/release/marseillais|redis-server .*marseillais|chromedriver|postgres -D /tmp/marseillais' \
      | sed 's/^[0-9]* //' || true
    ls -1A "${TMPDIR:-/tmp}" 2>/dev/null | sed 's/[.][^.]*$//;s/[0-9]\+$//' | sort | uniq -c || true
  } | sort
}

summary=""
failed_runs=0
for run in $(seq 1 "$runs"); do
  before=$(leftovers)
  log="$logs/run-$run.log"
  started=$(date +%s)
  if scripts/test-services.sh cargo nextest run --release "$@" >"$log" 2>&1; then
    result="ok"
    rm -f "$log"
  else
    result="FAILED ($log)"
    failed_runs=$((failed_runs + 1))
  fi
  seconds=$(($(date +%s) - started))
  summary+="run $run: ${seconds} s, $result"$'\n'
  if [ -f "$log" ]; then
    # nextest names each failed test on a line of its own; seeds are printed in its output.
    # (A failure of another form, say PostgreSQL that did not start, names no test: the log
    # says what happened.)
    failed=$(grep -E '^ +(FAIL|TIMEOUT|SIGSEGV|SIGABRT|SIGKILL|LEAK) \[' "$log" | sed 's/^ */    /' | sort -u || true)
    summary+="${failed:-    (no test named: see the log)}"$'\n'
  fi
  after=$(leftovers)
  if [ "$before" != "$after" ]; then
    left=$(diff <(echo "$before") <(echo "$after") | grep '^>' | sed 's/^/    /' || true)
    summary+="    left behind:"$'\n'"$left"$'\n'
  fi
  echo "flake-hunt: run $run of $runs: ${seconds} s, $result" >&2
done

echo "== flake-hunt: $runs runs, $failed_runs failed"
printf '%s' "$summary"
[ "$failed_runs" -eq 0 ]
