#!/usr/bin/env bash
# Compares two server builds with the load generator, in the same minutes:
# for each round and each measurement, one run against BEFORE_BIN and then
# one against AFTER_BIN (before, after, before, after, ...), so that the
# machine's load and disk weather hit both alike. Giving the same binary
# twice measures the noise.
#
#   scripts/compare-servers.sh BEFORE_BIN AFTER_BIN [ROUNDS]
#
# Measurements (see docs/performance.md, "Server core reshape (issue 9)"):
#   saturate  loadgen --mode saturate, 1000 games x 2 spectators, 15 s window:
#             accepted sub-moves/s, server CPU per accepted sub-move, echo floor
#             (round trip, and the echo server's CPU per message)
#   steady    loadgen --mode steady, 1000 games x 2 spectators, 1 sub-move/s, 20 s:
#             move -> opponent p50/p99/p999, echo and fsync floors
#   memory    loadgen --mode memory, 100 games x 2 spectators, 10,100,1000
#             sub-moves per game: server RSS per live game and per sub-move
#
# Every run is bounded (`timeout`, which also stops the server it started).
# Results: one .txt (the loadgen's report) and one .json per run, and
# summary.md (the table printed at the end), in RESULTS_DIR (default
# target/compare-servers/<UTC time>). Needs jq and a release build of the load
# generator (`cargo build --release --bin loadgen`; LOADGEN= to point elsewhere).
# Override a measurement's flags with SATURATE_ARGS, STEADY_ARGS, MEMORY_ARGS;
# choose measurements with MODES (default "saturate steady memory"). ORDER=abba
# runs "after" first in even rounds (the second run of a pair tended to use a
# few µs less CPU per sub-move, see docs/performance.md).
set -euo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
  sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
before=$(realpath "$1")
after=$(realpath "$2")
rounds=${3:-3}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a positive integer" >&2; exit 2; }
for bin in "$before" "$after"; do
  [[ -x $bin ]] || { echo "not an executable: $bin" >&2; exit 2; }
done
command -v jq >/dev/null || { echo "jq is required" >&2; exit 2; }
cd "$(dirname "$0")/.."
loadgen=${LOADGEN:-target/release/loadgen}
[[ -x $loadgen ]] || { echo "no $loadgen: cargo build --release --bin loadgen" >&2; exit 2; }

out=${RESULTS_DIR:-target/compare-servers/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
modes=${MODES:-saturate steady memory}
read -r -a saturate_args <<<"${SATURATE_ARGS:---mode saturate --games 1000 --spectators 2 --duration 15 --echo-connections 20}"
read -r -a steady_args <<<"${STEADY_ARGS:---mode steady --games 1000 --spectators 2 --rate 1 --duration 20}"
read -r -a memory_args <<<"${MEMORY_ARGS:---mode memory --games 100 --spectators 2 --submoves-per-game 10,100,1000}"
# Each run's bound: setup + window + drain, or three memory phases, with slack.
limit=240

{
  echo "date: $(date -u +%FT%TZ)"
  echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -r)"
  echo "before: $before ($(sha256sum "$before" | cut -c1-12))"
  echo "after:  $after ($(sha256sum "$after" | cut -c1-12))"
  echo "loadgen: $(realpath "$loadgen") ($(sha256sum "$loadgen" | cut -c1-12))"
  echo "rounds: $rounds; modes: $modes"
} | tee "$out/setup.txt"

# run ROUND MODE SIDE BIN: one bounded loadgen run, its report saved.
run() {
  local round=$1 mode=$2 side=$3 bin=$4 args name load at
  case $mode in
    saturate) args=("${saturate_args[@]}") ;;
    steady) args=("${steady_args[@]}") ;;
    memory) args=("${memory_args[@]}") ;;
    *) echo "unknown mode $mode" >&2; return 2 ;;
  esac
  name="$out/r$round-$mode-$side"
  load=$(cut -d' ' -f1 /proc/loadavg)
  at=$(date -u +%T)
  echo "$at round $round $mode $side (load $load)" >&2
  if timeout --kill-after=15 "$limit" "$loadgen" --server-bin "$bin" --json "${args[@]}" \
    >"$name.txt" 2>"$name.err"; then
    tail -n 1 "$name.txt" |
      jq -c --arg round "$round" --arg mode "$mode" --arg side "$side" \
        --arg at "$at" --arg load "$load" \
        '. + {round: ($round | tonumber), run_mode: $mode, side: $side, at: $at, load_at_start: ($load | tonumber)}' \
        >"$name.json"
  else
    echo "  run failed or timed out (see $name.err)" >&2
  fi
}

for round in $(seq 1 "$rounds"); do
  for mode in $modes; do
    if [[ ${ORDER:-} == abba && $((round % 2)) == 0 ]]; then
      run "$round" "$mode" after "$after"
      run "$round" "$mode" before "$before"
    else
      run "$round" "$mode" before "$before"
      run "$round" "$mode" after "$after"
    fi
  done
done

