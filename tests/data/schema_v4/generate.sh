#!/bin/sh
# Writes tests/data/schema_v4/ again with a schema version 4 server binary (its path as $1, e.g.
# a build of commit fb07b9f; today's code writes version 5 and the generator refuses its output).
# Only for a new fixture: the point of the committed one is to be what an older server left on disk.
set -eu
server=${1:?usage: generate.sh PATH-TO-A-SCHEMA-V4-marseillais-BINARY}
cd "$(dirname "$0")/../../.."
MARSEILLAIS_FIXTURE_V4_SERVER="$(realpath "$server")" \
    cargo test --release --test system store::migration_v5::generate -- --exact
