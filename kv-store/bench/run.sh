#!/usr/bin/env bash
# Builds kv-store's test classes and runs io.lodestar.kv.bench.KvStoreBenchmark.
# Works from any directory (e.g. `kv-store/bench/run.sh` at the repo root); arguments go to the
# benchmark (try --help). The benchmark runs in kv-store/, so its default data dir is
# kv-store/target/bench-data (on the real disk, deleted after each cell); a relative --dir is taken
# relative to the directory you started run.sh from.
#
# Environment:
#   MVN_ARGS        extra Maven arguments, e.g. MVN_ARGS=-o for an offline build
#   BENCH_JAVA_OPTS extra JVM flags, e.g. a JFR recording:
#                   BENCH_JAVA_OPTS='-XX:StartFlightRecording=settings=profile,dumponexit=true,filename=target/bench.jfr'
set -euo pipefail

CALLER_DIR="$PWD"
MODULE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT_DIR="$(cd "$MODULE_DIR/.." && pwd)"
CP_FILE="$MODULE_DIR/target/bench-classpath.txt"

# Maven's output (errors only, with -q) goes to stderr: stdout is the benchmark's report alone.
cd "$ROOT_DIR"
# shellcheck disable=SC2086
mvn -B -q ${MVN_ARGS:-} -pl kv-store test-compile >&2
# shellcheck disable=SC2086
mvn -B -q ${MVN_ARGS:-} -pl kv-store dependency:build-classpath \
    -Dmdep.includeScope=test -Dmdep.outputFile="$CP_FILE" >&2
cd "$MODULE_DIR"

# HotSpot suspends threads with SIGUSR2 for JFR's execution sampling, and JRaft installs its own
# SIGUSR2 handler (it dumps node_*.log files into the working directory): with both, JFR records no
# execution samples and the directory fills with dumps. Move the VM's signal out of the way.
export _JAVA_SR_SIGNUM="${_JAVA_SR_SIGNUM:-39}"
# shellcheck disable=SC2086
exec java -Xmx1g -XX:+UseG1GC \
    --add-opens java.base/java.lang=ALL-UNNAMED --add-opens java.base/java.util=ALL-UNNAMED \
    -Dlogback.middleware.log.disable=true \
    -Dlogback.configurationFile="$MODULE_DIR/bench/logback-bench.xml" \
    -Dbench.callerDir="$CALLER_DIR" \
    ${BENCH_JAVA_OPTS:-} \
    -cp "target/test-classes:target/classes:$(cat "$CP_FILE")" \
    io.lodestar.kv.bench.KvStoreBenchmark "$@"
