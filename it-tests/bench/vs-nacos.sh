#!/usr/bin/env bash
# Lodestar against a real Nacos on this machine, as the issues' targets are defined: one fresh Nacos
# server, every wrk-bench.sh scenario warmed until two consecutive runs agree within 10 %, then
# --nacos-runs runs of every scenario (its best run counts); then one fresh Lodestar server started
# as a user starts it (bin/lodestar server --auth off, the launcher's JVM flags, on JAR), warmed
# alike, --lodestar-runs runs (the median counts), each followed by NacosBench's config-notify-latency
# (and, for Lodestar, ConfigListenBench's push-notify-latency). The two servers never run at once.
# Prints one markdown table with the ratios and the issues' targets, then start-up, RSS and notify
# latency. Nacos itself is not part of this repository: build it yourself and pass the command
# that runs it in the foreground.
set -euo pipefail

usage() {
    cat <<EOF
usage: it-tests/bench/vs-nacos.sh --nacos-start CMD [options]
  --nacos-start CMD    runs Nacos standalone in the foreground (e.g. a script doing what its
                       bin/startup.sh -m standalone does); it is stopped with SIGTERM, then SIGKILL
  --nacos-addr H:P     where that Nacos answers (default 127.0.0.1:18848)
  --jar JAR            the Lodestar build (default console-api/target/lodestar.jar; copy it where a
                       build cannot overwrite it while the server runs)
  --nacos-runs N       runs of all scenarios against Nacos (default 2; the best counts)
  --lodestar-runs N    runs against Lodestar (default 3; the median counts)
  --seconds N          recorded seconds per scenario, and per warm-up run (default 10)
  --max-warmups N      warm-up runs per scenario at most, if two never agree within 10 % (default 8)
  --bench DIR          where wrk-bench.sh and NacosBench.java are (default ../shared/bench)
Lodestar uses ports 8848, 7848 and 8853, which must be free. Its data dir is a fresh temp dir.
EOF
}

root=$(cd "$(dirname "$0")/../.." && pwd)
nacos_start= nacos_addr=127.0.0.1:18848 jar=$root/console-api/target/lodestar.jar
nacos_runs=2 lodestar_runs=3 seconds=10 max_warmups=8 bench=$root/../shared/bench
while [[ $# -gt 0 ]]; do
    case $1 in
        --nacos-start) nacos_start=$2; shift 2 ;;
        --nacos-addr) nacos_addr=$2; shift 2 ;;
        --jar) jar=$2; shift 2 ;;
        --nacos-runs) nacos_runs=$2; shift 2 ;;
        --lodestar-runs) lodestar_runs=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --max-warmups) max_warmups=$2; shift 2 ;;
        --bench) bench=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
done
[[ -n $nacos_start && -f $jar ]] || { usage >&2; exit 2; }
[[ -x $bench/wrk-bench.sh && -f $bench/NacosBench.java ]] || { echo "no wrk-bench.sh or NacosBench.java in $bench" >&2; exit 2; }

# builds ConfigListenBench now if its class is stale, and records the jar's class archive (the
# launcher's first start after a build does), not between the measured runs
LODESTAR_JAR=$jar "$root/it-tests/bench/run.sh" ConfigListenBench --help >/dev/null
LODESTAR_JAR=$jar "$root/bin/lodestar" self-test >/dev/null

work=$(mktemp -d)
# shellcheck source=lib.sh
source "$root/it-tests/bench/lib.sh"

# the JVM among the server's processes (a start script may exec it or run it as a child)
jvm_rss_kib() {
    local pid
    for pid in $(pgrep -g "$(ps -o pgid= -p "$server" | tr -d ' ')"); do
        if [[ $(cat "/proc/$pid/comm" 2>/dev/null) == java ]]; then awk '/VmRSS/ {print $2}' "/proc/$pid/status"; return; fi
    done
}


# warm NAME ADDR: runs each scenario until two consecutive runs agree within 10 % (Nacos's publish
# rate climbs for 40-50 s after start), at most --max-warmups times; the rates go to the warm-up log
warm() {
    local name=$1 addr=$2 scenario rate previous n
    for scenario in config-publish config-get naming-register-ephemeral naming-register-persistent naming-list naming-beat; do
        previous= n=0
        while ((n < max_warmups)); do
            n=$((n + 1))
            rate=$("$bench/wrk-bench.sh" --addr "$addr" --conns 16 --threads 2 --seconds "$seconds" --warmup-seconds 0 \
                --scenario "$scenario" 2>>"$work/wrk.err" | python3 -c 'import json,sys; print(round(json.loads(sys.stdin.readline())["ops_per_s"]))')
            echo "$name $scenario warm-up $n: $rate req/s" >>"$work/warmups"
            if [[ -n $previous ]] && python3 -c "import sys; a, b = $previous, $rate; sys.exit(0 if abs(a - b) <= 0.1 * max(a, b) else 1)"; then
                break
            fi
            previous=$rate
        done
        echo "$name $scenario warm after $n runs" >&2
    done
}

