#!/usr/bin/env python3
"""OpenTelemetry export, end to end, read from what a real OTLP receiver got.

    check.py BIN_DIR      (BIN_DIR holds calculator, calculator_client and agent,
                           built with the examples' `otel` features)

Run by tests/otel/run.sh with the venv interpreter ($MCP_PYTHON). It starts
tests/otel/receiver.py (OTLP/HTTP and OTLP/gRPC on 127.0.0.1, built on the
official opentelemetry-proto package) and the scripted model server of
tests/agent/scripted_model.py, runs the example programs as users run them,
with the standard OTEL_* variables pointing at the receiver, and checks:

  1. stdio, OTLP/HTTP protobuf: `agent --mcp calculator` (OpenAI, streaming)
     is ONE trace: the agent run, its model requests (whose HTTP requests
     carry the trace to the model server), the tool executions, the MCP
     CLIENT spans and, in the calculator's own process, the SERVER spans
     `tools/call add` / `tools/call divide`, each the child of the one
     before, with the conventions' attributes; the divide-by-zero result is
     recorded as `tool_error` on all three MCP-side spans.
  2. Streamable HTTP, OTLP/gRPC: the same with `calculator --http` and
     `agent --mcp-url` (Anthropic, not streaming), `network.transport=tcp`.
  3. The Python `mcp` client sends `_meta.traceparent` over stdio: the
     server span continues that trace; an unknown tool's JSON-RPC error is
     recorded (`rpc.response.status_code`, `error.type`, status ERROR).
  4. The Python `mcp` client over Streamable HTTP with only the HTTP
     `traceparent` header: the server span continues it.
  5. The four duration histograms arrive with the conventions' attributes
     (calculator_client --legacy gives the client's session).
  6. `OTEL_METRICS_EXPORTER=prometheus`: `calculator --http` serves the
     histograms at /metrics in the Prometheus text format.

The exported span tree of scenario 1 is printed. Prints PASS/FAIL lines;
exits 1 if any check failed, 2 if something it needs is missing.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import otlp  # noqa: E402

KEY = "sk-otel-test"
failed = 0


def check(ok: Any, what: str, detail: str = "") -> bool:
    global failed
    print(f"{'PASS' if ok else 'FAIL'} {what}", flush=True)
    if not ok:
        failed += 1
        if detail:
            print("    " + detail.replace("\n", "\n    "), flush=True)
    return bool(ok)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port: int, proc: subprocess.Popen, what: str) -> None:
    deadline = time.time() + 30
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"check.py: {what} exited ({proc.returncode}) before listening")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"check.py: {what} did not listen on {port}")


class ScriptedModel:
    """tests/agent/scripted_model.py with a script, on a free port."""

    def __init__(self, steps: list[dict]):
        self.file = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        json.dump({"steps": steps}, self.file)
        self.file.close()
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(ROOT, "tests/agent/scripted_model.py"), "--script", self.file.name,
             "--api-key", KEY, "--exit-on-stdin-eof", "--quiet", "--max-seconds", "300"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().split()
        if line[:1] != ["PORT"]:
            raise SystemExit(f"check.py: the scripted model server did not start ({line})")
        self.base = f"http://127.0.0.1:{line[1]}"

    def status(self) -> dict:
        with urllib.request.urlopen(self.base + "/__status", timeout=10) as r:
            return json.load(r)

    def stop(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=10)
        os.unlink(self.file.name)

    def env(self, anthropic: bool) -> dict:
        if anthropic:
            return {"ANTHROPIC_BASE_URL": self.base, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_MODEL": "claude-test"}
        return {"OPENAI_BASE_URL": self.base + "/v1", "OPENAI_API_KEY": KEY, "OPENAI_MODEL": "gpt-test"}


def otel_env(receiver: otlp.Receiver, grpc: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "OPENAI_", "ANTHROPIC_"))}
    env.update({
        "OTEL_BSP_SCHEDULE_DELAY": "100",
        "OTEL_METRIC_EXPORT_INTERVAL": "300",
        "RUST_LOG": "warn",
    })
    if grpc:
        env["OTEL_EXPORTER_OTLP_PROTOCOL"] = "grpc"
        env["OTEL_EXPORTER_OTLP_ENDPOINT"] = receiver.grpc_endpoint
    else:
        env["OTEL_EXPORTER_OTLP_PROTOCOL"] = "http/protobuf"
        env["OTEL_EXPORTER_OTLP_ENDPOINT"] = receiver.base_url
    return env


def run(cmd: list[str], env: dict, what: str, timeout: float = 120) -> subprocess.CompletedProcess:
    done = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
    check(done.returncode == 0, f"{what} exits 0", f"exit {done.returncode}\nstdout: {done.stdout}\nstderr: {done.stderr}")
    return done


def start_http_calculator(bin_dir: str, env: dict) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen([os.path.join(bin_dir, "calculator"), "--http", f"127.0.0.1:{port}"], env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wait_listening(port, proc, "calculator --http")
    return proc, f"http://127.0.0.1:{port}"


def stop_gracefully(proc: subprocess.Popen, what: str) -> None:
    """SIGINT: the server shuts down and flushes its telemetry."""
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        check(False, f"{what} stops on SIGINT")


# ---------------------------------------------------------------- span helpers

def attr(span: dict, key: str) -> Any:
    return span["attributes"].get(key)


def parent_of(spans: list[dict], span: dict) -> dict | None:
    for s in spans:
        if s["span_id"] == span["parent_span_id"] and s["trace_id"] == span["trace_id"]:
            return s
    return None


def by_op(spans: list[dict], op: str, kind: str | None = None, tool: str | None = None) -> list[dict]:
    return [s for s in spans if attr(s, "gen_ai.operation.name") == op
            and (kind is None or s["kind"] == kind)
            and (tool is None or attr(s, "gen_ai.tool.name") == tool)]


def one(found: list[dict], what: str, spans: list[dict]) -> dict | None:
    if check(len(found) == 1, f"{what}: exactly one span", f"found {len(found)}\n{otlp.span_tree(spans)}"):
        return found[0]
    return None


def check_tool_chain(spans: list[dict], label: str, tool: str, transport: str, run_span: dict,
                     error: bool) -> None:
    """execute_tool (agent) -> CLIENT tools/call -> SERVER tools/call (calculator)."""
    execute = one(by_op(spans, "execute_tool", kind="INTERNAL", tool=tool), f"{label}: the agent's execute_tool {tool}", spans)
    client = one(otlp.find_spans(spans, f"tools/call {tool}", kind="CLIENT"), f"{label}: CLIENT tools/call {tool}", spans)
    server = one(otlp.find_spans(spans, f"tools/call {tool}", kind="SERVER"), f"{label}: SERVER tools/call {tool}", spans)
    if not (execute and client and server):
        return
    check(otlp.service(client) == "agent" and otlp.service(server) == "calculator",
          f"{label}: the CLIENT span is the agent's, the SERVER span the calculator's (two processes)",
          f"{otlp.service(client)} / {otlp.service(server)}")
    check(server["trace_id"] == run_span["trace_id"] and client["trace_id"] == run_span["trace_id"],
          f"{label}: tools/call {tool} is in the agent run's trace")
    check(server["parent_span_id"] == client["span_id"], f"{label}: SERVER tools/call {tool} is the child of the CLIENT span")
    check(client["parent_span_id"] == execute["span_id"], f"{label}: CLIENT tools/call {tool} is the child of execute_tool {tool}")
    ancestors = []
    cursor = execute
    while cursor is not None:
        ancestors.append(cursor["span_id"])
        cursor = parent_of(spans, cursor)
    check(run_span["span_id"] in ancestors, f"{label}: execute_tool {tool} descends from the run span")
    for span, side in ((client, "CLIENT"), (server, "SERVER")):
        want = {"mcp.method.name": "tools/call", "gen_ai.tool.name": tool, "gen_ai.operation.name": "execute_tool",
                "network.transport": transport, "mcp.protocol.version": ..., "jsonrpc.request.id": ...}
        check(otlp.attrs_match(span["attributes"], want), f"{label}: {side} tools/call {tool} has the conventions' attributes",
              json.dumps(span["attributes"], sort_keys=True))
    if error:
        for span, side in ((execute, "execute_tool"), (client, "CLIENT"), (server, "SERVER")):
            check(attr(span, "error.type") == "tool_error" and span["status"]["code"] == "ERROR",
                  f"{label}: the error result is recorded on {side} {tool} (error.type tool_error, status ERROR)",
                  json.dumps({"attributes": span["attributes"], "status": span["status"]}))
    else:
        for span, side in ((client, "CLIENT"), (server, "SERVER")):
            check("error.type" not in span["attributes"] and span["status"]["code"] != "ERROR",
                  f"{label}: {side} tools/call {tool} succeeded")


def check_agent_trace(receiver: otlp.Receiver, model: ScriptedModel, label: str, transport: str,
                      tools: list[tuple[str, bool]], model_name: str, provider: str) -> list[dict]:
    otlp.wait_for_spans(receiver.base_url, "tools/call " + tools[-1][0], kind="SERVER", timeout=20)
    otlp.wait_for(receiver.base_url, lambda d: by_op(d["spans"], "invoke_agent"), timeout=20, what="the agent run span")
    spans = otlp.settle(receiver.base_url, quiet=0.6, timeout=20)["spans"]
    run_span = one(by_op(spans, "invoke_agent"), f"{label}: the agent run", spans)
    if run_span is None:
        return spans
    check(run_span["parent_span_id"] == "", f"{label}: the run span is the trace's root")
    trace = [s for s in spans if s["trace_id"] == run_span["trace_id"]]
    chats = by_op(trace, "chat", kind="CLIENT")
    check(len(chats) == len(tools) + 1, f"{label}: one chat span per model request ({len(tools) + 1})",
          otlp.span_tree(spans))
    for chat in chats:
        check(otlp.attrs_match(chat["attributes"], {"gen_ai.request.model": model_name, "gen_ai.provider.name": provider,
                                                   "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 5}),
              f"{label}: chat span {chat['name']!r} has the model, provider and token usage",
              json.dumps(chat["attributes"], sort_keys=True))
    for tool, error in tools:
        check_tool_chain(trace, label, tool, transport, run_span, error)
    # The model requests themselves carry the trace to the model server.
    requests = [r for r in model.status()["requests"] if r["path"].endswith(("/chat/completions", "/messages"))]
    chat_ids = {c["span_id"] for c in chats}
    carried = [r["headers"].get("traceparent", "") for r in requests]
    check(requests and all(tp.split("-")[1:2] == [run_span["trace_id"]] and tp.split("-")[2] in chat_ids for tp in carried if tp)
          and all(carried),
          f"{label}: every model request carries the run's trace, its chat span as parent (traceparent header)",
          f"{carried} vs trace {run_span['trace_id']}, chat spans {sorted(chat_ids)}")
    check(not model.status()["failures"], f"{label}: the scripted model server accepted every request",
          json.dumps(model.status()["failures"])[:2000])
    return spans


def print_run_tree(spans: list[dict]) -> None:
    """The agent run's trace as exported, with the attributes that tell the story."""
    runs = by_op(spans, "invoke_agent")
    run_trace = [s for s in spans if runs and s["trace_id"] == runs[0]["trace_id"]]
    print("   the exported span tree of the agent run:", flush=True)
    print(otlp.span_tree(run_trace, attrs=["gen_ai.operation.name", "gen_ai.tool.name", "gen_ai.request.model",
                                          "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens",
                                          "mcp.protocol.version", "network.transport", "error.type"]), flush=True)


