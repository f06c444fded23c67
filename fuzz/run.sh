#!/usr/bin/env bash
# Builds every fuzz target once, runs each for SECONDS (default 30) seconds,
# and prints how many inputs each one executed. Exits non-zero if a target
# crashed; the input that did it is under fuzz/artifacts/<target>/.
#
# Usage: fuzz/run.sh [SECONDS]
# Needs cargo-fuzz (`cargo install cargo-fuzz --locked`). libFuzzer needs
# nightly compiler flags; RUSTC_BOOTSTRAP=1 lets the stable toolchain take them.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-30}"
case "$seconds" in
  '' | *[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;;
esac
export RUSTC_BOOTSTRAP=1
export CARGO_TERM_COLOR=never

targets=$(cargo fuzz list)
cargo fuzz build

summary=""
status=0
for target in $targets; do
  mkdir -p "corpus/$target"
  log=$(mktemp)
  # corpus/<target> collects new inputs (not committed); seeds/<target> is read only.
  if cargo fuzz run "$target" "corpus/$target" "seeds/$target" -- \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 >"$log" 2>&1; then
    result="ok"
  else
    result="FAILED"
    status=1
    tail -n 40 "$log" >&2
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  summary+=$(printf '%-15s %-7s %12s executions in %ss\n' "$target" "$result" "${runs:-?}" "$seconds")$'\n'
  rm -f "$log"
done
printf '%s' "$summary"
exit "$status"
