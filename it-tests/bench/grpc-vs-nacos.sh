#!/usr/bin/env bash
# nacos-client 2.x over gRPC against Lodestar and a real Nacos on this machine, one server at a time,
# as issue 19's targets are defined: config notify latency (publish to another client's listener)
# and naming event latency (register to another client's NamingEvent) through the unmodified client
# (GrpcClientBench), registrations and config queries per second from the client's own protocol
# classes without its rate limiter (GrpcLoadBench). Each server is started fresh and every scenario is run once unrecorded, then
# --nacos-runs times for Nacos (its best counts) and --lodestar-runs times for Lodestar (the median
# counts), alternating nothing: the two servers never run at once. The runner is
# it-tests/nacos-client-v2/bench/java/.../GrpcClientBench.java, the unmodified client in one JVM.
# Nacos is not part of this repository: build it yourself and pass the command that runs it in
# the foreground.
set -euo pipefail

usage() {
    cat <<USAGE
usage: it-tests/bench/grpc-vs-nacos.sh --nacos-start CMD [options]
  --nacos-start CMD    runs Nacos standalone in the foreground; stopped with SIGTERM, then SIGKILL
  --nacos-addr H:P     where that Nacos answers HTTP (default 127.0.0.1:18848; gRPC is that + 1000)
  --jar JAR            the Lodestar build (default console-api/target/lodestar.jar)
  --nacos-runs N       default 2 (the best counts)
  --lodestar-runs N    default 3 (the median counts)
  --rounds N           latency rounds per run (default 200)
  --seconds N          recorded seconds per throughput run (default 10)
  --connections N      connections of a throughput run (default 8, each with 8 requests in flight)
  --modes "M ..."      which of notify naming-event register query (default all four)
Lodestar uses ports 8848, 9848 and 7848, which must be free. Its data dir is a fresh temp dir.
USAGE
}

root=$(cd "$(dirname "$0")/../.." && pwd)
nacos_start= nacos_addr=127.0.0.1:18848 jar=$root/console-api/target/lodestar.jar
nacos_runs=2 lodestar_runs=3 rounds=200 seconds=10 connections=8 modes="notify naming-event register query"
while [[ $# -gt 0 ]]; do
    case $1 in
        --nacos-start) nacos_start=$2; shift 2 ;;
        --nacos-addr) nacos_addr=$2; shift 2 ;;
        --jar) jar=$2; shift 2 ;;
        --nacos-runs) nacos_runs=$2; shift 2 ;;
        --lodestar-runs) lodestar_runs=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --connections) connections=$2; shift 2 ;;
        --modes) modes=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
done
[[ -n $nacos_start && -f $jar ]] || { usage >&2; exit 2; }

module=$root/it-tests/nacos-client-v2/target
if [[ ! -f $module/bench.classpath || ! -d $module/bench-classes ]]; then
    (cd "$root" && mvn -B -q -DskipTests -Dspotless.check.skip=true test-compile >&2)
fi
cp="$module/bench-classes:$(cat "$module/bench.classpath")"

work=$(mktemp -d)
# shellcheck source=lib.sh
source "$root/it-tests/bench/lib.sh"

bench() { # NAME ADDR MODE [ARGS]: one run, its lines prefixed with NAME
    local name=$1 addr=$2 mode=$3 runner=GrpcClientBench; shift 3
    case $mode in register|query) runner=GrpcLoadBench; set -- --connections "$connections" "$@" ;; *) ;; esac
    java -Xmx512m -Dlogback.configurationFile="$root/it-tests/nacos-client-v2/src/test/resources/logback-test.xml" \
        -DJM.LOG.PATH="$work/client-logs" -DJM.SNAPSHOT.PATH="$work/client-snapshots" \
        -Dcom.alibaba.nacos.naming.cache.dir="$work/client-naming" -cp "$cp" "io.lodestar.it.bench.$runner" \
        "$mode" "$@" --server "$addr" 2>>"$work/client.err" | grep -E '^[a-z_0-9]+ ' | sed "s/^/$name /"
}

measure() { # NAME ADDR RUNS
    local name=$1 addr=$2 runs=$3
    for mode in $modes; do # warm-up, unrecorded
        case $mode in
            notify|naming-event) bench "$name" "$addr" "$mode" --rounds 50 >/dev/null ;;
            *) bench "$name" "$addr" "$mode" --seconds 5 --warmup 2 >/dev/null ;;
        esac
    done
    for run in $(seq "$runs"); do
        for mode in $modes; do
            case $mode in
                notify|naming-event) bench "$name" "$addr" "$mode" --rounds "$rounds" >>"$work/results" ;;
                *) bench "$name" "$addr" "$mode" --seconds "$seconds" >>"$work/results" ;;
            esac
        done
        echo "$name run $run done" >&2
    done
}

# shellcheck disable=SC2086 # the start command is split on spaces on purpose
start nacos "$nacos_addr" $nacos_start
measure nacos "$nacos_addr" "$nacos_runs"
stop
start lodestar 127.0.0.1:8848 env LODESTAR_JAR="$jar" "$root/bin/lodestar" server --auth off \
    --probe-allow 127.0.0.0/8 --data-dir "$work/lodestar-data"
measure lodestar 127.0.0.1:8848 "$lodestar_runs"
stop

python3 - "$work/results" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, metric, value = line.split()
    runs[(metric, name)].append(float(value))
rows = [('config_notify_p99_ms', 'lower', 20, 'ms'), ('config_notify_p50_ms', 'lower', None, 'ms'),
        ('naming_event_p99_ms', 'lower', 50, 'ms'), ('naming_event_p50_ms', 'lower', None, 'ms'),
        ('raw_register_per_s', 'higher', 3, 'x'), ('raw_config_query_per_s', 'higher', 3, 'x')]
print('| figure | Nacos runs | Nacos best | Lodestar runs | Lodestar median | target | |')
print('|---|---|---:|---|---:|---:|---|')
fmt = lambda xs: ' / '.join(f'{x:,.1f}' if x < 100 else f'{x:,.0f}' for x in xs)
for metric, better, target, unit in rows:
    n, l = runs.get((metric, 'nacos'), []), runs.get((metric, 'lodestar'), [])
    if not n or not l:
        continue
    best = min(n) if better == 'lower' else max(n)
    median = statistics.median(l)
    if target is None:
        verdict, goal = '', ''
    elif unit == 'ms':
        verdict, goal = ('met' if median < target else 'not met'), f'< {target} ms'
    else:
        verdict, goal = ('met' if median >= target * best else 'not met'), f'{target}x ({median / best:.1f}x)'
    print(f'| {metric} | {fmt(n)} | {fmt([best])} | {fmt(l)} | {fmt([median])} | {goal} | {verdict} |')
for (metric, name), xs in sorted(runs.items()):
    if metric.endswith('_failed') and any(xs):
        print(f'- warning: {name} {metric}: {xs}')
PY