# ---------------------------------------------------------------- scenarios

def agent_steps() -> list[dict]:
    return [
        {"respond": {"tool_calls": [{"id": "call_1", "name": "add", "arguments": "{\"a\": 2, \"b\": 3}"}]}},
        {"expect": {"tool_results": [{"id": "call_1", "contains": "5"}]},
         "respond": {"tool_calls": [{"id": "call_2", "name": "divide", "arguments": "{\"a\": 1, \"b\": 0}"}]}},
        {"expect": {"tool_results": [{"id": "call_2", "contains": "zero"}]},
         "respond": {"text": "2 + 3 = 5, and 1 / 0 has no answer."}},
    ]


def scenario_stdio(bin_dir: str, receiver: otlp.Receiver) -> None:
    print("-- 1. agent -> calculator over stdio, OTLP/HTTP protobuf, OpenAI streaming", flush=True)
    receiver.reset()
    model = ScriptedModel(agent_steps())
    env = otel_env(receiver, grpc=False) | model.env(anthropic=False)
    run([os.path.join(bin_dir, "agent"), "--no-calculator", "--mcp", os.path.join(bin_dir, "calculator"),
         "What is 2 + 3, and 1 / 0?"], env, "agent --mcp calculator")
    spans = check_agent_trace(receiver, model, "stdio", "pipe", [("add", False), ("divide", True)], "gpt-test", "openai")
    model.stop()
    check(all(s["protocol"] == "http" for s in spans), "stdio: the spans came over OTLP/HTTP")
    print_run_tree(spans)