# The table: one row per run, then the medians per side.
shopt -s nullglob
jsons=("$out"/r*.json)
if [[ ${#jsons[@]} -eq 0 ]]; then
  echo "no successful run" >&2
  exit 1
fi
jq -s -r -f /dev/stdin "${jsons[@]}" >"$out/summary.md" <<'JQ'
def r1: if . == null then "–" else (. * 10 | round / 10 | tostring) end;
def r3: if . == null then "–" else (. * 1000 | round / 1000 | tostring) end;
def r0: if . == null then "–" else (round | tostring) end;
def us: if .server_cpu_secs == null or .accepted == 0 then null else .server_cpu_secs * 1e6 / .accepted end;
def eus: if .echo_cpu_secs == null or (.echo_round_trip.count // 0) == 0 then null else .echo_cpu_secs * 1e6 / .echo_round_trip.count end;
def lus: if .loadgen_cpu_secs == null or .accepted == 0 then null else .loadgen_cpu_secs * 1e6 / .accepted end;
def kib($k): (.checkpoints[] | select(.submoves_per_game == $k) | .rss_per_game_kib) // null;
def marginal: if kib(100) == null or kib(1000) == null then null else (kib(1000) - kib(100)) * 1024 / 900 end;
def bytes($k): (.checkpoints[] | select(.submoves_per_game == $k) | .rss_per_submove_bytes) // null;
def median: map(select(. != null)) | sort | if length == 0 then null
  elif length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
def spread: map(select(. != null)) | if length < 2 then null else (max - min) end;
sort_by(.round, .run_mode, .at) as $runs
| ($runs | map(select(.run_mode == "saturate"))) as $sat
| ($runs | map(select(.run_mode == "steady"))) as $std
| ($runs | map(select(.run_mode == "memory"))) as $mem
| [
  "### Saturation (\($sat[0].games // "?") games x \($sat[0].spectators_per_game // "?") spectators, \($sat[0].duration_secs // "?") s window)", "",
  "| round | server | at (load) | accepted sub-moves/s | server CPU µs / sub-move | loadgen CPU µs / sub-move | move -> opponent p50 / p99 ms | echo floor p50 / p99 ms | echo server CPU µs / message | errors |",
  "|---|---|---|---|---|---|---|---|---|---|",
  ($sat[] | "| \(.round) | \(.side) | \(.at) (\(.load_at_start)) | \(.accepted_per_sec | r0) | \(us | r0) | \(lus | r0) | \(.move_to_opponent.p50_ms | r1) / \(.move_to_opponent.p99_ms | r1) | \(.echo_round_trip.p50_ms // null | r3) / \(.echo_round_trip.p99_ms // null | r1) | \(eus | r1) | \(.errors | length) |"),
  "",
  "### Steady load (\($std[0].games // "?") games x \($std[0].spectators_per_game // "?") spectators, \($std[0].rate_per_game // "?") sub-move/s per game, \($std[0].duration_secs // "?") s window)", "",
  "| round | server | at (load) | accepted sub-moves/s | move -> opponent p50 / p99 / p999 ms | echo floor p99 ms | fsync floor p99 ms | server CPU µs / sub-move |",
  "|---|---|---|---|---|---|---|---|",
  ($std[] | "| \(.round) | \(.side) | \(.at) (\(.load_at_start)) | \(.accepted_per_sec | r1) | \(.move_to_opponent.p50_ms | r1) / \(.move_to_opponent.p99_ms | r1) / \(.move_to_opponent.p999_ms | r1) | \(.echo_round_trip.p99_ms // null | r1) | \(.fsync.p99_ms // null | r1) | \(us | r0) |"),
  "",
  "### Memory of a live game (\($mem[0].games // "?") games x \($mem[0].spectators_per_game // "?") spectators; RSS growth over the setup, per live game)", "",
  "| round | server | at (load) | RSS after setup MiB | KiB / game at 10 | at 100 | at 1000 | B / sub-move at 1000 | B / sub-move 100 -> 1000 | games replaced |",
  "|---|---|---|---|---|---|---|---|---|---|",
  ($mem[] | "| \(.round) | \(.side) | \(.at) (\(.load_at_start)) | \(.server_after_setup.rss_kib / 1024 | r1) | \(kib(10) | r1) | \(kib(100) | r1) | \(kib(1000) | r1) | \(bytes(1000) | r0) | \(marginal | r0) | \(.games_replaced) |"),
  "",
  "### Medians per server (spread = max - min over the rounds)", "",
  "| server | sat. sub-moves/s | sat. server µs / sub-move | steady p99 ms | KiB / game at 10 / 100 / 1000 | B / sub-move 100 -> 1000 |",
  "|---|---|---|---|---|---|",
  (["before", "after"][] as $side
   | ($sat | map(select(.side == $side))) as $s
   | ($std | map(select(.side == $side))) as $t
   | ($mem | map(select(.side == $side))) as $m
   | "| \($side) | \($s | map(.accepted_per_sec) | median | r0) (spread \($s | map(.accepted_per_sec) | spread | r0)) | \($s | map(us) | median | r0) (spread \($s | map(us) | spread | r0)) | \($t | map(.move_to_opponent.p99_ms) | median | r1) (spread \($t | map(.move_to_opponent.p99_ms) | spread | r1)) | \($m | map(kib(10)) | median | r1) / \($m | map(kib(100)) | median | r1) / \($m | map(kib(1000)) | median | r1) (spread \($m | map(kib(1000)) | spread | r1)) | \($m | map(marginal) | median | r0) (spread \($m | map(marginal) | spread | r0)) |")
] | .[]
JQ
cat "$out/summary.md"
echo "results in $out" >&2
