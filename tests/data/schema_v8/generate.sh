#!/bin/sh
# Writes tests/data/schema_v8/ again with a schema version 8 server binary (its path as $1, e.g.
# a build of commit 20378d5; later code writes a later version and the generator refuses its output).
# Only for a new fixture: the point of the committed one is to be what an older server left on disk.
set -eu
server=${1:?usage: generate.sh PATH-TO-A-SCHEMA-V8-marseillais-BINARY}
cd "$(dirname "$0")/../../.."
MARSEILLAIS_FIXTURE_V8_SERVER="$(realpath "$server")" \
    cargo test --release --test system store::migration_v9::generate -- --exact