def scenario_http(bin_dir: str, receiver: otlp.Receiver) -> None:
    print("-- 2. agent -> calculator over Streamable HTTP, OTLP/gRPC, Anthropic", flush=True)
    receiver.reset()
    env = otel_env(receiver, grpc=True)
    calculator, url = start_http_calculator(bin_dir, env)
    model = ScriptedModel([
        {"respond": {"tool_calls": [{"id": "toolu_1", "name": "add", "arguments": "{\"a\": 2, \"b\": 3}"}]}},
        {"expect": {"tool_results": [{"id": "toolu_1", "contains": "5"}]}, "respond": {"text": "5"}},
    ])
    try:
        run([os.path.join(bin_dir, "agent"), "--provider", "anthropic", "--no-stream", "--no-calculator",
             "--mcp-url", url + "/mcp", "What is 2 + 3?"], env | model.env(anthropic=True), "agent --mcp-url")
    finally:
        stop_gracefully(calculator, "calculator --http")
    spans = check_agent_trace(receiver, model, "http", "tcp", [("add", False)], "claude-test", "anthropic")
    model.stop()
    check(spans and all(s["protocol"] == "grpc" for s in spans), "http: the spans came over OTLP/gRPC")
    print_run_tree(spans)


TRACE_META = ("5bf92f3577b34da6a3ce929d0e0e4736", "10f067aa0ba902b7")
TRACE_HEADER = ("6cf92f3577b34da6a3ce929d0e0e4737", "20f067aa0ba902b8")


