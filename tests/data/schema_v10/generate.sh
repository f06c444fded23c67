#!/bin/sh
# Writes tests/data/schema_v10/ again with a schema version 10 server binary (its path as $1, e.g.
# a build of commit c4f2d89; later code writes a later version and the generator refuses its output).
# Only for a new fixture: the point of the committed one is to be what an older server left on disk.
set -eu
server=${1:?usage: generate.sh PATH-TO-A-SCHEMA-V10-marseillais-BINARY}
cd "$(dirname "$0")/../../.."
MARSEILLAIS_FIXTURE_V10_SERVER="$(realpath "$server")" \
    cargo test --release --test system store::fixture_v10::generate -- --exact
