#!/usr/bin/env bash
# The search's tree and speed, one build at a time, through `marseillais uci`:
#
#   scripts/engine-tree.sh BINARY [NODES] [POSITIONS]
#
# searches the four speed positions of docs/engine.md ("Speed": the initial position, the
# Italian, Kiwipete, a rook ending) and then the first POSITIONS (default 40) of the opening
# book, each from an empty table (`ucinewgame`), to NODES nodes (default 1,500,000 for the four,
# a tenth of it for the book's). It prints each search's last `info` line and `bestmove`, then
# the user CPU the process took. Two builds that print the same lines search the same tree
# node for node (`diff` their outputs); the CPU line is then a like-for-like speed comparison.
set -euo pipefail
bin=${1:?usage: scripts/engine-tree.sh BINARY [NODES] [POSITIONS]}
nodes=${2:-1500000}
book_positions=${3:-40}
cd "$(dirname "$0")/.."

speed_positions=(
  "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
  "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
  "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 5"
  "8/5pk1/6p1/8/3R4/6P1/5PK1/3r4 w - - 0 40"
)

coproc ENGINE { exec "$bin" uci; }
engine_pid=$ENGINE_PID

# search FEN NODES: one search from an empty table; prints its last info line (without time
# and nps, which vary run to run) and its bestmove. Bounded: a line that does not come within
# 120 s (a search of these sizes takes a few seconds) ends the script.
search() {
  printf 'ucinewgame\nposition fen %s\ngo nodes %s\n' "$1" "$2" >&"${ENGINE[1]}"
  local line last=""
  while IFS= read -r -t 120 line <&"${ENGINE[0]}"; do
    case $line in
      "info depth"*) last=$line ;;
      bestmove*)
        sed -E 's/ time [0-9]+| nps [0-9]+//g' <<<"$last"
        echo "$line"
        return
        ;;
    esac
  done
  echo "the engine ended, or was silent for 120 s, before its bestmove" >&2
  exit 1
}

for fen in "${speed_positions[@]}"; do
  search "$fen" "$nodes"
done
while IFS= read -r fen; do
  search "$fen" "$((nodes / 10))"
done < <(grep -v '^#' assets/openings.fen | sed 's/ *;.*//' | head -n "$book_positions")

# utime of /proc/PID/stat (field 14, in clock ticks), read before the engine quits.
ticks=$(awk '{print $14}' "/proc/$engine_pid/stat")
echo quit >&"${ENGINE[1]}"
wait "$engine_pid" || true
echo "user CPU $(awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", t / hz }') s"
