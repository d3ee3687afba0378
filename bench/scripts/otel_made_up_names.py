#!/usr/bin/env python3
"""What made-up names cost a server that records metrics (issue 34, point 3).

Starts the calculator example over HTTP on 127.0.0.1 with the Prometheus
exporter (OTEL_METRICS_EXPORTER=prometheus, no trace export), opens a legacy
session, then calls N tools that do not exist, each named by a distinct
string of SIZE bytes. Prints the server's resident memory (VmRSS) and the
size of GET /metrics before and after, then stops the server.

    bench/scripts/otel_made_up_names.py target/debug/calculator [--names 1000] [--size 3145728]

--max-rss-mib stops early (and says so) when the server grows past it, so
that a build that keeps every name does not take the machine's memory;
--no-metrics skips reading /metrics at the end (a build that keeps every
name lists each in 17 lines: with names of megabytes, gigabytes of text).
Only loopback traffic; nothing is asserted (tests never assert memory).
"""

import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def post(port, body, session=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    if session:
        headers["Mcp-Session-Id"] = session
        headers["MCP-Protocol-Version"] = "2025-11-25"
    conn.request("POST", "/mcp", body=json.dumps(body).encode(), headers=headers)
    r = conn.getresponse()
    r.read()
    sid = r.getheader("Mcp-Session-Id")
    conn.close()
    return r.status, sid


def metrics_size(port):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", "/metrics")
    body = conn.getresponse().read()
    conn.close()
    return len(body)


def wait_until_serving(port, proc):
    for _ in range(200):
        if proc.poll() is not None:
            sys.exit(f"the server exited ({proc.returncode})")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit("the server did not start")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("calculator")
    ap.add_argument("--names", type=int, default=1000)
    ap.add_argument("--size", type=int, default=3 * 1024 * 1024)
    ap.add_argument("--max-rss-mib", type=float, default=6000)
    ap.add_argument("--no-metrics", action="store_true")
    args = ap.parse_args()

    port = free_port()
    env = dict(os.environ, OTEL_METRICS_EXPORTER="prometheus", OTEL_TRACES_EXPORTER="none")
    env.pop("OTEL_EXPORTER_OTLP_ENDPOINT", None)
    env.pop("OTEL_SDK_DISABLED", None)
    proc = subprocess.Popen(
        [args.calculator, "--http", f"127.0.0.1:{port}"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_until_serving(port, proc)
        _, sid = post(port, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "made-up-names", "version": "0"}}})
        post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
        post(port, {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}, sid)
        before = (rss_mib(proc.pid), metrics_size(port))
        sent = 0
        started = time.monotonic()
        for i in range(args.names):
            prefix = f"made-up-{i}-"
            name = prefix + "x" * max(0, args.size - len(prefix))
            post(port, {"jsonrpc": "2.0", "id": i + 2, "method": "tools/call",
                        "params": {"name": name, "arguments": {}}}, sid)
            sent += 1
            if sent % 100 == 0:
                print(f"  after {sent:4d} names: RSS {rss_mib(proc.pid):8.1f} MiB", flush=True)
            if rss_mib(proc.pid) > args.max_rss_mib:
                print(f"stopped after {sent} names: the server passed {args.max_rss_mib:.0f} MiB")
                break
        elapsed = time.monotonic() - started
        print(f"{args.calculator}: {sent} made-up names of {args.size} bytes in {elapsed:.1f} s")
        print(f"  RSS       {before[0]:8.1f} MiB -> {rss_mib(proc.pid):8.1f} MiB", flush=True)
        if not args.no_metrics:
            print(f"  /metrics  {before[1]:8d} B   -> {metrics_size(port):8d} B")
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    main()
