#!/usr/bin/env python3
"""Helpers for test scripts that check what tests/otel/receiver.py received.

Standard library only, so any Python 3.10+ can import it (the receiver itself
needs the venv of scripts/install-tools.sh). The records are the receiver's
flattened spans, metric data points and log records: see its docstring for
their keys.

    import sys; sys.path.insert(0, "tests/otel")
    import otlp

    with otlp.Receiver() as rx:                       # receiver.py as a child process
        run_the_server(otlp_endpoint=rx.base_url)     # e.g. OTEL_EXPORTER_OTLP_ENDPOINT
        spans = otlp.wait_for_spans(rx.base_url, "tools/call add", kind="SERVER")
        print(otlp.span_tree(otlp.by_trace(rx.dump()["spans"])[spans[0]["trace_id"]]))

Filters (find_spans, find_metrics, find_logs and the wait_for_* helpers) take
`attrs`, a dict of attribute values the record must have; a value of `...`
(Ellipsis) only asks for the key to be present.

From a shell, against a running receiver:

    python3 tests/otel/otlp.py tree    http://127.0.0.1:PORT   # the span trees
    python3 tests/otel/otlp.py summary http://127.0.0.1:PORT   # everything, briefly
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Iterable

HERE = os.path.dirname(os.path.abspath(__file__))
RECEIVER = os.path.join(HERE, "receiver.py")

# Test traffic stays on 127.0.0.1: never go through a proxy from the environment.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


# ---------------------------------------------------------------- the receiver's endpoints
def _request(method: str, url: str, timeout: float) -> Any:
    req = urllib.request.Request(url, method=method, data=b"" if method == "POST" else None)
    with _OPENER.open(req, timeout=timeout) as resp:
        return json.loads(resp.read())


def fetch_dump(base_url: str, timeout: float = 10.0) -> dict:
    """GET <base_url>/__dump: {"spans", "metrics", "logs", "requests"}."""
    return _request("GET", base_url.rstrip("/") + "/__dump", timeout)


def reset(base_url: str, timeout: float = 10.0) -> None:
    """POST <base_url>/__reset: the receiver forgets everything it received."""
    _request("POST", base_url.rstrip("/") + "/__reset", timeout)


class Receiver:
    """tests/otel/receiver.py as a child process (stopped by stop() or on
    leaving a `with` block; it also exits when this process dies, as its
    stdin is our pipe, and after max_seconds in any case)."""

    def __init__(self, python: str = sys.executable, max_seconds: float = 300, quiet: bool = True,
                 http_port: int = 0, grpc_port: int = 0) -> None:
        args = [python, RECEIVER, "--http-port", str(http_port), "--grpc-port", str(grpc_port),
                "--max-seconds", str(max_seconds), "--exit-on-stdin-eof"] + (["--quiet"] if quiet else [])
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        ports = {}
        for _ in range(2):  # "HTTP <port>" then "GRPC <port>", once both listen (or nothing: it died)
            line = self.proc.stdout.readline().split()
            if len(line) != 2 or line[0] not in ("HTTP", "GRPC"):
                self.proc.kill()
                raise RuntimeError(f"the OTLP receiver did not start: {line!r}\n{self.proc.stderr.read()}")
            ports[line[0]] = int(line[1])
        self.http_port, self.grpc_port = ports["HTTP"], ports["GRPC"]
        self.base_url = f"http://127.0.0.1:{self.http_port}"       # OTLP/HTTP base (+ /v1/traces ...)
        self.grpc_endpoint = f"http://127.0.0.1:{self.grpc_port}"  # OTLP/gRPC endpoint

    def signal_url(self, signal: str) -> str:
        """The OTLP/HTTP URL of "traces", "metrics" or "logs"."""
        return f"{self.base_url}/v1/{signal}"

    def dump(self) -> dict:
        return fetch_dump(self.base_url)

    def reset(self) -> None:
        reset(self.base_url)

    def stop(self) -> tuple[int, str]:
        """Stops the receiver: (its exit code, its stderr)."""
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()  # --exit-on-stdin-eof: it exits by itself
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        return self.proc.returncode, self.proc.stderr.read()

    def __enter__(self) -> Receiver:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


# ---------------------------------------------------------------- finding records
def attrs_match(have: dict, want: dict | None) -> bool:
    """Every key of `want` is in `have` with that value (`...` = any value)."""
    return all(k in have and (v is ... or have[k] == v) for k, v in (want or {}).items())


def service(record: dict) -> str | None:
    """The service.name of a record's resource."""
    return record.get("resource", {}).get("service.name")


