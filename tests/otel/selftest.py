#!/usr/bin/env python3
"""Self-test of tests/otel/receiver.py against the official OpenTelemetry SDK.

    .tools/pyenv/bin/python tests/otel/selftest.py

Makes telemetry with the official OpenTelemetry Python SDK (`opentelemetry-sdk`,
pinned by scripts/install-tools.sh) -- a trace with a SERVER span, its CLIENT
child and a linked span, attributes of every type, an ERROR status with a
message, an event; a histogram with explicit bounds and an exemplar, an
exponential histogram, a counter and a gauge; a log record in the server
span's context -- then exports it to the receiver (a subprocess) through each
official OTLP exporter, HTTP/protobuf and gRPC, uncompressed and gzipped,
and checks every field of the receiver's dump against what the SDK made:
ids, parent relation, kinds, times, status, attributes, events, links,
resource and scope; histogram count, sum, min, max, buckets, bounds and
attributes; the requests' protocol, content type and encoding. Then the same
telemetry as OTLP/JSON (the SDK's own protobuf encoding turned into OTLP/JSON
with hex ids) must give the same dump, and the receiver must refuse what is
malformed (bad bodies, base64 ids in JSON, ids of the wrong length, unknown
paths and content types), answer errors in the OTLP shape, and never
outlive its test (stdin EOF, --max-seconds) nor share a port.

Prints one PASS/FAIL line per check and exits non-zero, naming the failed
checks, if any check fails. Takes a few seconds.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Any, Callable

import grpc
from google.protobuf import json_format
from google.rpc import status_pb2
from opentelemetry import trace
from opentelemetry._logs import SeverityNumber
from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
from opentelemetry.exporter.otlp.proto.common.metrics_encoder import encode_metrics
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.grpc._log_exporter import OTLPLogExporter as GrpcLogExporter
from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import OTLPMetricExporter as GrpcMetricExporter
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcSpanExporter
from opentelemetry.exporter.otlp.proto.http import Compression as HttpCompression
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter as HttpLogExporter
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter as HttpMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpSpanExporter
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import (
    InMemoryLogRecordExporter, LogRecordExportResult, SimpleLogRecordProcessor)
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader, MetricExportResult
from opentelemetry.sdk.metrics.view import (
    ExplicitBucketHistogramAggregation, ExponentialBucketHistogramAggregation, View)
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Link, SpanKind, Status, StatusCode

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import otlp  # noqa: E402 - the helpers next to this file

FAILED: list[str] = []
EXPORT_TIMEOUT_S = 5  # per export call; a healthy local export takes milliseconds
RESOURCE = {"service.name": "otel-selftest", "service.version": "1.2.3", "deployment.environment.name": "test"}
SCOPE, SCOPE_VERSION = "mcp.selftest", "0.9.0"
BOUNDS = [0.0, 5.0, 10.0, 100.0]
ADD_VALUES = [0.5, 3, 7, 7, 42, 250]  # recorded with {"tool": "add", "ok": True}


def check(name: str, fn: Callable[[], None]) -> None:
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - report every failure and go on
        FAILED.append(name)
        print(f"FAIL  {name}: {type(e).__name__}: {e}", flush=True)
    else:
        print(f"PASS  {name}", flush=True)


def expect(cond: bool, what: str) -> None:
    if not cond:
        raise AssertionError(what)


def expect_eq(have: Any, want: Any, what: str) -> None:
    if have != want:
        raise AssertionError(f"{what}: got {have!r}, expected {want!r}")


def plain(value: Any) -> Any:
    """An SDK attribute value as the receiver gives it (sequences are lists)."""
    return list(value) if isinstance(value, (tuple, list)) else value


def plain_attrs(attrs: Any) -> dict:
    return {k: plain(v) for k, v in (attrs or {}).items()}


# ---------------------------------------------------------------- the telemetry, made once
class Telemetry:
    """One trace, some metrics and a log record, made with the SDK and kept in
    memory, so that every exporter sends exactly the same data."""

    def __init__(self) -> None:
        resource = Resource(RESOURCE)
        self.span_store = InMemorySpanExporter()
        tracer_provider = TracerProvider(resource=resource)
        tracer_provider.add_span_processor(SimpleSpanProcessor(self.span_store))
        tracer = tracer_provider.get_tracer(SCOPE, SCOPE_VERSION)

        reader = InMemoryMetricReader()
        meter_provider = MeterProvider(resource=resource, metric_readers=[reader], views=[
            View(instrument_name="selftest.duration", aggregation=ExplicitBucketHistogramAggregation(BOUNDS)),
            View(instrument_name="selftest.size", aggregation=ExponentialBucketHistogramAggregation(max_size=20)),
        ])
        meter = meter_provider.get_meter(SCOPE, SCOPE_VERSION)

        self.log_store = InMemoryLogRecordExporter()
        logger_provider = LoggerProvider(resource=resource)
        logger_provider.add_log_record_processor(SimpleLogRecordProcessor(self.log_store))
        logger = logger_provider.get_logger(SCOPE, SCOPE_VERSION)

        t0 = time.time_ns()
        self.t0 = t0
        linked = tracer.start_span("selftest.linked", kind=SpanKind.INTERNAL, start_time=t0)
        linked.end(end_time=t0 + 1_000)
        self.server_attrs = {
            "mcp.method.name": "tools/call", "gen_ai.tool.name": "add", "jsonrpc.request.id": 7,
            "selftest.negative": -12, "selftest.big": 2**62, "selftest.ratio": 0.25, "selftest.ok": True,
            "selftest.unicode": "h\u00e9llo \u2713", "selftest.empty": "",
            "selftest.strings": ["a", "b"], "selftest.ints": [1, -2, 3], "selftest.floats": [0.5, 1.5],
            "selftest.bools": [True, False],
        }
        self.link_attrs = {"link.reason": "follows-from", "link.n": 1}
        server = tracer.start_span(
            "tools/call add", kind=SpanKind.SERVER, attributes=self.server_attrs, start_time=t0 + 2_000,
            links=[Link(linked.get_span_context(), self.link_attrs)])
        self.client_attrs = {"http.request.method": "POST", "server.port": 8080, "http.response.status_code": 503}
        client = tracer.start_span("POST /v1/chat/completions", kind=SpanKind.CLIENT, attributes=self.client_attrs,
                                   context=trace.set_span_in_context(server), start_time=t0 + 3_000)
        self.event_attrs = {"attempt": 2, "backoff.ms": 12.5}
        client.add_event("retry", self.event_attrs, timestamp=t0 + 3_500)
        client.set_status(Status(StatusCode.ERROR, "upstream answered 503"))
        client.end(end_time=t0 + 4_000)

        # Measurements inside the server span: the histogram's points get an exemplar.
        with trace.use_span(server, end_on_exit=False):
            duration = meter.create_histogram("selftest.duration", unit="ms", description="How long a call took")
            for v in ADD_VALUES:
                duration.record(v, {"tool": "add", "ok": True})
            duration.record(1.0, {"tool": "divide", "ok": False})
            size = meter.create_histogram("selftest.size", unit="By")
            for v in (1, 2, 4, 1024):
                size.record(v)
            calls = meter.create_counter("selftest.calls", unit="{call}", description="Calls made")
            calls.add(3, {"tool": "add"})
            calls.add(2, {"tool": "add"})
            load = meter.create_gauge("selftest.load")
            load.set(0.75, {"host": "a"})
            self.log_attrs = {"selftest.log": True, "count": 3}
            self.log_body = {"text": "call done", "parts": [1, "two", 3.5]}
            logger.emit(body=self.log_body, severity_number=SeverityNumber.WARN, severity_text="WARN",
                        attributes=self.log_attrs, event_name="selftest.done", timestamp=t0 + 4_500)
        server.set_status(Status(StatusCode.OK))
        server.end(end_time=t0 + 5_000)

        self.spans = self.span_store.get_finished_spans()
        self.metrics = reader.get_metrics_data()
        self.logs = self.log_store.get_finished_logs()
        self.linked, self.server, self.client = linked, server, client
        for provider in (tracer_provider, meter_provider, logger_provider):
            provider.shutdown()

    @staticmethod
    def ids(span: Any) -> tuple[str, str]:
        ctx = span.get_span_context()
        return format(ctx.trace_id, "032x"), format(ctx.span_id, "016x")


# ---------------------------------------------------------------- checking a dump
def check_spans(tel: Telemetry, dump: dict) -> None:
    spans = dump["spans"]
    expect_eq(len(spans), 3, "number of spans")
    linked_trace, linked_id = tel.ids(tel.linked)
    server_trace, server_id = tel.ids(tel.server)
    client_trace, client_id = tel.ids(tel.client)
    expect(linked_trace != server_trace, "the linked span should be in a trace of its own")
    t0 = tel.t0

    linked = otlp.find_span(spans, "selftest.linked")
    server = otlp.find_span(spans, "tools/call add")
    client = otlp.find_span(spans, "POST /v1/chat/completions")
    for s in spans:
        expect_eq(s["resource"], RESOURCE, f"{s['name']}: resource")
        expect_eq((s["scope"], s["scope_version"]), (SCOPE, SCOPE_VERSION), f"{s['name']}: scope")

    expect_eq((linked["trace_id"], linked["span_id"], linked["parent_span_id"]), (linked_trace, linked_id, ""),
              "linked span ids")
    expect_eq((linked["kind"], linked["status"]), ("INTERNAL", {"code": "UNSET", "message": ""}),
              "linked span kind/status")
    expect_eq((linked["start_ns"], linked["end_ns"]), (t0, t0 + 1_000), "linked span times")

    expect_eq((server["trace_id"], server["span_id"], server["parent_span_id"]), (server_trace, server_id, ""),
              "server span ids")
    expect_eq(server["kind"], "SERVER", "server span kind")
    expect_eq(server["status"], {"code": "OK", "message": ""}, "server span status")
    expect_eq((server["start_ns"], server["end_ns"]), (t0 + 2_000, t0 + 5_000), "server span times")
    expect_eq(server["attributes"], plain_attrs(tel.server_attrs), "server span attributes")
    for key, typ in (("jsonrpc.request.id", int), ("selftest.ratio", float), ("selftest.ok", bool),
                     ("selftest.strings", list)):
        expect(type(server["attributes"][key]) is typ, f"server span attribute {key} should be a {typ.__name__}")
    expect_eq(server["links"], [{"trace_id": linked_trace, "span_id": linked_id, "trace_state": "",
                                 "attributes": tel.link_attrs}], "server span links")
    expect_eq(server["events"], [], "server span events")

    expect_eq((client["trace_id"], client["span_id"]), (client_trace, client_id), "client span ids")
    expect_eq(client["trace_id"], server["trace_id"], "client span's trace")
    expect_eq(client["parent_span_id"], server["span_id"], "client span's parent")
    expect_eq(client["kind"], "CLIENT", "client span kind")
    expect_eq(client["status"], {"code": "ERROR", "message": "upstream answered 503"}, "client span status")
    expect_eq((client["start_ns"], client["end_ns"]), (t0 + 3_000, t0 + 4_000), "client span times")
    expect_eq(client["attributes"], tel.client_attrs, "client span attributes")
    expect_eq(client["events"], [{"name": "retry", "time_ns": t0 + 3_500, "attributes": tel.event_attrs}],
              "client span events")
    expect_eq(otlp.children(spans, server), [client], "the server span's children")
    expect_eq([s["name"] for s in otlp.roots(spans)], ["selftest.linked", "tools/call add"], "root spans")


def check_metrics(tel: Telemetry, dump: dict) -> None:
    points = dump["metrics"]
    server_trace, server_id = tel.ids(tel.server)
    for p in points:
        expect_eq(p["resource"], RESOURCE, f"{p['name']}: resource")
        expect_eq((p["scope"], p["scope_version"]), (SCOPE, SCOPE_VERSION), f"{p['name']}: scope")
    expect_eq(sorted(p["name"] for p in points),
              ["selftest.calls", "selftest.duration", "selftest.duration", "selftest.load", "selftest.size"],
              "metric points received")

    add = otlp.find_metrics(points, "selftest.duration", attrs={"tool": "add"})
    expect_eq(len(add), 1, "histogram points for tool=add")
    h = add[0]
    expect_eq((h["type"], h["unit"], h["description"], h["temporality"]),
              ("histogram", "ms", "How long a call took", "CUMULATIVE"), "histogram metadata")
    expect_eq(h["attributes"], {"tool": "add", "ok": True}, "histogram attributes")
    expect_eq(h["count"], len(ADD_VALUES), "histogram count")
    expect_eq(h["sum"], float(sum(ADD_VALUES)), "histogram sum")
    expect_eq((h["min"], h["max"]), (0.5, 250.0), "histogram min/max")
    expect_eq(h["explicit_bounds"], BOUNDS, "histogram explicit bounds")
    # Buckets (-inf,0] (0,5] (5,10] (10,100] (100,+inf) of 0.5 3 7 7 42 250:
    expect_eq(h["bucket_counts"], [0, 2, 2, 1, 1], "histogram bucket counts")
    expect(h["start_ns"] > 0 and h["time_ns"] >= h["start_ns"], f"histogram times {h['start_ns']}..{h['time_ns']}")
    expect(h["exemplars"], "the histogram point should carry exemplars (recorded inside a sampled span)")
    for e in h["exemplars"]:
        expect_eq((e["trace_id"], e["span_id"]), (server_trace, server_id), "exemplar ids")
        expect(e["value"] in ADD_VALUES, f"exemplar value {e['value']}")

    divide = otlp.find_metrics(points, "selftest.duration", attrs={"tool": "divide"})
    expect_eq([(p["attributes"], p["count"], p["sum"], p["bucket_counts"]) for p in divide],
              [({"tool": "divide", "ok": False}, 1, 1.0, [0, 1, 0, 0, 0])], "histogram point for tool=divide")

    (calls,) = otlp.find_metrics(points, "selftest.calls", type="sum")
    expect_eq((calls["value"], type(calls["value"]), calls["is_monotonic"], calls["temporality"],
               calls["attributes"], calls["unit"]),
              (5, int, True, "CUMULATIVE", {"tool": "add"}, "{call}"), "counter point")
    (load,) = otlp.find_metrics(points, "selftest.load", type="gauge")
    expect_eq((load["value"], load["attributes"]), (0.75, {"host": "a"}), "gauge point")
    (size,) = otlp.find_metrics(points, "selftest.size", type="exponential_histogram")
    expect_eq((size["count"], size["sum"], size["min"], size["max"]), (4, 1031.0, 1.0, 1024.0),
              "exponential histogram count/sum/min/max")
    expect_eq(sum(size["positive"]["bucket_counts"]) + size["zero_count"], 4, "exponential histogram buckets")
    expect(isinstance(size["scale"], int), "exponential histogram scale")


def check_logs(tel: Telemetry, dump: dict) -> None:
    server_trace, server_id = tel.ids(tel.server)
    (rec,) = dump["logs"]
    expect_eq(rec["body"], tel.log_body, "log body")
    expect_eq(rec["attributes"], tel.log_attrs, "log attributes")
    expect_eq((rec["severity_number"], rec["severity_text"], rec["event_name"]),
              (SeverityNumber.WARN.value, "WARN", "selftest.done"), "log severity and event name")
    expect_eq((rec["trace_id"], rec["span_id"]), (server_trace, server_id), "log trace context")
    expect_eq(rec["time_ns"], tel.t0 + 4_500, "log time")
    expect_eq((rec["resource"], rec["scope"]), (RESOURCE, SCOPE), "log resource and scope")


def check_requests(dump: dict, protocol: str, content_type: str, encoding: str | None) -> None:
    expect_eq(otlp.problems(dump), [], "refused requests or problems")
    expect_eq(sorted(r["signal"] for r in dump["requests"]), ["logs", "metrics", "traces"], "one request per signal")
    for r in dump["requests"]:
        expect_eq((r["protocol"], r["content_type"], r["content_encoding"]), (protocol, content_type, encoding),
                  f"{r['signal']} request protocol, content type and encoding")
        expect(r["user_agent"].startswith("OTel-OTLP-Exporter-Python"), f"user agent {r['user_agent']!r}")
    for record in dump["spans"] + dump["metrics"] + dump["logs"]:
        expect_eq(record["protocol"], protocol, "records' protocol")


def without_request(records: list[dict]) -> list[dict]:
    """Records without the fields that say how they arrived."""
    return [{k: v for k, v in r.items() if k not in ("protocol", "request")} for r in records]


# ---------------------------------------------------------------- plain HTTP
def http(url: str, method: str = "GET", body: bytes | None = None,
         headers: dict | None = None) -> tuple[int, dict, bytes]:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with opener.open(req, timeout=10) as resp:
            return resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


def otlp_json(message: Any) -> dict:
    """A protobuf export request as OTLP/JSON: the proto3 JSON mapping with
    trace and span ids as hex instead of base64."""
    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                if k in ("traceId", "spanId", "parentSpanId") and isinstance(v, str):
                    node[k] = base64.b64decode(v).hex()
                else:
                    walk(v)
        elif isinstance(node, list):
            for item in node:
                walk(item)
    tree = json_format.MessageToDict(message)
    walk(tree)
    return tree


# ---------------------------------------------------------------- the checks
def export_all(tel: Telemetry, rx: otlp.Receiver, protocol: str, gzipped: bool) -> None:
    """Exports the telemetry through the SDK's exporters of one protocol; each must report success."""
    if protocol == "http":
        compression = HttpCompression.Gzip if gzipped else HttpCompression.NoCompression
        common = dict(timeout=EXPORT_TIMEOUT_S, compression=compression)
        exporters = [HttpSpanExporter(endpoint=rx.signal_url("traces"), **common),
                     HttpMetricExporter(endpoint=rx.signal_url("metrics"), **common),
                     HttpLogExporter(endpoint=rx.signal_url("logs"), **common)]
    else:
        compression = grpc.Compression.Gzip if gzipped else grpc.Compression.NoCompression
        common = dict(endpoint=rx.grpc_endpoint, insecure=True, timeout=EXPORT_TIMEOUT_S, compression=compression,
                      channel_options=(("grpc.enable_http_proxy", 0),))
        exporters = [GrpcSpanExporter(**common), GrpcMetricExporter(**common), GrpcLogExporter(**common)]
    span_exp, metric_exp, log_exp = exporters
    try:
        expect_eq(span_exp.export(tel.spans), SpanExportResult.SUCCESS, "span export result")
        expect_eq(metric_exp.export(tel.metrics, timeout_millis=EXPORT_TIMEOUT_S * 1000),
                  MetricExportResult.SUCCESS, "metric export result")
        expect_eq(log_exp.export(tel.logs), LogRecordExportResult.SUCCESS, "log export result")
    finally:
        for exp in exporters:
            exp.shutdown()


