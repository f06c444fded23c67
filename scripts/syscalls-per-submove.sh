#!/usr/bin/env bash
# Syscalls per accepted sub-move at saturation (docs/performance.md, "After the writer work"):
# starts SERVER_BIN on 127.0.0.1:PORT with a fresh data directory, runs the load generator
# (--mode saturate, 1000 games x 2 spectators, 15 s), counts the server's syscalls with perf's
# tracepoints over 6 s of the window and divides by the sub-moves accepted meanwhile (from
# /metrics). Needs perf and a release build of the load generator. Bounded: `timeout` on the
# load generator, the server stopped at the end.
#
#   scripts/syscalls-per-submove.sh SERVER_BIN [PORT]
set -u
if [[ $# -lt 1 ]]; then
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
bin=$(realpath "$1")
port=${2:-18080}
cd "$(dirname "$0")/.."
loadgen=${LOADGEN:-target/release/loadgen}
command -v perf >/dev/null || { echo "perf is required" >&2; exit 2; }
[[ -x $loadgen ]] || { echo "no $loadgen: cargo build --release --bin loadgen" >&2; exit 2; }
dir=$(mktemp -d /tmp/marseillais-syscalls-XXXX)
trap 'rm -rf "$dir"' EXIT
# One machine stands in for every client: no limit per client (as loadgen's own servers).
MARSEILLAIS_CREATE_RATE_PER_SEC=0 MARSEILLAIS_GAME_SOCKETS_PER_CLIENT=0 \
  MARSEILLAIS_LOBBY_SOCKETS_PER_CLIENT=0 MARSEILLAIS_OPEN_GAMES_PER_CLIENT=0 \
  MARSEILLAIS_COMPUTER_GAMES_PER_CLIENT=0 "$bin" serve --listen "127.0.0.1:$port" --data-dir "$dir" \
  >"$dir/server.log" 2>&1 &
server=$!
sleep 1
timeout 120 "$loadgen" --addr "127.0.0.1:$port" --server-pid "$server" --mode saturate \
  --games 1000 --spectators 2 --duration 15 >"$dir/loadgen.txt" 2>&1 &
load=$!
sleep 7
accepted() { curl -s "127.0.0.1:$port/metrics" | awk '/^marseillais_submoves_accepted_total/ {print $2}'; }
before=$(accepted)
events=""
for call in pread64 pwrite64 sendto recvfrom epoll_wait futex fsync; do
  events="$events,syscalls:sys_enter_$call"
done
perf stat -x, -e "${events#,}" -p "$server" -- sleep 6 2>"$dir/perf.txt"
after=$(accepted)
wait "$load"
kill "$server"
wait "$server" 2>/dev/null
n=$((${after%.*} - ${before%.*}))
echo "$bin: $n sub-moves accepted in 6 s"
awk -F, -v n="$n" '{split($3, a, ":"); sub("sys_enter_", "", a[2]); printf "%-12s %6.2f per sub-move\n", a[2], $1 / n}' "$dir/perf.txt"
grep -E "server CPU in window|accepted sub-moves/s" "$dir/loadgen.txt"