def traceparent(ids: tuple[str, str]) -> str:
    return f"00-{ids[0]}-{ids[1]}-01"


def scenario_python(bin_dir: str, receiver: otlp.Receiver) -> None:
    print("-- 3. the Python mcp client: traceparent in _meta (stdio), then as an HTTP header", flush=True)
    receiver.reset()
    env = otel_env(receiver, grpc=False)
    peer = os.path.join(HERE, "python_peer.py")
    run([sys.executable, peer, "--traceparent", traceparent(TRACE_META), "--", os.path.join(bin_dir, "calculator")],
        env, "python_peer.py over stdio")
    calculator, url = start_http_calculator(bin_dir, env)
    try:
        run([sys.executable, peer, "--header-traceparent", traceparent(TRACE_HEADER), "--url", url + "/mcp"],
            env, "python_peer.py over HTTP")
    finally:
        stop_gracefully(calculator, "calculator --http")
    # A tool the server does not serve is recorded as `_OTHER` (issue 34).
    otlp.wait_for_spans(receiver.base_url, "tools/call _OTHER", kind="SERVER", timeout=20)
    spans = otlp.settle(receiver.base_url, quiet=0.6, timeout=20)["spans"]
    adds = otlp.find_spans(spans, "tools/call add", kind="SERVER")
    from_meta = [s for s in adds if attr(s, "network.transport") == "pipe"]
    from_header = [s for s in adds if attr(s, "network.transport") == "tcp"]
    span = one(from_meta, "python stdio: SERVER tools/call add", spans)
    if span:
        check((span["trace_id"], span["parent_span_id"]) == TRACE_META,
              "python stdio: the server span continues the trace of _meta.traceparent (trace id, parent span id)",
              f"{span['trace_id']} / {span['parent_span_id']}")
        check(attr(span, "mcp.protocol.version") == "2025-11-25", "python stdio: mcp.protocol.version is the negotiated 2025-11-25")
    nope = one(otlp.find_spans(spans, "tools/call _OTHER", kind="SERVER"), "python stdio: SERVER tools/call _OTHER", spans)
    if nope:
        check(attr(nope, "rpc.response.status_code") == "-32602" and attr(nope, "error.type") == "-32602"
              and nope["status"]["code"] == "ERROR" and "nope" in nope["status"]["message"],
              "python stdio: the unknown tool's JSON-RPC error is recorded (-32602, status ERROR with its message)",
              json.dumps({"attributes": nope["attributes"], "status": nope["status"]}))
    span = one(from_header, "python http: SERVER tools/call add", spans)
    if span:
        check((span["trace_id"], span["parent_span_id"]) == TRACE_HEADER,
              "python http: the server span continues the trace of the HTTP traceparent header",
              f"{span['trace_id']} / {span['parent_span_id']}")
        check(attr(span, "mcp.session.id") and attr(span, "network.protocol.name") == "http",
              "python http: mcp.session.id and network.protocol.name are recorded")


