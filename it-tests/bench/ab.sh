#!/usr/bin/env bash
# Side-by-side throughput of two server builds: each round starts a fresh standalone server from
# jar A and from jar B in turn (the order alternating between rounds, so neither always runs on the
# warmer or the quieter machine), runs the shared wrk-bench.sh scenarios against it, and stops it.
# Prints one markdown table: every run's req/s per build, the medians, B's median over A's, and
# each build's median server CPU time per request (the server JVM's user + system time over the
# recorded run, divided by the requests served: the figure a 2-core machine shared with the load
# generator still compares). A scenario where B serves under 90 % of A's requests per second, or
# spends over 110 % of A's CPU per request, is flagged, and the script then exits 1: the
# regression guard to run before merging a change on a hot path (README.md beside this script).
# On a 2-core machine figures drift by tens of percent within an hour; only builds compared in one
# sitting compare.
set -euo pipefail

usage() {
    cat <<EOF
usage: it-tests/bench/ab.sh --a JAR --b JAR [options]
  --a JAR            the baseline build (e.g. a copy of console-api/target/lodestar.jar from main)
  --b JAR            the build to compare with it
  --scenario LIST    wrk-bench.sh scenarios, comma-separated (default config-get,naming-list,naming-beat)
  --rounds N         servers started per build (default 3)
  --seconds N        recorded seconds per scenario (default 10)
  --bench DIR        where wrk-bench.sh is (default ../shared/bench from the repository root)
Copy the jars somewhere a build cannot overwrite them while a server runs. Port 8848 and 7848 must
be free. Each server gets a fresh data dir under a temp dir, removed at the end.
EOF
}

root=$(cd "$(dirname "$0")/../.." && pwd)
a= b= scenarios=config-get,naming-list,naming-beat rounds=3 seconds=10 bench=$root/../shared/bench
while [[ $# -gt 0 ]]; do
    case $1 in
        --a) a=$2; shift 2 ;;
        --b) b=$2; shift 2 ;;
        --scenario) scenarios=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --bench) bench=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
done
[[ -f $a && -f $b ]] || { usage >&2; exit 2; }
[[ -x $bench/wrk-bench.sh ]] || { echo "no wrk-bench.sh in $bench" >&2; exit 2; }

work=$(mktemp -d)
server=
cleanup() {
    if [[ -n $server ]]; then kill -9 "$server" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

ready() {
    [[ $(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8848/nacos/v1/console/health/readiness) == 200 ]]
}

for round in $(seq "$rounds"); do
    order="A B"
    if (( round % 2 == 0 )); then order="B A"; fi
    for build in $order; do
        jar=$a
        if [[ $build == B ]]; then jar=$b; fi
        java -Xmx512m -jar "$jar" server --auth off --probe-allow 127.0.0.0/8 --data-dir "$work/data-$build-$round" \
            >"$work/server-$build-$round.log" 2>&1 &
        server=$!
        for _ in $(seq 600); do ready && break; sleep 0.05; done
        ready || { echo "build $build did not get ready; its log:" >&2; tail -20 "$work/server-$build-$round.log" >&2; exit 1; }
        # a short unrecorded run first, so that the JIT's start-up work is not in the recorded window
        "$bench/wrk-bench.sh" --addr 127.0.0.1:8848 --seconds 5 --scenario "$scenarios" >/dev/null 2>>"$work/wrk.err"
        "$bench/wrk-bench.sh" --addr 127.0.0.1:8848 --seconds "$seconds" --scenario "$scenarios" \
            --server-pid "$server" 2>>"$work/wrk.err" | sed "s/^/$build /" >>"$work/results"
        kill "$server"
        wait "$server" || true
        server=
        echo "round $round build $build done" >&2
    done
done

python3 - "$work/results" <<'EOF'
import collections, json, statistics, sys
runs = collections.defaultdict(list)
cpu = collections.defaultdict(list)
for line in open(sys.argv[1]):
    build, record = line.split(' ', 1)
    r = json.loads(record)
    if r.get('errors', 0):
        print(f"warning: {r['scenario']} on build {build} had {r['errors']} errors", file=sys.stderr)
    runs[(r['scenario'], build)].append(r['ops_per_s'])
    if r.get('server_cpu_us_per_op') is not None:
        cpu[(r['scenario'], build)].append(r['server_cpu_us_per_op'])
print('| scenario | A runs (req/s) | A median | B runs (req/s) | B median | B / A | A CPU µs/req | B CPU µs/req | B / A | |')
print('|---|---|---:|---|---:|---:|---:|---:|---:|---|')
worse = []
for scenario in dict.fromkeys(s for s, _ in runs):
    a, b = runs[(scenario, 'A')], runs[(scenario, 'B')]
    ma, mb = statistics.median(a), statistics.median(b)
    ca, cb = cpu[(scenario, 'A')], cpu[(scenario, 'B')]
    mca = statistics.median(ca) if ca else None
    mcb = statistics.median(cb) if cb else None
    cpu_ratio = mcb / mca if mca and mcb else None
    flag = []
    if mb / ma < 0.9:
        flag.append('throughput')
    if cpu_ratio is not None and cpu_ratio > 1.1:
        flag.append('CPU')
    if flag:
        worse.append(f"{scenario} ({' and '.join(flag)})")
    fmt = lambda xs: ' / '.join(f'{x:,.0f}' for x in xs)
    num = lambda x: '?' if x is None else f'{x:,.1f}'
    ratio = '?' if cpu_ratio is None else f'{cpu_ratio:.2f}'
    mark = '**worse: ' + ', '.join(flag) + '**' if flag else ''
    print(f'| {scenario} | {fmt(a)} | {ma:,.0f} | {fmt(b)} | {mb:,.0f} | {mb / ma:.2f} | {num(mca)} | {num(mcb)} | {ratio} | {mark} |')
if worse:
    print(f"\nB is more than 10 % worse than A on: {', '.join(worse)}", file=sys.stderr)
    sys.exit(1)
EOF
