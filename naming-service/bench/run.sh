#!/usr/bin/env bash
# Heap bytes per ephemeral instance: builds naming-service's test classes and runs
# io.lodestar.naming.bench.EphemeralFootprint (arguments go to it: --instances N --services N).
set -euo pipefail
MODULE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT_DIR="$(cd "$MODULE_DIR/.." && pwd)"
CP_FILE="$MODULE_DIR/target/bench-classpath.txt"
cd "$ROOT_DIR"
# shellcheck disable=SC2086
mvn -B -q ${MVN_ARGS:-} -pl kv-store,naming-service -am test-compile >&2
# shellcheck disable=SC2086
mvn -B -q ${MVN_ARGS:-} -pl naming-service dependency:build-classpath -Dmdep.includeScope=test \
    -Dmdep.outputFile="$CP_FILE" >&2
# a fixed heap and the serial collector: used-after-GC is then steady between the two readings
java -Xms1g -Xmx1g -XX:+UseSerialGC \
    -cp "$MODULE_DIR/target/classes:$MODULE_DIR/target/test-classes:$ROOT_DIR/kv-store/target/classes:$(cat "$CP_FILE")" \
    io.lodestar.naming.bench.EphemeralFootprint "$@"
