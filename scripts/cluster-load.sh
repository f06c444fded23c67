#!/usr/bin/env bash
# Three marseillais nodes on loopback (one private PostgreSQL, one private Redis) under the load
# generator: sub-moves/s at saturation and move-to-opponent latency, players on the game's owner
# vs on other nodes (docs/performance.md, "Several nodes").
#
#   scripts/cluster-load.sh [GAMES] [SECONDS]        # defaults: 300 games, 20 s per placement
#
# Builds nothing: run `cargo build --release --bin marseillais --bin loadgen` first. Everything
# listens on 127.0.0.1 or a unix socket in a temporary directory, and is stopped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${MARSEILLAIS_TEST_POSTGRES:-}" ]; then
    exec scripts/test-services.sh "$0" "$@"
fi
games=${1:-300}
secs=${2:-20}
bin=target/release
redis_server=${MARSEILLAIS_TEST_REDIS_SERVER:-$(command -v redis-server || echo /usr/bin/redis-server)}
[ -x "$bin/marseillais" ] && [ -x "$bin/loadgen" ] || {
    echo "cluster-load: build first: cargo build --release --bin marseillais --bin loadgen" >&2; exit 1; }
[ -x "$redis_server" ] || { echo "cluster-load: no redis-server (apt-get install -y redis-server)" >&2; exit 1; }

dir=$(mktemp -d /tmp/marseillais-cluster-load.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    rm -rf "$dir"
}
trap cleanup EXIT

"$redis_server" --port 0 --unixsocket "$dir/redis.sock" --unixsocketperm 700 --save '' \
    --appendonly no --daemonize no >"$dir/redis.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -S "$dir/redis.sock" ] && break; sleep 0.1; done

# A fresh database in the private Postgres.
db=cluster_load_$$
psql_url=$MARSEILLAIS_TEST_POSTGRES
host=${psql_url#*host=}
psql -h "$host" -U postgres -d postgres -qc "CREATE DATABASE $db" >/dev/null
store="postgres://postgres@/$db?host=$host"

addrs=()
for k in 1 2 3; do
    fifo="$dir/n$k.out"
    mkfifo "$fifo"
    # One machine stands in for every client (as loadgen does for a server it starts): no
    # limit per client. (A comment inside the continued lines would end the command there.)
    MARSEILLAIS_CREATE_RATE_PER_SEC=0 MARSEILLAIS_GAME_RATE_PER_SEC=1000000 \
    MARSEILLAIS_GAME_RATE_BURST=1000000 \
        MARSEILLAIS_GAME_SOCKETS_PER_CLIENT=0 MARSEILLAIS_LOBBY_SOCKETS_PER_CLIENT=0 \
        MARSEILLAIS_CHAT_ROOM_BURST_PER_CLIENT=0 MARSEILLAIS_CHAT_BURST_PER_CLIENT=0 \
        MARSEILLAIS_OPEN_GAMES_PER_CLIENT=0 MARSEILLAIS_COMPUTER_GAMES_PER_CLIENT=0 \
            "$bin/marseillais" serve --listen 127.0.0.1:0 --data-dir "$dir/n$k" --store "$store" \
        --bus "redis+unix://$dir/redis.sock" --node-id "n$k" --lease-secs 10 \
        >"$fifo" 2>"$dir/n$k.log" &
    pids+=($!)
    exec {fd}<"$fifo"
    read -r -t 60 line <&"$fd" || { echo "node n$k did not start:" >&2; cat "$dir/n$k.log" >&2; exit 1; }
    # Keep reading its stdout so that later writes never block.
    cat <&"$fd" >/dev/null &
    addrs+=("${line#listening on http://}")
done
list=$(IFS=,; echo "${addrs[*]}")
echo "cluster-load: nodes $list, $games games, $secs s per placement" >&2

for placement in owner other; do
    echo "=== placement: $placement ==="
    timeout $((secs + 180)) "$bin/loadgen" --mode saturate --games "$games" --spectators 0 \
        --duration "$secs" --addrs "$list" --placement "$placement" --server-pid "${pids[1]}"
done
