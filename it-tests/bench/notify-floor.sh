#!/usr/bin/env bash
# NacosBench's config-notify-latency against Lodestar and against NotifyCeiling (bare Jetty, configs
# in a map, no Raft and no disk) side by side in one sitting: the ceiling's figure is the floor the
# client, the HTTP stack and this machine set, which no server on Jetty gets under. Both servers
# run for the whole sitting; Lodestar is started as the issues say and first takes one wrk-bench.sh
# pass (as in vs-nacos.sh); then each server takes --warmup unrecorded notify runs, so that neither
# is timed while its JIT compiles the long-poll path, and the recorded runs alternate between the
# two, the order swapping each round. Prints every run's p50 and p99 and the medians.
set -euo pipefail

usage() {
    cat <<EOF
usage: it-tests/bench/notify-floor.sh [options]
  --jar JAR        the Lodestar build (default console-api/target/lodestar.jar; copy it where a build
                   cannot overwrite it while the servers run)
  --rounds N       notify runs per server (default 3; the median counts)
  --warmup N       unrecorded notify runs per server first (default 1)
  --no-wrk         skip Lodestar's wrk-bench.sh pass before the notify runs
  --bench DIR      where wrk-bench.sh and NacosBench.java are (default ../shared/bench)
Ports 8848, 7848, 8853 (Lodestar) and 18848 (the ceiling) must be free.
EOF
}

root=$(cd "$(dirname "$0")/../.." && pwd)
jar=$root/console-api/target/lodestar.jar rounds=3 warmup=1 wrk=1 bench=$root/../shared/bench
while [[ $# -gt 0 ]]; do
    case $1 in
        --jar) jar=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --warmup) warmup=$2; shift 2 ;;
        --no-wrk) wrk=0; shift ;;
        --bench) bench=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
done
[[ -f $jar ]] || { echo "no jar at $jar (mvn -B package -DskipTests)" >&2; exit 2; }
[[ -x $bench/wrk-bench.sh && -f $bench/NacosBench.java ]] || { echo "no wrk-bench.sh or NacosBench.java in $bench" >&2; exit 2; }

# builds NotifyCeiling now if its class is stale, not while the servers start
LODESTAR_JAR=$jar "$root/it-tests/bench/run.sh" NotifyCeiling --help >/dev/null

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

# await NAME URL CODE: until URL answers with status CODE (60 s at most)
await() {
    for _ in $(seq 1200); do
        [[ $(curl -s -o /dev/null -w '%{http_code}' "$2") == "$3" ]] && return
        sleep 0.05
    done
    echo "$1 did not come up; its log:" >&2
    tail -20 "$work/$1.log" >&2
    exit 1
}

java -Xmx512m -jar "$jar" server --auth off --probe-allow 127.0.0.0/8 --data-dir "$work/data" >"$work/lodestar.log" 2>&1 &
pids+=($!)
LODESTAR_JAR=$jar BENCH_JAVA_OPTS=-Xmx512m "$root/it-tests/bench/run.sh" NotifyCeiling --port 18848 >"$work/ceiling.log" 2>&1 &
pids+=($!)
await lodestar http://127.0.0.1:8848/nacos/v1/console/health/readiness 200
await ceiling 'http://127.0.0.1:18848/nacos/v1/cs/configs?dataId=none&group=none' 404
if (( wrk )); then
    echo "wrk-bench.sh pass on Lodestar ..." >&2
    "$bench/wrk-bench.sh" --addr 127.0.0.1:8848 --conns 16 --threads 2 --seconds 10 --scenario all \
        >/dev/null 2>>"$work/wrk.err"
fi

# notify NAME ADDR [FILE]: one NacosBench notify run, its JSON line appended to FILE
notify() {
    (cd "$bench" && java NacosBench.java --addr "$2" --scenario config-notify-latency 2>>"$work/notify.err") \
        | sed "s/^/$1 /" >>"${3:-$work/results}"
}
for _ in $(seq "$warmup"); do
    notify lodestar 127.0.0.1:8848 "$work/warmup"; notify ceiling 127.0.0.1:18848 "$work/warmup"
done
for round in $(seq "$rounds"); do
    if (( round % 2 )); then
        notify lodestar 127.0.0.1:8848; notify ceiling 127.0.0.1:18848
    else
        notify ceiling 127.0.0.1:18848; notify lodestar 127.0.0.1:8848
    fi
    echo "round $round done" >&2
done

python3 - "$work/results" <<'EOF'
import collections, json, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, record = line.split(' ', 1)
    r = json.loads(record)
    if r['errors']:
        print(f"warning: {name} run had {r['errors']} errors", file=sys.stderr)
    runs[name].append((r['p50_ms'], r['p99_ms']))
print('| server | p50 runs (ms) | p50 median | p99 runs (ms) | p99 median |')
print('|---|---|---:|---|---:|')
for name in ('lodestar', 'ceiling'):
    xs = runs[name]
    print(f"| {name} | {' / '.join(f'{x[0]:.1f}' for x in xs)} | {statistics.median(x[0] for x in xs):.1f} "
          f"| {' / '.join(f'{x[1]:.1f}' for x in xs)} | {statistics.median(x[1] for x in xs):.1f} |")
EOF
