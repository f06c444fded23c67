#!/usr/bin/env bash
# How the server carries many connections: for each N (default 1000 10000 100000), one server
# holds N WebSocket connections (N/4 games, each with its 2 players and 2 spectators) while
# every game moves at 0.2 sub-moves/s, and the script prints one table row per N: move ->
# opponent p50 / p99 / p999, the server's RSS and its KiB per connection, its CPU per
# sub-move, and the connections refused, setups failed and errors (the goal: none).
#
#   scripts/connections.sh                 # 1,000, 10,000 and 100,000 connections
#   scripts/connections.sh 2000 20000      # other counts
#   DURATION=30 scripts/connections.sh     # a shorter window (default 60 s)
#
# Every connection is a file descriptor in the server and another in the load generator, so
# both need an open-files limit above N. The script raises the hard limit when it may (root
# with CAP_SYS_RESOURCE: `ulimit -Hn`), then the soft one to it; both processes raise their
# soft limit to the hard one themselves too. A count the hard limit cannot hold is skipped
# with the reason. Elsewhere: `LimitNOFILE=` (systemd), `nofile` in
# /etc/security/limits.conf, and `sysctl fs.nr_open` above them.
#
# Above ~28,000 connections one source address runs out of ephemeral ports towards the
# server's port (net.ipv4.ip_local_port_range), so the load generator spreads its connections
# over 127.0.0.1 .. 127.0.0.k (`--source-addrs`, one per 20,000 connections and one more).
set -euo pipefail
cd "$(dirname "$0")/.."

counts=("$@")
[[ ${#counts[@]} -gt 0 ]] || counts=(1000 10000 100000)
duration=${DURATION:-60}
out=${RESULTS_DIR:-$(mktemp -d /tmp/marseillais-connections.XXXXXX)}
mkdir -p "$out"

cargo build --release --bins
loadgen=target/release/loadgen

largest=0
for n in "${counts[@]}"; do ((n > largest)) && largest=$n; done
# The connections, the echo floor's, the server's own descriptors (store, listener), slack.
wanted=$((largest + 1000))
if (($(ulimit -Hn) < wanted)); then
  ulimit -Hn "$wanted" 2>/dev/null || true
fi
ulimit -n "$(ulimit -Hn)"
hard=$(ulimit -Hn)
echo "open-files limit: $hard (wanted $wanted); results in $out" >&2

rows=()
for n in "${counts[@]}"; do
  if ((n + 1000 > hard)); then
    rows+=("| $n | skipped: the open-files hard limit is $hard; this many connections need $((n + 1000)) (raise it as root: \`ulimit -Hn $((n + 1000))\`) | | | | | |")
    continue
  fi
  games=$((n / 4))
  sources=$((n / 20000 + 1))
  echo "N=$n: $games games x (2 players + 2 spectators), $sources source addresses, ${duration} s" >&2
  if ! "$loadgen" --mode steady --games "$games" --spectators 2 --rate 0.2 \
    --duration "$duration" --source-addrs "$sources" --setup-concurrency 256 \
    --setup-timeout 900 --json >"$out/c$n.json" 2>"$out/c$n.err"; then
    rows+=("| $n | the load generator failed: see $out/c$n.err | | | | | |")
    continue
  fi
  # The report's last line is its JSON.
  rows+=("$(tail -n 1 "$out/c$n.json" | jq -r --argjson n "$n" '
    def r1: if . == null then "–" else (. * 10 | round / 10 | tostring) end;
    def r2: if . == null then "–" else (. * 100 | round / 100 | tostring) end;
    def r0: if . == null then "–" else (round | tostring) end;
    (.server_end.rss_kib // null) as $rss
    | (.server_before.rss_kib // null) as $base
    | "| \($n) | \(.move_to_opponent.p50_ms | r2) / \(.move_to_opponent.p99_ms | r2) / \(.move_to_opponent.p999_ms | r2) ms | \(if $rss == null then "–" else ($rss / 1024 | r1) end) MiB | \(if $rss == null or $base == null then "–" else (($rss - $base) / $n | r1) end) KiB | \(if .server_cpu_secs == null or .accepted == 0 then "–" else (.server_cpu_secs * 1e6 / .accepted | r0) end) µs | \(.accepted_per_sec | r1) | refused \(.counters_end.connections_refused_total // "?"), setup failures \(.setup_failures), errors \(.errors | length), closes \(.closes | length) |"')")
done

echo
echo "| connections | move -> opponent p50 / p99 / p999 | server RSS | RSS per connection | server CPU per sub-move | sub-moves/s | refused, failures, errors |"
echo "|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