def scenario_metrics(bin_dir: str, receiver: otlp.Receiver) -> None:
    print("-- 4. the duration histograms (agent + calculator from 1-3, calculator_client --legacy)", flush=True)
    receiver.reset()
    env = otel_env(receiver, grpc=False)
    run([os.path.join(bin_dir, "calculator_client"), "--legacy", os.path.join(bin_dir, "calculator")], env,
        "calculator_client --legacy")
    run([sys.executable, os.path.join(HERE, "python_peer.py"), "--traceparent", traceparent(TRACE_META), "--",
         os.path.join(bin_dir, "calculator")], env, "python_peer.py over stdio")
    for name in ("mcp.client.session.duration", "mcp.server.session.duration"):
        otlp.wait_for_metrics(receiver.base_url, name, timeout=20)
    metrics = otlp.settle(receiver.base_url, quiet=0.6, timeout=20)["metrics"]

    def points(name: str, attrs: dict, service: str) -> list[dict]:
        return [m for m in otlp.find_metrics(metrics, name, type="histogram", attrs=attrs) if otlp.service(m) == service]

    def histogram_ok(found: list[dict]) -> bool:
        return bool(found) and all(m["unit"] == "s" and m["count"] >= 1 and m["explicit_bounds"][:3] == [0.01, 0.02, 0.05]
                                   for m in found)

    base = {"mcp.method.name": "tools/call", "gen_ai.tool.name": "add", "gen_ai.operation.name": "execute_tool",
            "network.transport": "pipe", "mcp.protocol.version": "2025-11-25"}
    check(histogram_ok(points("mcp.server.operation.duration", base, "calculator")),
          "mcp.server.operation.duration for tools/call add, with method, tool, transport and version",
          otlp.summary({"metrics": metrics, "spans": [], "logs": [], "requests": []}))
    check(histogram_ok(points("mcp.client.operation.duration", base, "calculator_client")),
          "mcp.client.operation.duration for tools/call add, with method, tool, transport and version")
    err = {"mcp.method.name": "tools/call", "gen_ai.tool.name": "divide", "error.type": "tool_error"}
    check(histogram_ok(points("mcp.server.operation.duration", err, "calculator"))
          and histogram_ok(points("mcp.client.operation.duration", err, "calculator_client")),
          "the divide-by-zero calls are counted with error.type tool_error, on both sides")
    rpc = {"mcp.method.name": "tools/call", "gen_ai.tool.name": "_OTHER", "error.type": "-32602", "rpc.response.status_code": "-32602"}
    check(histogram_ok(points("mcp.server.operation.duration", rpc, "calculator")),
          "the JSON-RPC error is counted with error.type and rpc.response.status_code -32602")
    session = {"network.transport": "pipe", "mcp.protocol.version": "2025-11-25"}
    check(histogram_ok(points("mcp.server.session.duration", session, "calculator")),
          "mcp.server.session.duration of the legacy sessions, with transport and version")
    check(histogram_ok(points("mcp.client.session.duration", session, "calculator_client")),
          "mcp.client.session.duration of calculator_client's legacy session, with transport and version")


