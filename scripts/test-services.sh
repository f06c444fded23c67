#!/usr/bin/env bash
# Starts a private PostgreSQL for the tests, runs a command with it, and stops it.
#
#   scripts/test-services.sh cargo test --release --test system store::postgres::
#
# The server is initdb'd into a fresh temporary directory (as the `postgres` user through
# `runuser` when run as root, as yourself otherwise), listens only on a unix socket inside that
# directory (no TCP port at all: nothing else on the machine can reach it, and two runs never
# collide), and is stopped and deleted when the command ends, however it ends. The command sees
# MARSEILLAIS_TEST_POSTGRES=postgres://...; the tests that need Postgres read it (and skip loudly
# without it, or fail when CI is set). Its exit status is the command's.
set -euo pipefail

if [ "$#" -eq 0 ]; then
    echo "usage: $0 COMMAND [ARGS...]" >&2
    exit 2
fi

pg_bin=${PG_BIN:-}
if [ -z "$pg_bin" ]; then
    pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
fi
if [ -z "$pg_bin" ] || [ ! -x "$pg_bin/initdb" ]; then
    echo "test-services: no PostgreSQL server found (install the postgresql package, or set PG_BIN)" >&2
    exit 1
fi

dir=$(mktemp -d /tmp/marseillais-pg.XXXXXX)
as_owner=()
if [ "$(id -u)" -eq 0 ]; then
    chown postgres: "$dir"
    as_owner=(runuser -u postgres --)
fi

stop() {
    "${as_owner[@]}" "$pg_bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$dir"
}
trap stop EXIT

"${as_owner[@]}" "$pg_bin/initdb" -D "$dir/data" -U postgres -A trust --no-sync \
    >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
# fsync stays on: the durability tests and the benchmark must measure what production pays.
"${as_owner[@]}" "$pg_bin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 \
    -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c max_connections=200" \
    start >/dev/null || { cat "$dir/postgres.log" >&2; exit 1; }

export MARSEILLAIS_TEST_POSTGRES="postgres://postgres@/postgres?host=$dir"
echo "test-services: PostgreSQL running, MARSEILLAIS_TEST_POSTGRES=$MARSEILLAIS_TEST_POSTGRES" >&2

set +e
"$@"
status=$?
set -e
exit "$status"
