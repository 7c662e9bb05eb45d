#!/usr/bin/env bash
# log-growth.sh: what sustained config publishing does to a standalone server's data directory.
# Starts the jar standalone (java -Xmx512m ... --auth off) on a fresh data dir, runs
# ../shared/bench/wrk-bench.sh --scenario config-publish N times back to back, and after each run
# prints its rate and the sizes of raft/ and kv/; then stops the server (SIGTERM), starts it again
# on the same data and prints the time to readiness. Needs wrk, curl, du. --server-log keeps the
# server's log (housekeeping passes, RocksDB stalls) and the kv store's RocksDB LOG beside it.
#
#   it-tests/bench/log-growth.sh --jar console-api/target/lodestar.jar [--runs 10] [--seconds 10]
#       [--server-log FILE]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
jar=$root/console-api/target/lodestar.jar runs=10 seconds=10 bench=$root/../shared/bench keep_log=
while (($#)); do
    case $1 in
        --jar) jar=${2:?}; shift 2 ;;
        --runs) runs=${2:?}; shift 2 ;;
        --seconds) seconds=${2:?}; shift 2 ;;
        --bench) bench=${2:?}; shift 2 ;;
        --server-log) keep_log=${2:?}; shift 2 ;;
        -h | --help) sed -n '2,11p' "$0"; exit 0 ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done
work=$(mktemp -d) addr=127.0.0.1:8848
trap 'pkill -f "data-dir $work/data" || true; rm -rf "$work"' EXIT
start() {
    java -Xmx512m -jar "$jar" server --auth off --probe-allow 127.0.0.0/8 --data-dir "$work/data" >>"$work/log" 2>&1 &
    local t0; t0=$(date +%s%N)
    until curl -sf "http://$addr/nacos/v1/console/health/readiness" >/dev/null 2>&1; do sleep 0.05; done
    echo $(( ($(date +%s%N) - t0) / 1000000 ))
}
mib() { du -sm "$1" 2>/dev/null | cut -f1; }
echo "jar $jar, $runs runs of $seconds s config-publish"
printf '%-4s %10s %8s %8s\n' run req/s raft_MiB kv_MiB
start >/dev/null
for i in $(seq 1 "$runs"); do
    rate=$("$bench/wrk-bench.sh" --addr "$addr" --scenario config-publish --seconds "$seconds" --warmup-seconds 0 2>/dev/null \
        | python3 -c 'import json,sys; print(round(json.loads(sys.stdin.readline())["ops_per_s"]))')
    printf '%-4s %10s %8s %8s\n' "$i" "$rate" "$(mib "$work/data/raft")" "$(mib "$work/data/kv")"
done
pkill -TERM -f "data-dir $work/data"; while pgrep -f "data-dir $work/data" >/dev/null; do sleep 0.1; done
echo "restart to readiness: $(start) ms"
if [ -n "$keep_log" ]; then
    cp "$work/log" "$keep_log"
    # the restart started a new LOG; the runs' LOG was renamed LOG.old.<time>
    cat $(ls -tr "$work/data/kv/"*/LOG* 2>/dev/null) >"$keep_log.rocksdb" 2>/dev/null || true
fi
