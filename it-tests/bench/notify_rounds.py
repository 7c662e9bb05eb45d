#!/usr/bin/env python3
"""NacosBench's config-notify-latency rounds from a client that costs next to nothing.

Two keep-alive connections over raw sockets: arm a long-poll with the current md5, wait --settle-ms,
publish a new content, and time from just before the publish is sent until the poll's answer has been
read (and, beside it, the publish's own answer). With no JVM on the client side, what it measures is
the server's part of NacosBench's figure. --warmup rounds run first, unrecorded and without the wait,
so the server's JIT has compiled the long-poll path before the recorded rounds.

    python3 it-tests/bench/notify_rounds.py [--addr 127.0.0.1:8848] [--rounds 200] [--warmup 0]
"""
import argparse
import hashlib
import math
import select
import socket
import time
import urllib.parse


def connect(host, port):
    s = socket.create_connection((host, port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def post(s, path, form, headers=""):
    body = urllib.parse.urlencode(form).encode()
    s.sendall(("POST %s HTTP/1.1\r\nHost: bench\r\nContent-Type: application/x-www-form-urlencoded\r\n"
               "%sContent-Length: %d\r\n\r\n" % (path, headers, len(body))).encode() + body)


def read_answer(s):
    """Reads one HTTP/1.1 answer with a Content-Length; returns (status, body)."""
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            raise IOError("connection closed by the server")
        data += chunk
        if b"\r\n\r\n" in data:
            head, rest = data.split(b"\r\n\r\n", 1)
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            if len(rest) >= length:
                return int(head.split()[1]), rest[:length].decode()


def percentile(sorted_values, p):
    """Nearest rank, as NacosBench takes it."""
    return sorted_values[max(0, math.ceil(p * len(sorted_values)) - 1)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--addr", default="127.0.0.1:8848")
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=0, help="unrecorded rounds first, without the wait")
    ap.add_argument("--settle-ms", type=float, default=100)
    ap.add_argument("--data-id", default="bench-notify-rounds-%d" % int(time.time()))
    opt = ap.parse_args()
    host, port = opt.addr.rsplit(":", 1)
    poller, publisher = connect(host, int(port)), connect(host, int(port))
    config = {"dataId": opt.data_id, "group": "DEFAULT_GROUP"}

    current = "round -1"
    post(publisher, "/nacos/v1/cs/configs", dict(config, content=current))
    if read_answer(publisher) != (200, "true"):
        raise SystemExit("the initial publish failed")
    notify, publish = [], []
    for round_no in range(opt.warmup + opt.rounds):
        recorded = round_no >= opt.warmup
        md5 = hashlib.md5(current.encode()).hexdigest()
        post(poller, "/nacos/v1/cs/configs/listener",
             {"Listening-Configs": "%s\x02DEFAULT_GROUP\x02%s\x01" % (opt.data_id, md5)},
             "Long-Pulling-Timeout: 30000\r\n")
        if recorded:
            time.sleep(opt.settle_ms / 1000)
        current = "round %d" % round_no
        start = time.monotonic()
        post(publisher, "/nacos/v1/cs/configs", dict(config, content=current))
        answered = {}
        while len(answered) < 2:
            readable, _, _ = select.select([s for s in (poller, publisher) if s not in answered], [], [], 10)
            if not readable:
                raise SystemExit("round %d: no answer within 10 s" % round_no)
            for s in readable:
                status, body = read_answer(s)
                answered[s] = time.monotonic()
                if s is poller and (status != 200 or opt.data_id not in urllib.parse.unquote(body)):
                    raise SystemExit("round %d: the poll answered %d %r" % (round_no, status, body))
                if s is publisher and (status, body) != (200, "true"):
                    raise SystemExit("round %d: the publish answered %d %r" % (round_no, status, body))
        if recorded:
            notify.append((answered[poller] - start) * 1000)
            publish.append((answered[publisher] - start) * 1000)
    for name, values in (("notify", notify), ("publish", publish)):
        values.sort()
        print("%-8s rounds %d  p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms" % (
            name, len(values), percentile(values, .5), percentile(values, .9), percentile(values, .99), values[-1]))


if __name__ == "__main__":
    main()