def scenario_prometheus(bin_dir: str) -> None:
    print("-- 5. OTEL_METRICS_EXPORTER=prometheus: calculator --http serves /metrics", flush=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env.update({"OTEL_METRICS_EXPORTER": "prometheus", "OTEL_TRACES_EXPORTER": "none", "RUST_LOG": "warn"})
    calculator, url = start_http_calculator(bin_dir, env)
    try:
        run([sys.executable, os.path.join(HERE, "python_peer.py"), "--header-traceparent", traceparent(TRACE_HEADER),
             "--url", url + "/mcp"], env, "python_peer.py over HTTP")
        with urllib.request.urlopen(url + "/metrics", timeout=10) as r:
            content_type = r.headers.get("content-type", "")
            text = r.read().decode()
    finally:
        stop_gracefully(calculator, "calculator --http")
    check(content_type.startswith("text/plain; version=0.0.4"), f"/metrics answers the Prometheus text format ({content_type})")
    lines = [l for l in text.splitlines() if l.startswith("mcp_server_operation_duration_seconds_count{")]
    add = [l for l in lines if 'gen_ai_tool_name="add"' in l and 'mcp_method_name="tools/call"' in l
           and 'network_transport="tcp"' in l and not l.endswith(" 0")]
    check(add, "/metrics has mcp_server_operation_duration_seconds for tools/call add with its labels",
          "\n".join(lines) or text[:3000])
    check("# TYPE mcp_server_operation_duration_seconds histogram" in text, "/metrics declares the histogram type")


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    bin_dir = sys.argv[1]
    for b in ("calculator", "calculator_client", "agent"):
        if not os.access(os.path.join(bin_dir, b), os.X_OK):
            print(f"check.py: {bin_dir}/{b} is missing: cargo build -p mcp-examples", file=sys.stderr)
            return 2
    with otlp.Receiver(python=sys.executable, max_seconds=600) as receiver:
        scenario_stdio(bin_dir, receiver)
        scenario_http(bin_dir, receiver)
        scenario_python(bin_dir, receiver)
        scenario_metrics(bin_dir, receiver)
        bad = otlp.problems(receiver.dump())
        check(not bad, "the receiver found nothing malformed in what was exported", "\n".join(bad))
    scenario_prometheus(bin_dir)
    print(f"{'all checks passed' if not failed else f'{failed} checks FAILED'}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
