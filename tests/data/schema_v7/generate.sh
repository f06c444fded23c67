#!/bin/sh
# Writes tests/data/schema_v7/ again with a schema version 7 server binary (its path as $1, e.g.
# a build of commit c6aa2f0; today's code writes version 8 and the generator refuses its output).
# Only for a new fixture: the point of the committed one is to be what an older server left on disk.
set -eu
server=${1:?usage: generate.sh PATH-TO-A-SCHEMA-V7-marseillais-BINARY}
cd "$(dirname "$0")/../../.."
MARSEILLAIS_FIXTURE_V7_SERVER="$(realpath "$server")" \
    cargo test --release --test system store::migration_v8::generate -- --exact
