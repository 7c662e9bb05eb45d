#!/usr/bin/env bash
# Many idle nacos-client 2.x connections on one standalone Lodestar, each with one ephemeral
# instance and one config listener (it-tests/nacos-client-v2/bench/java/.../ConnectionsBench.java):
# whether they all stay up through the server's idle checks, and what each costs the server's heap.
# The heap is read after a full collection (jcmd GC.run) before the connections and again while
# they are held, idle, past two client-detection rounds; the server's CPU time is read across that
# idle hold (what keeping idle connections and their instances alive costs).
set -euo pipefail

usage() {
    cat <<USAGE
usage: it-tests/bench/grpc-connections.sh [--jar JAR] [--count N] [--hold-s S]
  --jar JAR     the Lodestar build (default console-api/target/lodestar.jar)
  --count N     connections (default 10000)
  --hold-s S    how long they are held idle before the heap is read (default 45)
Lodestar uses ports 8848, 9848 and 7848. Raises the open-file limit of both ends to 65536, or
to the hard limit where that is lower (it must exceed --count by 1000).
USAGE
}
root=$(cd "$(dirname "$0")/../.." && pwd)
jar=$root/console-api/target/lodestar.jar count=10000 hold=45
while [[ $# -gt 0 ]]; do
    case $1 in
        --jar) jar=$2; shift 2 ;;
        --count) count=$2; shift 2 ;;
        --hold-s) hold=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
done
# as high as allowed: each end holds one descriptor per connection
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
if (( $(ulimit -n) < count + 1000 )); then
    echo "the open-file limit here is $(ulimit -n): too low for $count connections" >&2
    exit 2
fi
module=$root/it-tests/nacos-client-v2/target
if [[ ! -f $module/bench.classpath || ! -d $module/bench-classes ]]; then
    (cd "$root" && mvn -B -q -DskipTests -Dspotless.check.skip=true test-compile >&2)
fi
cp="$module/bench-classes:$(cat "$module/bench.classpath")"
work=$(mktemp -d)
server= client=
cleanup() {
    [[ -n $client ]] && kill -KILL "$client" 2>/dev/null || true
    if [[ -n $server ]]; then kill -TERM -- "-$server" 2>/dev/null || true; sleep 3; kill -KILL -- "-$server" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

setsid env LODESTAR_JAR="$jar" "$root/bin/lodestar" server --auth off --probe-allow 127.0.0.0/8 \
    --data-dir "$work/data" >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 1200); do
    [[ $(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8848/nacos/v1/console/health/readiness) == 200 ]] && break
    sleep 0.05
done
jvm=$(pgrep -g "$server" -x java | head -1)
heap_kib() { # used heap after a full collection
    jcmd "$jvm" GC.run >/dev/null
    sleep 1
    jcmd "$jvm" GC.heap_info | awk '/used/ { for (i = 1; i <= NF; i++) if ($i == "used") { v = $(i + 1); sub(/K,?/, "", v); print v; exit } }'
}
rss_kib() { awk '/VmRSS/ {print $2}' "/proc/$jvm/status"; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$jvm/stat"; } # user + system, in clock ticks
metric() { curl -s http://127.0.0.1:8848/metrics | awk -v m="$1" '$1 == m { print $2 }'; }

before_heap=$(heap_kib) before_rss=$(rss_kib)
java -Xmx1g -Dlogback.configurationFile="$root/it-tests/nacos-client-v2/src/test/resources/logback-test.xml" \
    -cp "$cp" io.lodestar.it.bench.ConnectionsBench --server 127.0.0.1:8848 --count "$count" \
    --hold $((hold + 60)) >"$work/client.out" 2>"$work/client.err" &
client=$!
for _ in $(seq 1800); do grep -q '^setup_s' "$work/client.out" && break; sleep 0.5; done
cat "$work/client.out"
idle_from=$(cpu_ticks)
sleep "$hold"
idle_ticks=$(( $(cpu_ticks) - idle_from ))
after_heap=$(heap_kib) after_rss=$(rss_kib)
instances=$(curl -s 'http://127.0.0.1:8848/nacos/v1/ns/instance/list?serviceName=conn-bench&healthyOnly=true' \
    | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["hosts"]))')
echo "connections_on_server $(metric lodestar_grpc_connections)"
echo "healthy_instances_listed $instances"
echo "heap_before_kib $before_heap"
echo "heap_after_kib $after_heap"
echo "heap_per_connection_bytes $(( (after_heap - before_heap) * 1024 / count ))"
echo "rss_before_mib $(( before_rss / 1024 ))"
echo "rss_after_mib $(( after_rss / 1024 ))"
echo "server_cpu_while_idle_pct $(awk -v t="$idle_ticks" -v hz="$(getconf CLK_TCK)" -v s="$hold" 'BEGIN { printf "%.1f", 100 * t / hz / s }')"
