#!/bin/sh
# Writes tests/data/schema_v6/ again with a schema version 6 server binary (its path as $1, e.g.
# a build of commit f246578; today's code writes version 7 and the generator refuses its output).
# Only for a new fixture: the point of the committed one is to be what an older server left on disk.
set -eu
server=${1:?usage: generate.sh PATH-TO-A-SCHEMA-V6-marseillais-BINARY}
cd "$(dirname "$0")/../../.."
MARSEILLAIS_FIXTURE_V6_SERVER="$(realpath "$server")" \
    cargo test --release --test system store::migration_v7::generate -- --exact
