#!/usr/bin/env python3
"""An OTLP receiver for the OpenTelemetry export tests: it keeps what it gets.

It serves both OTLP transports on 127.0.0.1 -- OTLP/HTTP (protobuf and JSON
bodies) and OTLP/gRPC -- decodes every export request with the message classes
and gRPC service stubs of the official `opentelemetry-proto` package (pinned,
with `protobuf` and `grpcio`, by scripts/install-tools.sh), keeps every span,
metric data point and log record in memory, flattened to plain JSON values,
and serves them back to the test at GET /__dump. tests/otel/selftest.py
proves the decoding against the official OpenTelemetry Python SDK and its
OTLP exporters; tests/otel/otlp.py has the helpers test scripts read the
dump with.

Usage
-----
    .tools/pyenv/bin/python tests/otel/receiver.py [--http-port 0] [--grpc-port 0] \
        [--max-seconds 600] [--exit-on-stdin-eof] [--quiet]

A port of 0 (the default) takes a free port. Once both listen it prints two
lines on stdout (flushed), in this order:

    HTTP <port>
    GRPC <port>

so an exporter's endpoint is http://127.0.0.1:<HTTP port>/v1/traces (and
/v1/metrics, /v1/logs) for OTLP/HTTP, or http://127.0.0.1:<GRPC port> for
OTLP/gRPC. One line per export request goes to stderr (unless --quiet). It
exits on its own after --max-seconds (default 600; exit code 3) so it can
never outlive a test run, and with --exit-on-stdin-eof as soon as its stdin
closes (exit code 0: the test holds the pipe, so a test process that dies
takes the receiver with it).

OTLP/HTTP (the HTTP port)
-------------------------
  POST /v1/traces, /v1/metrics, /v1/logs
      content-type application/x-protobuf (binary protobuf) or application/json
      (OTLP/JSON: proto3 JSON mapping, except that trace and span ids are hex
      strings, as the OTLP specification requires); content-encoding gzip or
      none. Answered 200 with the Export{Trace,Metrics,Logs}ServiceResponse in
      the request's encoding. Refused: 400 (a body that does not decode, or an
      id whose length is neither 0 nor 16/8 bytes -- the OpenTelemetry
      Collector refuses those too) with a google.rpc.Status in the request's
      encoding, 415 (another content-type or content-encoding), 404 (another
      path), 405 (another method). Refused requests are recorded as well.
  GET  /__dump    everything received so far, as JSON (shape below)
  POST /__reset   forget everything received; answers {"ok": true}

OTLP/gRPC (the gRPC port)
-------------------------
  opentelemetry.proto.collector.{trace,metrics,logs}.v1.{Trace,Metrics,Logs}Service/Export
      plain-text HTTP/2 (no TLS), gzip message compression accepted. A request
      refused for a bad id is answered INVALID_ARGUMENT.

The dump
--------
  {"spans": [span...], "metrics": [point...], "logs": [record...], "requests": [request...]}

  span    {"trace_id", "span_id", "parent_span_id" (lowercase hex; "" when none),
           "trace_state", "flags", "name",
           "kind" ("INTERNAL" | "SERVER" | "CLIENT" | "PRODUCER" | "CONSUMER" | "UNSPECIFIED"),
           "start_ns", "end_ns",
           "status": {"code": "UNSET" | "OK" | "ERROR", "message"},
           "attributes": {key: value},
           "events": [{"name", "time_ns", "attributes"}],
           "links": [{"trace_id", "span_id", "trace_state", "attributes"}],
           "resource": {key: value}, "scope", "scope_version",
           "protocol" ("http" | "grpc"), "request" (index into "requests")}
  point   one per metric data point:
          {"name", "description", "unit",
           "type" ("histogram" | "sum" | "gauge" | "exponential_histogram" | "summary"),
           "resource", "scope", "scope_version", "attributes", "start_ns", "time_ns",
           "exemplars": [{"trace_id", "span_id", "time_ns", "value", "attributes"}],
           "protocol", "request"}
          and by type:
            histogram              "temporality" ("DELTA" | "CUMULATIVE" | "UNSPECIFIED"),
                                   "count", "sum", "min", "max" (null when absent),
                                   "bucket_counts", "explicit_bounds"
            sum                    "temporality", "is_monotonic", "value"
            gauge                  "value"
            exponential_histogram  "temporality", "count", "sum", "min", "max", "scale",
                                   "zero_count", "zero_threshold",
                                   "positive" / "negative": {"offset", "bucket_counts"}
            summary                "count", "sum", "quantile_values": [{"quantile", "value"}]
          ("value" is an int for as_int points, a float for as_double ones.)
  record  one per log record:
          {"time_ns", "observed_time_ns", "severity_number", "severity_text",
           "body", "attributes", "event_name", "trace_id", "span_id", "flags",
           "resource", "scope", "scope_version", "protocol", "request"}
  request one per export request, refused ones included, in arrival order:
          {"index", "protocol" ("http" | "grpc"), "signal" ("traces" | "metrics" |
           "logs"; null for an unknown HTTP path), "path" (for gRPC the method,
           e.g. "/opentelemetry.proto.collector.trace.v1.TraceService/Export"),
           "content_type" (the HTTP header without parameters, "application/grpc"
           for gRPC), "content_encoding" (the HTTP header, "" when none; null
           for gRPC, as grpcio does not show a servicer whether a message came
           compressed), "user_agent", "items" (spans,
           data points or log records it carried), "ok" (true when answered
           with success), "error" (why it was refused, else null),
           "problems" (what an exporter should not send but the receiver
           accepted: all-zero ids, end before start, repeated attribute keys,
           histogram buckets that do not add up, a metric with no data)}

  Attribute values (and log bodies) are plain JSON values: string, int,
  float, bool, lists of those, objects for key-value lists, null for an empty
  value; a bytes value is given as its lowercase hex.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import json
import os
import sys
import threading
import time
import traceback
from concurrent import futures
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

try:
    import grpc
    from google.protobuf import json_format
    from google.protobuf.message import Message

    from opentelemetry.proto.collector.logs.v1 import logs_service_pb2, logs_service_pb2_grpc
    from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2, metrics_service_pb2_grpc
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
    from opentelemetry.proto.metrics.v1 import metrics_pb2
    from opentelemetry.proto.trace.v1 import trace_pb2
except ImportError as e:  # pragma: no cover - environment problem, say so loudly
    sys.stderr.write(
        f"receiver.py: {e}\nthe OTLP receiver needs Python with opentelemetry-proto, protobuf and "
        "grpcio: run scripts/install-tools.sh and use .tools/pyenv/bin/python\n"
    )
    sys.exit(2)

try:  # google.rpc.Status, the OTLP/HTTP error body (googleapis-common-protos)
    from google.rpc import status_pb2
except ImportError:  # pragma: no cover - then errors are answered as text/plain
    status_pb2 = None

MAX_BODY = 64 * 1024 * 1024  # bytes, before and after gunzip
SOCKET_TIMEOUT_S = 30
CT_PROTOBUF = "application/x-protobuf"
CT_JSON = "application/json"
GRPC_INVALID_ARGUMENT = 3  # google.rpc.Code values (the gRPC status codes)
GRPC_INTERNAL = 13

QUIET = False


def log(msg: str) -> None:
    if not QUIET:
        sys.stderr.write(f"[otlp-receiver] {msg}\n")
        sys.stderr.flush()


class Refused(Exception):
    """The request is refused: answered 400 (HTTP) or INVALID_ARGUMENT (gRPC)."""


# ---------------------------------------------------------------- the signals
class Signal:
    """One OTLP signal: its request/response messages and its HTTP path."""

    def __init__(self, name: str, path: str, request: type[Message], response: type[Message]) -> None:
        self.name = name          # "traces", "metrics", "logs"
        self.path = path          # "/v1/traces", ...
        self.request = request    # Export*ServiceRequest
        self.response = response  # Export*ServiceResponse


TRACES = Signal("traces", "/v1/traces",
                trace_service_pb2.ExportTraceServiceRequest, trace_service_pb2.ExportTraceServiceResponse)
METRICS = Signal("metrics", "/v1/metrics",
                 metrics_service_pb2.ExportMetricsServiceRequest, metrics_service_pb2.ExportMetricsServiceResponse)
LOGS = Signal("logs", "/v1/logs",
              logs_service_pb2.ExportLogsServiceRequest, logs_service_pb2.ExportLogsServiceResponse)
SIGNAL_BY_PATH = {s.path: s for s in (TRACES, METRICS, LOGS)}


# ---------------------------------------------------------------- flattening
def enum_name(enum: Any, value: int, prefix: str) -> str:
    """The OTel name of a protobuf enum value: SPAN_KIND_SERVER -> SERVER.
    A value the enum does not know (a newer sender) is given as its number."""
    try:
        return enum.Name(value).removeprefix(prefix)
    except ValueError:
        return str(value)


class Flattener:
    """Turns one decoded export request into the dump's plain records, and
    collects the problems it notices on the way (see the module docstring)."""

    def __init__(self, protocol: str, request_index: int) -> None:
        self.protocol = protocol
        self.request_index = request_index
        self.problems: list[str] = []

    # ---- values
    def value(self, v: Any) -> Any:
        """An AnyValue as a plain JSON value."""
        which = v.WhichOneof("value")
        if which is None:
            return None
        if which == "array_value":
            return [self.value(x) for x in v.array_value.values]
        if which == "kvlist_value":
            return self.attributes(v.kvlist_value.values, "key-value list")
        if which == "bytes_value":
            return v.bytes_value.hex()
        if which == "string_value_strindex":  # profiles' string table; not used by the other signals
            return {"string_value_strindex": v.string_value_strindex}
        return getattr(v, which)  # string_value, bool_value, int_value, double_value

    def attributes(self, kvs: Any, where: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for kv in kvs:
            if kv.key in out:
                self.problems.append(f"{where}: attribute {kv.key!r} is repeated")
            out[kv.key] = self.value(kv.value)
        return out

    def id_hex(self, raw: bytes, size: int, what: str, where: str) -> str:
        """An id as lowercase hex; "" when absent. A length other than 0 or
        `size` is refused, all zeros (an invalid id) is a problem."""
        if len(raw) not in (0, size):
            raise Refused(f"{where}: {what} is {len(raw)} bytes, not {size}")
        if raw and raw == bytes(size):
            self.problems.append(f"{where}: {what} is all zeros")
        return raw.hex()

    def common(self, resource: Any, scope: Any) -> dict[str, Any]:
        return {
            "resource": self.attributes(resource.attributes, "resource"),
            "scope": scope.name,
            "scope_version": scope.version,
            "protocol": self.protocol,
            "request": self.request_index,
        }

    # ---- traces
    def spans(self, req: Any) -> list[dict]:
        out = []
        for rs in req.resource_spans:
            for ss in rs.scope_spans:
                common = self.common(rs.resource, ss.scope)
                for s in ss.spans:
                    out.append(self.span(s, common))
        return out

    def span(self, s: Any, common: dict) -> dict:
        where = f"span {s.name!r}"
        if s.end_time_unix_nano < s.start_time_unix_nano:
            self.problems.append(f"{where}: ends before it starts")
        trace_id = self.id_hex(s.trace_id, 16, "trace_id", where)
        span_id = self.id_hex(s.span_id, 8, "span_id", where)
        if not trace_id or not span_id:
            self.problems.append(f"{where}: has no trace_id or span_id")
        return {
            "trace_id": trace_id,
            "span_id": span_id,
            "parent_span_id": self.id_hex(s.parent_span_id, 8, "parent_span_id", where),
            "trace_state": s.trace_state,
            "flags": s.flags,
            "name": s.name,
            "kind": enum_name(trace_pb2.Span.SpanKind, s.kind, "SPAN_KIND_"),
            "start_ns": s.start_time_unix_nano,
            "end_ns": s.end_time_unix_nano,
            "status": {"code": enum_name(trace_pb2.Status.StatusCode, s.status.code, "STATUS_CODE_"),
                       "message": s.status.message},
            "attributes": self.attributes(s.attributes, where),
            "events": [{"name": e.name, "time_ns": e.time_unix_nano,
                        "attributes": self.attributes(e.attributes, f"{where} event {e.name!r}")}
                       for e in s.events],
            "links": [{"trace_id": self.id_hex(ln.trace_id, 16, "link trace_id", where),
                       "span_id": self.id_hex(ln.span_id, 8, "link span_id", where),
                       "trace_state": ln.trace_state,
                       "attributes": self.attributes(ln.attributes, f"{where} link")}
                      for ln in s.links],
            **common,
        }

    # ---- metrics
    def metrics(self, req: Any) -> list[dict]:
        out = []
        for rm in req.resource_metrics:
            for sm in rm.scope_metrics:
                common = self.common(rm.resource, sm.scope)
                for m in sm.metrics:
                    out.extend(self.metric(m, common))
        return out

    def metric(self, m: Any, common: dict) -> list[dict]:
        where = f"metric {m.name!r}"
        kind = m.WhichOneof("data")
        if kind is None:
            self.problems.append(f"{where}: has no data")
            return []
        data = getattr(m, kind)
        base = {"name": m.name, "description": m.description, "unit": m.unit, "type": kind, **common}
        if m.metadata:
            base["metadata"] = self.attributes(m.metadata, f"{where} metadata")
        temporality = {}
        if kind not in ("gauge", "summary"):  # the kinds with no aggregation_temporality
            temporality["temporality"] = enum_name(
                metrics_pb2.AggregationTemporality, data.aggregation_temporality, "AGGREGATION_TEMPORALITY_")
        out = []
        for p in data.data_points:
            point = {
                **base,
                "attributes": self.attributes(p.attributes, where),
                "start_ns": p.start_time_unix_nano,
                "time_ns": p.time_unix_nano,
                **temporality,
            }
            if kind != "summary":
                point["exemplars"] = [self.exemplar(e, where) for e in p.exemplars]
            point.update(getattr(self, f"points_{kind}")(p, where))
            if kind == "sum":
                point["is_monotonic"] = data.is_monotonic
            out.append(point)
        return out

    @staticmethod
    def number(p: Any) -> int | float | None:
        which = p.WhichOneof("value")
        return None if which is None else getattr(p, which)

    def exemplar(self, e: Any, where: str) -> dict:
        return {"trace_id": self.id_hex(e.trace_id, 16, "exemplar trace_id", where),
                "span_id": self.id_hex(e.span_id, 8, "exemplar span_id", where),
                "time_ns": e.time_unix_nano,
                "value": self.number(e),
                "attributes": self.attributes(e.filtered_attributes, f"{where} exemplar")}

    @staticmethod
    def optional(p: Any, field: str) -> float | None:
        return getattr(p, field) if p.HasField(field) else None

    def points_gauge(self, p: Any, where: str) -> dict:
        return {"value": self.number(p)}

    points_sum = points_gauge

    def points_histogram(self, p: Any, where: str) -> dict:
        counts, bounds = list(p.bucket_counts), list(p.explicit_bounds)
        if counts and len(counts) != len(bounds) + 1:
            self.problems.append(f"{where}: {len(counts)} bucket counts for {len(bounds)} bounds")
        if counts and sum(counts) != p.count:
            self.problems.append(f"{where}: bucket counts add up to {sum(counts)}, count is {p.count}")
        if bounds != sorted(bounds):
            self.problems.append(f"{where}: explicit bounds are not in increasing order")
        return {"count": p.count, "sum": self.optional(p, "sum"),
                "min": self.optional(p, "min"), "max": self.optional(p, "max"),
                "bucket_counts": counts, "explicit_bounds": bounds}

    def points_exponential_histogram(self, p: Any, where: str) -> dict:
        return {"count": p.count, "sum": self.optional(p, "sum"),
                "min": self.optional(p, "min"), "max": self.optional(p, "max"),
                "scale": p.scale, "zero_count": p.zero_count, "zero_threshold": p.zero_threshold,
                "positive": {"offset": p.positive.offset, "bucket_counts": list(p.positive.bucket_counts)},
                "negative": {"offset": p.negative.offset, "bucket_counts": list(p.negative.bucket_counts)}}

    def points_summary(self, p: Any, where: str) -> dict:
        return {"count": p.count, "sum": p.sum,
                "quantile_values": [{"quantile": q.quantile, "value": q.value} for q in p.quantile_values]}

    # ---- logs
    def logs(self, req: Any) -> list[dict]:
        out = []
        for rl in req.resource_logs:
            for sl in rl.scope_logs:
                common = self.common(rl.resource, sl.scope)
                for r in sl.log_records:
                    where = f"log record {r.event_name or r.severity_text!r}"
                    out.append({
                        "time_ns": r.time_unix_nano,
                        "observed_time_ns": r.observed_time_unix_nano,
                        "severity_number": r.severity_number,
                        "severity_text": r.severity_text,
                        "body": self.value(r.body),
                        "attributes": self.attributes(r.attributes, where),
                        "event_name": r.event_name,
                        "trace_id": self.id_hex(r.trace_id, 16, "trace_id", where),
                        "span_id": self.id_hex(r.span_id, 8, "span_id", where),
                        "flags": r.flags,
                        **common,
                    })
        return out


# ---------------------------------------------------------------- the store
class Outcome:
    """How one export request was taken: `error` is None when it was accepted;
    `internal` marks a failure of the receiver itself (answered 500 / INTERNAL)."""

    def __init__(self, error: str | None = None, internal: bool = False) -> None:
        self.error = error
        self.internal = internal


class Store:
    """Everything received, behind one lock (both servers' threads write it)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.spans: list[dict] = []
        self.metrics: list[dict] = []
        self.logs: list[dict] = []
        self.requests: list[dict] = []

    def reset(self) -> None:
        with self.lock:
            self.spans, self.metrics, self.logs, self.requests = [], [], [], []

    def dump(self) -> dict:
        # Records are never changed once stored; request entries are (under
        # the lock, when their request is done), so those are copied.
        with self.lock:
            return {"spans": list(self.spans), "metrics": list(self.metrics),
                    "logs": list(self.logs), "requests": [dict(r) for r in self.requests]}

    def record(self, protocol: str, signal: Signal | None, path: str, content_type: str,
               content_encoding: str | None, user_agent: str, decode: Callable[[], Message]) -> Outcome:
        """Records one export request and, when it is accepted, what it carried.
        `decode` gives its Export*ServiceRequest, raising Refused (or any
        decoding error) when it cannot."""
        with self.lock:
            index = len(self.requests)
            entry = {"index": index, "protocol": protocol, "signal": signal.name if signal else None,
                     "path": path, "content_type": content_type, "content_encoding": content_encoding,
                     "user_agent": user_agent, "items": 0, "ok": False, "error": None, "problems": []}
            self.requests.append(entry)
        flat = Flattener(protocol, index)
        items: list[dict] = []
        outcome = Outcome()
        try:
            message = decode()
        except Refused as e:
            outcome.error = str(e)
        except Exception as e:  # noqa: BLE001 - DecodeError, json_format.ParseError, TypeError...
            outcome.error = f"the body is not a valid {signal.request.DESCRIPTOR.name}: {type(e).__name__}: {e}"
        else:
            try:
                items = {"traces": flat.spans, "metrics": flat.metrics, "logs": flat.logs}[signal.name](message)
            except Refused as e:
                outcome.error = str(e)
            except Exception as e:  # noqa: BLE001 - a bug of ours: say so, loudly
                outcome = Outcome(f"receiver error: {type(e).__name__}: {e}", internal=True)
                sys.stderr.write(f"[otlp-receiver] #{index}: {traceback.format_exc()}")
        with self.lock:
            entry.update(items=len(items) if outcome.error is None else 0, ok=outcome.error is None,
                         error=outcome.error, problems=flat.problems)
            if outcome.error is None:
                {"traces": self.spans, "metrics": self.metrics, "logs": self.logs}[signal.name].extend(items)
        noun = {"traces": "spans", "metrics": "metric points", "logs": "log records"}.get(signal.name if signal else "")
        what = f"{len(items)} {noun}" if outcome.error is None else f"refused: {outcome.error}"
        problems = f" (problems: {'; '.join(flat.problems)})" if flat.problems else ""
        log(f"#{index} {protocol} {path} {content_type} {content_encoding or '-'} -> {what}{problems}")
        return outcome


STORE = Store()


# ---------------------------------------------------------------- OTLP/JSON
ID_KEYS = {"traceId", "spanId", "parentSpanId", "trace_id", "span_id", "parent_span_id"}


def hex_ids_to_base64(node: Any) -> Any:
    """OTLP/JSON writes trace and span ids as hex, where the proto3 JSON
    mapping (json_format) expects base64 for bytes: rewrite them in place.
    Only object keys are looked at, so attribute *values* named like an id
    field are left alone."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ID_KEYS and isinstance(value, str):
                try:
                    node[key] = base64.b64encode(bytes.fromhex(value)).decode()
                except ValueError:
                    raise Refused(f"OTLP/JSON {key} {value!r} is not hex") from None
            else:
                hex_ids_to_base64(value)
    elif isinstance(node, list):
        for item in node:
            hex_ids_to_base64(item)
    return node


def parse_body(signal: Signal, body: bytes, content_type: str) -> Message:
    if content_type == CT_JSON:
        try:
            tree = json.loads(body)
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise Refused(f"the body is not JSON: {e}") from None
        # Receivers must ignore unknown fields (OTLP spec, "JSON Protobuf Encoding").
        return json_format.ParseDict(hex_ids_to_base64(tree), signal.request(), ignore_unknown_fields=True)
    return signal.request.FromString(body)


# ---------------------------------------------------------------- OTLP/HTTP
class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as exporters' HTTP clients expect
    timeout = SOCKET_TIMEOUT_S
    server_version = "otlp-receiver/1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - base class signature
        pass  # export requests are logged by Store.record instead

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            body = b""
            while True:
                size = int(self.rfile.readline(1024).split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return body
                body += self.rfile.read(size)
                self.rfile.readline(8)
                if len(body) > MAX_BODY:
                    raise Refused("request body too large")
        length = int(self.headers.get("content-length") or 0)
        if length > MAX_BODY:
            raise Refused("request body too large")
        return self.rfile.read(length) if length else b""

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _send_json(self, status: int, obj: Any) -> None:
        self._send(status, json.dumps(obj).encode(), CT_JSON)

    def _send_status(self, http_status: int, message: str, content_type: str) -> None:
        """An OTLP/HTTP error: a google.rpc.Status in the request's encoding."""
        if status_pb2 is None:
            self._send(http_status, message.encode(), "text/plain; charset=utf-8")
            return
        code = GRPC_INTERNAL if http_status >= 500 else GRPC_INVALID_ARGUMENT
        status = status_pb2.Status(code=code, message=message)
        if content_type == CT_JSON:
            self._send(http_status, json_format.MessageToJson(status).encode(), CT_JSON)
        else:
            self._send(http_status, status.SerializeToString(), CT_PROTOBUF)

    def do_GET(self) -> None:  # noqa: N802 - base class naming
        path = self.path.split("?", 1)[0]
        if path == "/__dump":
            self._send_json(200, STORE.dump())
        elif path in SIGNAL_BY_PATH:
            self._send(405, b"OTLP export requests are POSTs\n", "text/plain; charset=utf-8")
        else:
            self._send(404, b"not found\n", "text/plain; charset=utf-8")

    def do_POST(self) -> None:  # noqa: N802 - base class naming
        path = self.path.split("?", 1)[0]
        try:
            body = self._read_body()
        except (Refused, ValueError) as e:
            self.close_connection = True
            self._send(400, f"{e}\n".encode(), "text/plain; charset=utf-8")
            return
        if path == "/__reset":
            STORE.reset()
            log("reset")
            self._send_json(200, {"ok": True})
            return

        signal = SIGNAL_BY_PATH.get(path)
        content_type = self.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        encoding = self.headers.get("content-encoding", "").strip().lower()
        user_agent = self.headers.get("user-agent", "")

        # Requests that never reach decoding are recorded too: an exporter
        # posting to the wrong path or with the wrong headers is what a test
        # wants to see in the dump.
        def refuse(why: str) -> Callable[[], Message]:
            def refused() -> Message:
                raise Refused(why)
            return refused

        if signal is None:
            outcome = STORE.record("http", None, path, content_type, encoding, user_agent,
                                   refuse(f"no OTLP endpoint at {path}"))
            self._send(404, f"{outcome.error}\n".encode(), "text/plain; charset=utf-8")
            return
        if content_type not in (CT_PROTOBUF, CT_JSON) or encoding not in ("", "identity", "gzip"):
            outcome = STORE.record("http", signal, path, content_type, encoding, user_agent, refuse(
                f"unsupported content-type {content_type!r} or content-encoding {encoding!r}"))
            self._send(415, f"{outcome.error}\n".encode(), "text/plain; charset=utf-8")
            return

        def decode() -> Message:
            data = body
            if encoding == "gzip":
                try:
                    data = gzip.decompress(body)
                except (OSError, EOFError) as e:
                    raise Refused(f"the body is not gzip: {e}") from None
                if len(data) > MAX_BODY:
                    raise Refused("request body too large once decompressed")
            return parse_body(signal, data, content_type)

        outcome = STORE.record("http", signal, path, content_type, encoding, user_agent, decode)
        if outcome.error is not None:
            self._send_status(500 if outcome.internal else 400, outcome.error, content_type)
        elif content_type == CT_JSON:
            self._send(200, json_format.MessageToJson(signal.response()).encode(), CT_JSON)
        else:
            self._send(200, signal.response().SerializeToString(), CT_PROTOBUF)

    def do_PUT(self) -> None:  # noqa: N802 - base class naming
        self._send(405, b"method not allowed\n", "text/plain; charset=utf-8")

    do_DELETE = do_PATCH = do_PUT


class HttpServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


# ---------------------------------------------------------------- OTLP/gRPC
class GrpcExport:
    """The Export method of one signal's gRPC service (the same servicer
    object is registered for TraceService, MetricsService and LogsService,
    each through its own generated add_*Servicer_to_server)."""

    def __init__(self, signal: Signal) -> None:
        self.signal = signal

    def Export(self, request: Message, context: grpc.ServicerContext) -> Message:  # noqa: N802 - gRPC naming
        metadata = dict(context.invocation_metadata())
        service = self.signal.request.DESCRIPTOR.file.package  # opentelemetry.proto.collector.<signal>.v1
        name = {"traces": "TraceService", "metrics": "MetricsService", "logs": "LogsService"}[self.signal.name]
        # grpcio hides the reserved headers (content-type, grpc-encoding) from
        # servicers and decompresses before them: the content type is the
        # protocol's own and the encoding cannot be known (null).
        outcome = STORE.record(
            "grpc", self.signal, f"/{service}.{name}/Export", "application/grpc", None,
            metadata.get("user-agent", ""), lambda: request)
        if outcome.error is not None:
            context.abort(grpc.StatusCode.INTERNAL if outcome.internal else grpc.StatusCode.INVALID_ARGUMENT,
                          outcome.error)
        return self.signal.response()


def start_grpc(port: int) -> tuple[grpc.Server, int]:
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=8),
        # Without this a fixed --grpc-port could be shared with another process.
        options=[("grpc.so_reuseport", 0), ("grpc.max_receive_message_length", MAX_BODY)],
    )
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(GrpcExport(TRACES), server)
    metrics_service_pb2_grpc.add_MetricsServiceServicer_to_server(GrpcExport(METRICS), server)
    logs_service_pb2_grpc.add_LogsServiceServicer_to_server(GrpcExport(LOGS), server)
    try:
        bound = server.add_insecure_port(f"127.0.0.1:{port}")
    except RuntimeError as e:  # grpcio raises when the address cannot be bound
        raise OSError(f"cannot listen on 127.0.0.1:{port} for gRPC: {e}") from None
    if bound == 0:
        raise OSError(f"cannot listen on 127.0.0.1:{port} for gRPC")
    server.start()
    return server, bound


