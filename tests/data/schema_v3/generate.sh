#!/bin/sh
# Writes tests/data/schema_v3/ again with a schema version 3 server binary (its path as $1, e.g.
# a build of commit 57060b9; today's code writes version 4 and the generator refuses its output).
# Only for a new fixture: the point of the committed one is to be what an older server left on disk.
set -eu
server=${1:?usage: generate.sh PATH-TO-A-SCHEMA-V3-marseillais-BINARY}
cd "$(dirname "$0")/../../.."
MARSEILLAIS_FIXTURE_V3_SERVER="$(realpath "$server")" \
    cargo test --release --test system store::migration_v4::generate -- --exact