def find_spans(spans: Iterable[dict], name: str | None = None, *, kind: str | None = None,
               service_name: str | None = None, attrs: dict | None = None,
               trace_id: str | None = None, status: str | None = None) -> list[dict]:
    """The spans with that name, kind ("SERVER", ...), service.name, attributes,
    trace id and status code ("OK", "ERROR", "UNSET"); None = any."""
    return [s for s in spans
            if (name is None or s["name"] == name)
            and (kind is None or s["kind"] == kind)
            and (service_name is None or service(s) == service_name)
            and (trace_id is None or s["trace_id"] == trace_id)
            and (status is None or s["status"]["code"] == status)
            and attrs_match(s["attributes"], attrs)]


def find_span(spans: Iterable[dict], name: str | None = None, **filters: Any) -> dict:
    """The one span find_spans() finds; AssertionError (listing the spans there
    are) when it finds none or several."""
    spans = list(spans)
    found = find_spans(spans, name, **filters)
    if len(found) != 1:
        raise AssertionError(f"expected one span {name!r} {filters or ''}, found {len(found)}; "
                             f"the spans are:\n{span_tree(spans) or '  (none)'}")
    return found[0]


def by_trace(spans: Iterable[dict]) -> dict[str, list[dict]]:
    """The spans grouped by trace id, each trace's spans in start order, the
    traces in the order they started."""
    groups: dict[str, list[dict]] = {}
    for s in sorted(spans, key=lambda s: (s["start_ns"], s["end_ns"])):
        groups.setdefault(s["trace_id"], []).append(s)
    return groups


def children(spans: Iterable[dict], parent: dict) -> list[dict]:
    """The spans whose parent is `parent`, in start order."""
    return sorted((s for s in spans if s["trace_id"] == parent["trace_id"]
                   and s["parent_span_id"] == parent["span_id"]), key=lambda s: s["start_ns"])


def roots(spans: Iterable[dict]) -> list[dict]:
    """The spans whose parent is not among `spans` (trace roots, and spans
    whose parent was not received or is remote), in start order."""
    spans = list(spans)
    present = {(s["trace_id"], s["span_id"]) for s in spans}
    return sorted((s for s in spans if (s["trace_id"], s["parent_span_id"]) not in present),
                  key=lambda s: s["start_ns"])


def find_metrics(metrics: Iterable[dict], name: str | None = None, *, type: str | None = None,  # noqa: A002
                 service_name: str | None = None, attrs: dict | None = None) -> list[dict]:
    """The metric data points with that metric name, type ("histogram", "sum",
    "gauge", "exponential_histogram", "summary"), service.name and attributes."""
    return [m for m in metrics
            if (name is None or m["name"] == name)
            and (type is None or m["type"] == type)
            and (service_name is None or service(m) == service_name)
            and attrs_match(m["attributes"], attrs)]


def find_logs(logs: Iterable[dict], *, event_name: str | None = None, service_name: str | None = None,
              attrs: dict | None = None, trace_id: str | None = None) -> list[dict]:
    """The log records with that event name, service.name, attributes and trace id."""
    return [r for r in logs
            if (event_name is None or r["event_name"] == event_name)
            and (service_name is None or service(r) == service_name)
            and (trace_id is None or r["trace_id"] == trace_id)
            and attrs_match(r["attributes"], attrs)]


