# Sourced by the side-by-side scripts (vs-nacos.sh, grpc-vs-nacos.sh): one server at a time, each
# in a process group of its own so that a start script and the JVM it runs stop together. The
# caller sets $work (a temporary directory, removed on exit) before sourcing this.

server=
cleanup() {
    if [[ -n $server ]]; then
        pkill -TERM -P "$server" 2>/dev/null || true
        kill -TERM "$server" 2>/dev/null || true
        sleep 2
        pkill -KILL -P "$server" 2>/dev/null || true
        kill -KILL "$server" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

# start NAME ADDR CMD...: runs CMD (its output to $work/NAME.log), waits up to 60 s for readiness
# at ADDR, and records "NAME start_ms N" in $work/facts; exits if CMD ends or is not ready in time
start() {
    local name=$1 addr=$2; shift 2
    local t0; t0=$(date +%s%N)
    setsid "$@" >"$work/$name.log" 2>&1 &
    server=$!
    for _ in $(seq 1200); do
        if [[ $(curl -s -o /dev/null -w '%{http_code}' "http://$addr/nacos/v1/console/health/readiness") == 200 ]]; then
            echo "$name start_ms $(( ($(date +%s%N) - t0) / 1000000 ))" >>"$work/facts"
            return
        fi
        kill -0 "$server" 2>/dev/null || { echo "$name exited before it was ready; its log:" >&2; tail -20 "$work/$name.log" >&2; exit 1; }
        sleep 0.05
    done
    echo "$name not ready within 60 s; its log:" >&2; tail -20 "$work/$name.log" >&2; exit 1
}

# stop: SIGTERM to the server's process group, SIGKILL after 30 s
stop() {
    local pgid; pgid=$(ps -o pgid= -p "$server" | tr -d ' ')
    kill -TERM -- "-$pgid" 2>/dev/null || true
    for _ in $(seq 150); do kill -0 "$server" 2>/dev/null || break; sleep 0.2; done
    kill -KILL -- "-$pgid" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    server=
}