# ---------------------------------------------------------------- main
def main() -> None:
    global QUIET
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--http-port", type=int, default=0, help="OTLP/HTTP port (0 = a free one)")
    parser.add_argument("--grpc-port", type=int, default=0, help="OTLP/gRPC port (0 = a free one)")
    parser.add_argument("--max-seconds", type=float, default=600, help="exit after this long (default 600)")
    parser.add_argument("--exit-on-stdin-eof", action="store_true", help="exit when stdin closes")
    parser.add_argument("--quiet", action="store_true", help="no per-request log on stderr")
    args = parser.parse_args()
    QUIET = args.quiet

    try:
        http_server = HttpServer(("127.0.0.1", args.http_port), Handler)
        _grpc_server, grpc_port = start_grpc(args.grpc_port)
    except OSError as e:
        sys.stderr.write(f"receiver.py: {e}\n")
        sys.exit(2)

    def lifetime_cap() -> None:
        time.sleep(args.max_seconds)
        sys.stderr.write(f"[otlp-receiver] --max-seconds {args.max_seconds:g} reached: exiting\n")
        sys.stderr.flush()
        os._exit(3)

    threading.Thread(target=lifetime_cap, daemon=True).start()
    if args.exit_on_stdin_eof:
        def stdin_watch() -> None:
            while sys.stdin.buffer.read(4096):
                pass
            os._exit(0)
        threading.Thread(target=stdin_watch, daemon=True).start()

    http_port = http_server.server_address[1]
    print(f"HTTP {http_port}\nGRPC {grpc_port}", flush=True)
    log(f"listening: OTLP/HTTP on 127.0.0.1:{http_port}, OTLP/gRPC on 127.0.0.1:{grpc_port}")
    try:
        http_server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