def problems(dump: dict) -> list[str]:
    """What went wrong in the received requests: each refused request's error
    and each problem the receiver noticed in an accepted one."""
    out = []
    for r in dump["requests"]:
        where = f"request #{r['index']} ({r['protocol']} {r['path']})"
        if not r["ok"]:
            out.append(f"{where} refused: {r['error']}")
        out.extend(f"{where}: {p}" for p in r["problems"])
    return out


# ---------------------------------------------------------------- rendering
def _short(value: Any, max_value: int) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= max_value else text[: max_value - 3] + "..."


def _span_line(s: dict, attrs: Iterable[str] | None, max_value: int) -> str:
    parts = [s["name"], f"[{s['kind']} {service(s) or '?'}]", f"{(s['end_ns'] - s['start_ns']) / 1e6:.3f} ms"]
    if s["status"]["code"] != "UNSET":
        parts.append(s["status"]["code"] + (f"({s['status']['message']})" if s["status"]["message"] else ""))
    keys = sorted(s["attributes"]) if attrs is None else [k for k in attrs if k in s["attributes"]]
    parts.extend(f"{k}={_short(s['attributes'][k], max_value)}" for k in keys)
    if s["events"]:
        parts.append("events=" + ",".join(e["name"] for e in s["events"]))
    if s["links"]:
        parts.append("links=" + ",".join(f"{ln['trace_id'][:8]}/{ln['span_id'][:8]}" for ln in s["links"]))
    return "  ".join(parts)


def span_tree(spans: Iterable[dict], attrs: Iterable[str] | None = None, max_value: int = 80) -> str:
    """An indented tree per trace of `spans` (one trace, usually): per span its
    name, [kind service.name], duration, status when set, attributes (all of
    them sorted, or only the keys of `attrs`, values cut at max_value
    characters), event names and links. A span whose parent was not received
    is shown as a root, marked so."""
    spans = list(spans)
    attrs = list(attrs) if attrs is not None else None
    lines: list[str] = []

    def walk(span: dict, depth: int, seen: set) -> None:
        seen.add(span["span_id"])
        lines.append("  " * depth + _span_line(span, attrs, max_value))
        for child in children(spans, span):
            if child["span_id"] not in seen:  # a cycle would be a bug of the sender: do not loop
                walk(child, depth + 1, seen)

    for trace_id, group in by_trace(spans).items():
        lines.append(f"trace {trace_id} ({len(group)} span{'s' if len(group) != 1 else ''})")
        for root in roots(group):
            if root["parent_span_id"]:
                lines.append(f"  (parent {root['parent_span_id']} not received)")
            walk(root, 2 if root["parent_span_id"] else 1, set())
    return "\n".join(lines)


def _metric_line(m: dict) -> str:
    head = f"{m['name']} [{m['type']} {service(m) or '?'}]" + (f" unit={m['unit']}" if m["unit"] else "")
    attrs = " ".join(f"{k}={_short(v, 40)}" for k, v in sorted(m["attributes"].items()))
    if m["type"] in ("sum", "gauge"):
        body = f"value={m['value']}"
    elif m["type"] == "histogram":
        body = f"count={m['count']} sum={m['sum']} buckets={m['bucket_counts']} bounds={m['explicit_bounds']}"
    else:
        body = f"count={m['count']} sum={m['sum']}"
    return f"{head} {body} {attrs}".rstrip()


def summary(dump: dict) -> str:
    """Everything in a dump, briefly: for failure messages and test logs."""
    refused = sum(1 for r in dump["requests"] if not r["ok"])
    lines = [f"{len(dump['requests'])} export requests ({refused} refused), {len(dump['spans'])} spans, "
             f"{len(dump['metrics'])} metric points, {len(dump['logs'])} log records"]
    if dump["spans"]:
        lines.append(span_tree(dump["spans"], max_value=60))
    lines.extend("metric " + _metric_line(m) for m in dump["metrics"])
    lines.extend(f"log {r['severity_text'] or r['severity_number']} {_short(r['body'], 60)} [{service(r) or '?'}]"
                 for r in dump["logs"])
    lines.extend("problem: " + p for p in problems(dump))
    return "\n".join(lines)


