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

# Other builds in this tree (mvn test, by hand or by CI on the same checkout) recompile
# target/classes at any time, and the JVM loads classes lazily: so run from a private copy,
# checked to hold a class for every source file, recompiling and copying again if a concurrent
# build caught us mid-way.
snapshot_complete() {
    local src rel
    while IFS= read -r src; do
        rel="${src#src/main/java/}"
        [[ "$rel" == */package-info.java ]] && continue
        [[ -f "target/bench-classes/classes/${rel%.java}.class" ]] || return 1
    done < <(find src/main/java -name '*.java')
    [[ -f target/bench-classes/test-classes/io/lodestar/kv/bench/KvStoreBenchmark.class ]]
}

# Maven's output (errors only, with -q) goes to stderr: stdout is the benchmark's report alone.
build_and_snapshot() {
    cd "$ROOT_DIR"
    # shellcheck disable=SC2086
    mvn -B -q ${MVN_ARGS:-} -pl kv-store test-compile >&2 || return 1
    # shellcheck disable=SC2086
    mvn -B -q ${MVN_ARGS:-} -pl kv-store dependency:build-classpath \
        -Dmdep.includeScope=test -Dmdep.outputFile="$CP_FILE" >&2 || return 1
    cd "$MODULE_DIR"
    rm -rf target/bench-classes
    mkdir -p target/bench-classes
    cp -r target/classes target/test-classes target/bench-classes/ 2>/dev/null || return 1
    snapshot_complete
}

for attempt in 1 2 3 4 5; do
    if build_and_snapshot; then
        break
    fi
    if [[ $attempt == 5 ]]; then
        echo "run.sh: the build failed 5 times (a compile error, or a concurrent build kept rewriting target/)" >&2
        exit 1
    fi
    echo "run.sh: build or class snapshot failed (a concurrent build in this tree?); trying again in 5 s" >&2
    sleep 5
done
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
    -cp "target/bench-classes/test-classes:target/bench-classes/classes:$(cat "$CP_FILE")" \
    io.lodestar.kv.bench.KvStoreBenchmark "$@"