def export_round(tel: Telemetry, rx: otlp.Receiver, protocol: str, gzipped: bool,
                 baseline: dict | None) -> dict:
    """Exports the telemetry through one protocol's exporters and checks the
    dump (and that it holds the same records as `baseline`); returns the dump."""
    label = f"{protocol}{'+gzip' if gzipped else ''}"
    failed_before = len(FAILED)
    rx.reset()
    check(f"{label}: the SDK's exporters report success", lambda: export_all(tel, rx, protocol, gzipped))
    dump = rx.dump()
    content_type = "application/x-protobuf" if protocol == "http" else "application/grpc"
    encoding = None if protocol == "grpc" else "gzip" if gzipped else ""  # grpcio hides grpc-encoding
    check(f"{label}: requests", lambda: check_requests(dump, protocol, content_type, encoding))
    check(f"{label}: spans", lambda: check_spans(tel, dump))
    check(f"{label}: metrics", lambda: check_metrics(tel, dump))
    check(f"{label}: logs", lambda: check_logs(tel, dump))
    if baseline is not None:
        def same_as_baseline() -> None:
            for kind in ("spans", "metrics", "logs"):
                expect_eq(without_request(dump[kind]), without_request(baseline[kind]), f"{kind} vs http")
        check(f"{label}: the same records as over http", same_as_baseline)
    if len(FAILED) > failed_before:
        print(f"what the receiver got over {label}:\n{otlp.summary(dump)}", flush=True)
    return dump


