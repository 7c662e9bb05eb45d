#!/usr/bin/env bash
# Runs one of the Java load generators in it-tests/bench/java (io.lodestar.it.bench.RUNNER) from the
# classes the build compiled into it-tests/target/bench-classes, with the server jar on the
# classpath for the Jetty and Netty the ceilings use. Builds them first (it-tests and what it
# depends on, to test-compile) only when the runner's class is missing or older than its source, so
# that a sitting that calls it between runs does not rebuild. Works from any directory.
#
#   it-tests/bench/run.sh ConfigListenBench|GrpcCeiling|HttpCeiling|NettyCeiling|NotifyCeiling [ARGS...]
#
# Environment:
#   LODESTAR_JAR    the server jar for the ceilings' classpath (default console-api/target/lodestar.jar)
#   BENCH_JAVA_OPTS JVM flags, e.g. BENCH_JAVA_OPTS=-Xmx512m as the ceilings are measured
#   MVN_ARGS        extra Maven arguments for the build, e.g. MVN_ARGS=-o offline
set -euo pipefail

ROOT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SOURCES="$ROOT_DIR/it-tests/bench/java/io/lodestar/it/bench"
CLASSES="$ROOT_DIR/it-tests/target/bench-classes"

runners() { (cd "$SOURCES" && ls -- *.java | sed 's/\.java$//'); }
usage() {
    echo "usage: it-tests/bench/run.sh RUNNER [ARGS...]  (RUNNER --help for its options)"
    echo "runners: $(runners | tr '\n' ' ')"
}
case ${1:-} in
    '' | -h | --help) usage; exit 0 ;;
esac
runner=$1; shift
[[ -f $SOURCES/$runner.java ]] || { echo "no runner $runner" >&2; usage >&2; exit 2; }

class="$CLASSES/io/lodestar/it/bench/$runner.class"
if [[ ! -f $class || $SOURCES/$runner.java -nt $class ]]; then
    # Maven's output (errors only, with -q) goes to stderr: stdout is the runner's alone.
    # shellcheck disable=SC2086
    (cd "$ROOT_DIR" && mvn -B -q ${MVN_ARGS:-} -pl it-tests -am test-compile >&2)
fi

jar=${LODESTAR_JAR:-$ROOT_DIR/console-api/target/lodestar.jar}
# ConfigListenBench needs only the JDK; the ceilings take Jetty and Netty from the jar
[[ -f $jar || $runner == ConfigListenBench ]] || echo "no server jar at $jar (mvn -B package -DskipTests)" >&2
# shellcheck disable=SC2086
exec java ${BENCH_JAVA_OPTS:-} -cp "$CLASSES:$jar" "io.lodestar.it.bench.$runner" "$@"