# ---------------------------------------------------------------- waiting
def wait_for(base_url: str, predicate: Callable[[dict], Any], timeout: float = 10.0,
             what: str = "the condition", interval: float = 0.05) -> dict:
    """Polls the dump until predicate(dump) is truthy, and returns that dump.
    After `timeout` seconds raises AssertionError naming `what` and showing
    everything that was received (exporters batch: expect a delay)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            dump = fetch_dump(base_url)
        except (OSError, urllib.error.URLError) as e:
            raise AssertionError(f"waiting for {what}: the receiver at {base_url} does not answer: {e}") from None
        if predicate(dump):
            return dump
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}; received:\n{summary(dump)}")
        time.sleep(interval)


def _describe(count: int, noun: str, name: str | None, filters: dict) -> str:
    """E.g. "at least 2 span(s) 'tools/call' with kind='SERVER'"."""
    text = f"at least {count} {noun}(s)" + (f" {name!r}" if name is not None else "")
    return text + (" with " + ", ".join(f"{k}={v!r}" for k, v in filters.items()) if filters else "")


def wait_for_spans(base_url: str, name: str | None = None, *, count: int = 1, timeout: float = 10.0,
                   **filters: Any) -> list[dict]:
    """Waits until at least `count` spans match find_spans(name, **filters), and returns them all."""
    dump = wait_for(base_url, lambda d: len(find_spans(d["spans"], name, **filters)) >= count, timeout,
                    _describe(count, "span", name, filters))
    return find_spans(dump["spans"], name, **filters)


def wait_for_metrics(base_url: str, name: str | None = None, *, count: int = 1, timeout: float = 10.0,
                     **filters: Any) -> list[dict]:
    """Waits until at least `count` data points match find_metrics(name, **filters), and returns them all."""
    dump = wait_for(base_url, lambda d: len(find_metrics(d["metrics"], name, **filters)) >= count, timeout,
                    _describe(count, "metric point", name, filters))
    return find_metrics(dump["metrics"], name, **filters)


def wait_for_logs(base_url: str, *, count: int = 1, timeout: float = 10.0, **filters: Any) -> list[dict]:
    """Waits until at least `count` log records match find_logs(**filters), and returns them all."""
    dump = wait_for(base_url, lambda d: len(find_logs(d["logs"], **filters)) >= count, timeout,
                    _describe(count, "log record", None, filters))
    return find_logs(dump["logs"], **filters)


def settle(base_url: str, quiet: float = 0.5, timeout: float = 10.0) -> dict:
    """Waits until no export request has arrived for `quiet` seconds, and
    returns the dump: to check that something was NOT sent, or that a count
    is final, once the exporters have had their chance."""
    deadline = time.monotonic() + timeout
    dump = fetch_dump(base_url)
    last_count, last_change = len(dump["requests"]), time.monotonic()
    while True:
        time.sleep(min(0.05, quiet))
        dump = fetch_dump(base_url)
        now = time.monotonic()
        if len(dump["requests"]) != last_count:
            last_count, last_change = len(dump["requests"]), now
        elif now - last_change >= quiet:
            return dump
        if now >= deadline:
            raise AssertionError(f"export requests still arriving after {timeout:g} s; received:\n{summary(dump)}")


# ---------------------------------------------------------------- command line
def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("tree", "summary", "dump"):
        sys.stderr.write("usage: otlp.py tree|summary|dump http://127.0.0.1:PORT\n")
        return 2
    dump = fetch_dump(argv[1])
    if argv[0] == "tree":
        print(span_tree(dump["spans"]) or "(no spans)")
    elif argv[0] == "summary":
        print(summary(dump))
    else:
        print(json.dumps(dump, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