def main() -> int:
    started = time.monotonic()
    # Test traffic stays on 127.0.0.1, whatever proxy the environment names
    # (the HTTP exporter's requests and grpc read these when they connect).
    for var in ("NO_PROXY", "no_proxy"):
        os.environ[var] = ",".join(filter(None, [os.environ.get(var, ""), "127.0.0.1", "localhost"]))
    tel = Telemetry()
    rx = otlp.Receiver(python=sys.executable, max_seconds=120)
    print(f"receiver: OTLP/HTTP {rx.base_url}, OTLP/gRPC {rx.grpc_endpoint}", flush=True)

    baseline = export_round(tel, rx, "http", False, None)
    print("the exported trace, as otlp.span_tree renders it:\n" + otlp.span_tree(baseline["spans"]), flush=True)
    for protocol, gzipped in (("http", True), ("grpc", False), ("grpc", True)):
        export_round(tel, rx, protocol, gzipped, baseline)

    # ---- OTLP/JSON: the SDK's own protobuf requests, turned into OTLP/JSON
    requests = {"traces": encode_spans(tel.spans), "metrics": encode_metrics(tel.metrics),
                "logs": encode_logs(tel.logs)}

    def json_round() -> None:
        rx.reset()
        for signal, message in requests.items():
            body = json.dumps(otlp_json(message)).encode()
            status, headers, answer = http(rx.signal_url(signal), "POST", body, {"content-type": "application/json"})
            expect_eq(status, 200, f"{signal}: status ({answer[:200]!r})")
            expect_eq(headers.get("content-type"), "application/json", f"{signal}: response content-type")
            expect(isinstance(json.loads(answer), dict), f"{signal}: the response is a JSON object")
        dump = rx.dump()
        expect_eq(otlp.problems(dump), [], "refused requests or problems")
        expect_eq({r["content_type"] for r in dump["requests"]}, {"application/json"}, "requests' content type")
        for kind in ("spans", "metrics", "logs"):
            expect_eq(without_request(dump[kind]), without_request(baseline[kind]), f"{kind} vs http/protobuf")
    check("http/json: the same records as http/protobuf", json_round)

    def json_gzip_unknown_fields() -> None:
        rx.reset()
        tree = otlp_json(requests["traces"])
        tree["someFutureField"] = {"x": 1}  # receivers must ignore unknown fields
        body = gzip.compress(json.dumps(tree).encode())
        status, _, answer = http(rx.signal_url("traces"), "POST", body,
                                 {"content-type": "application/json", "content-encoding": "gzip"})
        expect_eq(status, 200, f"status ({answer[:200]!r})")
        expect_eq(len(rx.dump()["spans"]), 3, "spans received")
    check("http/json: gzipped, with an unknown field", json_gzip_unknown_fields)

    # ---- what must be refused
    def refused_http(signal: str, body: bytes, headers: dict, want_status: int, want_in_error: str) -> dict:
        rx.reset()
        status, resp_headers, answer = http(rx.signal_url(signal), "POST", body, headers)
        expect_eq(status, want_status, f"status ({answer[:200]!r})")
        dump = rx.dump()
        expect_eq((dump["spans"], dump["metrics"], dump["logs"]), ([], [], []), "nothing kept")
        expect_eq([r["ok"] for r in dump["requests"]], [False], "one refused request recorded")
        expect(want_in_error in dump["requests"][0]["error"], f"error {dump['requests'][0]['error']!r}")
        return {"headers": resp_headers, "body": answer}

    def bad_protobuf() -> None:
        got = refused_http("traces", b"\xff\xff\xff\xff not protobuf", {"content-type": "application/x-protobuf"},
                           400, "not a valid ExportTraceServiceRequest")
        expect_eq(got["headers"].get("content-type"), "application/x-protobuf", "error content-type")
        status = status_pb2.Status.FromString(got["body"])
        expect_eq(status.code, 3, "google.rpc.Status code (INVALID_ARGUMENT)")
        expect("not a valid" in status.message, f"google.rpc.Status message {status.message!r}")
    check("refused: a body that is not protobuf (400, google.rpc.Status)", bad_protobuf)

    def base64_ids_in_json() -> None:
        body = json_format.MessageToJson(requests["traces"]).encode()  # proto3 JSON: ids in base64
        got = refused_http("traces", body, {"content-type": "application/json"}, 400, "is not hex")
        expect_eq(json.loads(got["body"]).get("code"), 3, "JSON google.rpc.Status code")
    check("refused: OTLP/JSON with base64 ids (400)", base64_ids_in_json)

    def wrong_id_length() -> None:
        msg = trace_service_pb2.ExportTraceServiceRequest()
        msg.CopyFrom(requests["traces"])
        msg.resource_spans[0].scope_spans[0].spans[0].span_id = b"\x01\x02\x03\x04\x05"
        refused_http("traces", msg.SerializeToString(), {"content-type": "application/x-protobuf"},
                     400, "span_id is 5 bytes, not 8")
        rx.reset()
        with grpc.insecure_channel(f"127.0.0.1:{rx.grpc_port}", options=[("grpc.enable_http_proxy", 0)]) as channel:
            stub = trace_service_pb2_grpc.TraceServiceStub(channel)
            try:
                stub.Export(msg, timeout=EXPORT_TIMEOUT_S)
            except grpc.RpcError as e:
                expect_eq(e.code(), grpc.StatusCode.INVALID_ARGUMENT, "gRPC status")
                expect("span_id is 5 bytes" in (e.details() or ""), f"gRPC details {e.details()!r}")
            else:
                raise AssertionError("the gRPC export of a 5-byte span id was accepted")
        dump = rx.dump()
        expect_eq([(r["protocol"], r["ok"]) for r in dump["requests"]], [("grpc", False)], "gRPC refusal recorded")
        expect_eq(dump["spans"], [], "nothing kept")
    check("refused: a 5-byte span id (HTTP 400, gRPC INVALID_ARGUMENT)", wrong_id_length)

    def zero_trace_id() -> None:
        rx.reset()
        msg = trace_service_pb2.ExportTraceServiceRequest()
        msg.CopyFrom(requests["traces"])
        msg.resource_spans[0].scope_spans[0].spans[0].trace_id = bytes(16)
        status, _, _ = http(rx.signal_url("traces"), "POST", msg.SerializeToString(),
                            {"content-type": "application/x-protobuf"})
        expect_eq(status, 200, "status")
        found = [p for p in otlp.problems(rx.dump()) if "trace_id is all zeros" in p]
        expect(len(found) == 1, f"problems {otlp.problems(rx.dump())}")
    check("accepted with a problem noted: an all-zero trace id", zero_trace_id)

    check("refused: gzip content-encoding on a plain body (400)", lambda: refused_http(
        "metrics", b"plain", {"content-type": "application/x-protobuf", "content-encoding": "gzip"}, 400, "not gzip"))
    check("refused: content-type text/plain (415)", lambda: refused_http(
        "logs", b"hello", {"content-type": "text/plain"}, 415, "unsupported content-type"))
    check("refused: content-encoding br (415)", lambda: refused_http(
        "traces", b"", {"content-type": "application/x-protobuf", "content-encoding": "br"}, 415,
        "content-encoding 'br'"))

    def unknown_path() -> None:
        rx.reset()
        status, _, _ = http(rx.base_url + "/v1/trace", "POST", b"", {"content-type": "application/x-protobuf"})
        expect_eq(status, 404, "status of POST /v1/trace")
        expect_eq([(r["signal"], r["path"], r["ok"]) for r in rx.dump()["requests"]], [(None, "/v1/trace", False)],
                  "the request recorded")
        expect_eq(http(rx.signal_url("traces"))[0], 405, "status of GET /v1/traces")
        expect_eq(http(rx.base_url + "/elsewhere")[0], 404, "status of GET /elsewhere")
    check("unknown path recorded (404), GET on an OTLP path (405)", unknown_path)

    def empty_request() -> None:
        rx.reset()
        status, _, answer = http(rx.signal_url("traces"), "POST", b"", {"content-type": "application/x-protobuf"})
        expect_eq(status, 200, "status")
        trace_service_pb2.ExportTraceServiceResponse.FromString(answer)
        expect_eq([(r["ok"], r["items"]) for r in rx.dump()["requests"]], [(True, 0)], "the request recorded")
    check("an empty export request is accepted (200, ExportTraceServiceResponse)", empty_request)

    def reset_clears() -> None:
        export_all(tel, rx, "http", False)
        expect(rx.dump()["spans"], "spans before the reset")
        rx.reset()
        expect_eq(rx.dump(), {"spans": [], "metrics": [], "logs": [], "requests": []}, "the dump after /__reset")
    check("POST /__reset forgets everything", reset_clears)

    def wait_helpers() -> None:
        rx.reset()
        try:
            otlp.wait_for_spans(rx.base_url, "never.sent", timeout=0.3)
        except AssertionError as e:
            expect("timed out after 0.3 s waiting for at least 1 span(s) 'never.sent'" in str(e), f"message {e}")
        else:
            raise AssertionError("wait_for_spans did not time out")
        export_all(tel, rx, "grpc", False)
        (server,) = otlp.wait_for_spans(rx.base_url, "tools/call add", kind="SERVER",
                                        attrs={"gen_ai.tool.name": "add", "jsonrpc.request.id": ...}, timeout=5)
        expect_eq(server["span_id"], tel.ids(tel.server)[1], "the span found")
        expect_eq(len(otlp.wait_for_metrics(rx.base_url, "selftest.duration", count=2, timeout=5)), 2, "points")
        expect_eq(len(otlp.settle(rx.base_url, quiet=0.2)["requests"]), 3, "requests once settled")
        tree = otlp.span_tree(otlp.by_trace(rx.dump()["spans"])[server["trace_id"]])
        lines = tree.splitlines()
        expect(lines[0].startswith(f"trace {server['trace_id']} (2 spans)"), f"tree header {lines[0]!r}")
        expect(lines[1].startswith("  tools/call add  [SERVER otel-selftest]"), f"tree root line {lines[1]!r}")
        expect(lines[2].startswith("    POST /v1/chat/completions  [CLIENT otel-selftest]")
               and "ERROR(upstream answered 503)" in lines[2], f"tree child line {lines[2]!r}")
    check("otlp.py: wait_for_spans / wait_for_metrics / settle / span_tree", wait_helpers)

    # ---- lifetime and ports
    def stdin_eof_exit() -> None:
        code, stderr = rx.stop()
        expect_eq(code, 0, f"exit code on stdin EOF (stderr: {stderr[-500:]!r})")
    check("the receiver exits on stdin EOF", stdin_eof_exit)

    def max_seconds_exit() -> None:
        t = time.monotonic()
        short = otlp.Receiver(python=sys.executable, max_seconds=0.5)
        try:
            short.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            short.proc.kill()
            raise AssertionError("still running 5 s after --max-seconds 0.5") from None
        expect_eq(short.proc.returncode, 3, "exit code after --max-seconds")
        expect(time.monotonic() - t < 4, "took too long to exit")
        short.stop()
    check("the receiver exits after --max-seconds", max_seconds_exit)

    def busy_ports() -> None:
        first = otlp.Receiver(python=sys.executable, max_seconds=30)
        try:
            for flag, port in (("--http-port", first.http_port), ("--grpc-port", first.grpc_port)):
                proc = subprocess.run([sys.executable, otlp.RECEIVER, flag, str(port), "--max-seconds", "10"],
                                      stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=10)
                expect_eq(proc.returncode, 2, f"exit code with a busy {flag} (stderr {proc.stderr!r})")
                expect_eq(proc.stdout, "", f"stdout with a busy {flag}")
        finally:
            first.stop()
    check("a busy port is an error, not a shared port", busy_ports)

    elapsed = time.monotonic() - started
    if rx.proc.poll() is None:
        rx.stop()
    if FAILED:
        print(f"selftest: {len(FAILED)} check(s) FAILED in {elapsed:.1f} s: {', '.join(FAILED)}", flush=True)
        return 1
    print(f"selftest: all checks passed in {elapsed:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
