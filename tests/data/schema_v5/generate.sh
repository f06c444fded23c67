#!/bin/sh
# Writes tests/data/schema_v5/ again with a schema version 5 server binary (its path as $1, e.g.
# a build of commit 65872d7; today's code writes version 6 and the generator refuses its output).
# Only for a new fixture: the point of the committed one is to be what an older server left on disk.
set -eu
server=${1:?usage: generate.sh PATH-TO-A-SCHEMA-V5-marseillais-BINARY}
cd "$(dirname "$0")/../../.."
MARSEILLAIS_FIXTURE_V5_SERVER="$(realpath "$server")" \
    cargo test --release --test system store::migration_v6::generate -- --exact