# measure NAME ADDR RUNS: warm-up, the wrk-bench runs, RSS, then the notify latencies
measure() {
    local name=$1 addr=$2 runs=$3
    warm "$name" "$addr"
    for run in $(seq "$runs"); do
        "$bench/wrk-bench.sh" --addr "$addr" --conns 16 --threads 2 --seconds "$seconds" --scenario all \
            2>>"$work/wrk.err" | sed "s/^/$name /" >>"$work/results"
        echo "$name run $run done" >&2
    done
    echo "$name rss_kib $(jvm_rss_kib)" >>"$work/facts"
    local notify_runs=1
    if [[ $name == lodestar ]]; then notify_runs=3; fi
    for _ in $(seq "$notify_runs"); do
        (cd "$bench" && java NacosBench.java --addr "$addr" --scenario config-notify-latency 2>>"$work/wrk.err") \
            | sed "s/^/$name /" >>"$work/results"
        if [[ $name == lodestar ]]; then
            "$root/it-tests/bench/run.sh" ConfigListenBench --scenario push-notify-latency 2>>"$work/wrk.err" \
                | sed "s/^/$name /" >>"$work/results"
        fi
    done
}

# shellcheck disable=SC2086 # the start command is split on spaces on purpose
start nacos "$nacos_addr" $nacos_start
measure nacos "$nacos_addr" "$nacos_runs"
stop
# the launcher's JVM flags on this jar
start lodestar 127.0.0.1:8848 env LODESTAR_JAR="$jar" "$root/bin/lodestar" server --auth off \
    --probe-allow 127.0.0.0/8 --data-dir "$work/lodestar-data"
measure lodestar 127.0.0.1:8848 "$lodestar_runs"
stop

echo "warm-up runs (req/s):"
sed 's/^/- /' "$work/warmups"
echo
python3 - "$work/results" "$work/facts" <<'EOF'
import collections, json, statistics, sys
targets = {'config-publish': 10, 'config-get': 4}
runs, notify = collections.defaultdict(list), collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, record = line.split(' ', 1)
    r = json.loads(record)
    if r.get('errors', 0):
        print(f"warning: {r['scenario']} on {name} had {r['errors']} errors", file=sys.stderr)
    if 'ops_per_s' in r and 'connections' in r:
        runs[(r['scenario'], name)].append(r['ops_per_s'])
    else:
        notify[(r['scenario'], name)].append((r['p50_ms'], r['p99_ms']))
fmt = lambda xs: ' / '.join(f'{x:,.0f}' for x in xs)
print('| scenario | Nacos runs (req/s) | Nacos best | Lodestar runs (req/s) | Lodestar median | ratio | target | |')
print('|---|---|---:|---|---:|---:|---:|---|')
for scenario in dict.fromkeys(s for s, _ in runs):
    n, l = runs[(scenario, 'nacos')], runs[(scenario, 'lodestar')]
    best, median = max(n), statistics.median(l)
    target = targets.get(scenario, 3)
    ratio = median / best
    print(f'| {scenario} | {fmt(n)} | {best:,.0f} | {fmt(l)} | {median:,.0f} | {ratio:.2f}x | {target}x | '
          f'{"met" if ratio >= target else "not met"} |')
print()
for (scenario, name), xs in notify.items():
    p50 = statistics.median(x[0] for x in xs)
    p99 = statistics.median(x[1] for x in xs)
    runs99 = ' / '.join(f'{x[1]:.1f}' for x in xs)
    print(f'- {name} {scenario}: p99 {p99:.1f} ms (runs {runs99}), p50 {p50:.1f} ms')
for line in open(sys.argv[2]):
    name, fact, *value = line.split()
    value = value[0] if value else ''
    if fact == 'start_ms':
        print(f'- {name} start to readiness 200: {int(value) / 1000:.2f} s')
    elif fact == 'rss_kib' and value.isdigit():
        print(f'- {name} RSS right after the wrk runs: {int(value) / 1024:.0f} MiB')
EOF
