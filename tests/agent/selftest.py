#!/usr/bin/env python3
"""Self-test of tests/agent/scripted_model.py against the official SDK clients.

    .tools/pyenv/bin/python tests/agent/selftest.py

Starts the scripted model server (a subprocess) and proves that
  * its answers are exactly what the official `openai` and `anthropic` SDK
    clients accept and parse: non-streaming and streaming, text plus two tool
    calls, tool results going back, a 429 with retry-after: 0 that the SDKs
    retry, a truncated stream, raw bodies, delays and client disconnects;
  * it refuses what the providers refuse, each answered 400 in the provider's
    error shape and recorded in /__status "failures": unknown keys at the top
    level and nested (messages[0].bogus), a tool message answering no call, an
    assistant's calls left unanswered, Anthropic non-alternating roles and
    unanswered tool_use, a tool name with a dot, wrong credentials, missing
    anthropic-version, unmet script expectations, an exhausted script, and a
    malformed script.
Prints one line per check and exits non-zero, naming the failed checks, if
any check fails.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Any, Callable

import anthropic
import openai

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "scripted_model.py")
API_KEY = "sk-selftest-0123456789"
FAILED: list[str] = []


def check(name: str, fn: Callable[[], None]) -> None:
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - report every failure and go on
        FAILED.append(name)
        print(f"FAIL  {name}: {type(e).__name__}: {e}", flush=True)
    else:
        print(f"ok    {name}", flush=True)


def expect(cond: bool, what: str) -> None:
    if not cond:
        raise AssertionError(what)


class Server:
    """The scripted model server as a subprocess, with its control endpoints."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, SERVER, "--api-key", API_KEY, "--max-seconds", "300", "--exit-on-stdin-eof"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        line = self.proc.stdout.readline()  # the server prints PORT once listening (or dies)
        if not line.startswith("PORT "):
            self.proc.kill()
            raise SystemExit(f"selftest: the server did not start: {line!r}\n{self.proc.stderr.read()}")
        self.port = int(line.split()[1])
        self.base = f"http://127.0.0.1:{self.port}"

    def stop(self) -> str:
        self.proc.stdin.close()  # --exit-on-stdin-eof: the server exits by itself
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        return self.proc.stderr.read()

    def http(self, method: str, path: str, body: Any = None, headers: dict | None = None,
             raw: bytes | None = None) -> tuple[int, dict, bytes]:
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers or {})
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read()
        except urllib.error.HTTPError as e:
            return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()

    def status(self) -> dict:
        code, _, data = self.http("GET", "/__status")
        expect(code == 200, f"/__status answered {code}")
        return json.loads(data)

    def script(self, *steps: dict) -> None:
        code, _, data = self.http("POST", "/__script", {"steps": list(steps)},
                                  {"content-type": "application/json"})
        expect(code == 200, f"/__script refused the script: {data!r}")

    def mine(self) -> tuple[list[dict], list[dict], dict]:
        """(requests, failures) of the current script generation, and the status."""
        st = self.status()
        gen = st["script"]
        return ([r for r in st["requests"] if r["script"] == gen],
                [f for f in st["failures"] if f["script"] == gen], st)


TOOLS_OPENAI = [
    {"type": "function", "function": {
        "name": "add", "description": "Add two numbers",
        "parameters": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                       "required": ["a", "b"]}}},
    {"type": "function", "function": {
        "name": "divide", "description": "Divide a by b",
        "parameters": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                       "required": ["a", "b"]}}},
]
TOOLS_ANTHROPIC = [
    {"name": t["function"]["name"], "description": t["function"]["description"],
     "input_schema": t["function"]["parameters"]} for t in TOOLS_OPENAI
]
TWO_CALLS = [
    {"id": "call_1", "name": "add", "arguments": "{\"a\": 2, \"b\": 3}"},
    {"id": "call_2", "name": "divide", "arguments": "{\"a\": 10, \"b\": 5}"},
]
TWO_USES = [
    {"id": "toolu_1", "name": "add", "arguments": "{\"a\": 2, \"b\": 3}"},
    {"id": "toolu_2", "name": "divide", "arguments": "{\"a\": 10, \"b\": 5}"},
]
USER = {"role": "user", "content": "What is 2 + 3, and 10 / 5?"}
OPENAI_HEADERS = {"content-type": "application/json", "authorization": f"Bearer {API_KEY}"}
ANTHROPIC_HEADERS = {"content-type": "application/json", "x-api-key": API_KEY, "anthropic-version": "2023-06-01"}


def main() -> int:
    srv = Server()
    oai = openai.OpenAI(base_url=srv.base + "/v1", api_key=API_KEY, max_retries=2, timeout=30)
    ant = anthropic.Anthropic(base_url=srv.base, api_key=API_KEY, max_retries=2, timeout=30)
    try:
        run_checks(srv, oai, ant)
    finally:
        log = srv.stop()
    if FAILED:
        print(f"\nselftest FAILED: {len(FAILED)} check(s): {', '.join(FAILED)}\n--- server log ---\n{log}")
        return 1
    print("\nselftest passed")
    return 0


def run_checks(srv: Server, oai: openai.OpenAI, ant: anthropic.Anthropic) -> None:
    # ------------------------------------------------------------ OpenAI SDK
    def openai_nonstreaming() -> None:
        srv.script({"provider": "openai",
                    "expect": {"tools": ["divide", "add"], "tool_choice": "auto", "stream": False,
                               "last_user_contains": "2 + 3"},
                    "respond": {"text": "Let me compute.", "tool_calls": TWO_CALLS, "usage": {"input": 31, "output": 7}}})
        r = oai.chat.completions.create(model="gpt-test", messages=[USER], tools=TOOLS_OPENAI, tool_choice="auto")
        m = r.choices[0].message
        expect(m.content == "Let me compute.", f"content {m.content!r}")
        expect(len(m.tool_calls) == 2, f"tool_calls {m.tool_calls}")
        expect(m.tool_calls[1].function.arguments == "{\"a\": 10, \"b\": 5}", f"arguments {m.tool_calls[1].function.arguments!r}")
        expect(m.tool_calls[0].id == "call_1" and m.tool_calls[1].function.name == "divide", "ids/names")
        expect(r.choices[0].finish_reason == "tool_calls", f"finish_reason {r.choices[0].finish_reason}")
        expect(r.model == "gpt-test" and r.object == "chat.completion", "model/object")
        expect(r.usage.prompt_tokens == 31 and r.usage.total_tokens == 38, f"usage {r.usage}")
        reqs, fails, st = srv.mine()
        expect(not fails and st["remaining"] == 0, f"failures {fails}")
        expect(reqs[0]["headers"]["authorization"] == "Bearer ***", f"key not masked: {reqs[0]['headers']}")
        expect(reqs[0]["body"]["messages"] == [USER], "recorded body")
    check("openai SDK: non-streaming, text + 2 tool calls", openai_nonstreaming)

    def openai_tool_results() -> None:
        srv.script({"provider": "openai",
                    "expect": {"tool_results": [{"id": "call_1", "contains": "5"}, {"id": "call_2", "contains": "2"}],
                               "tool_choice": "absent"},
                    "respond": {"text": "2 + 3 = 5 and 10 / 5 = 2."}})
        history = [USER,
                   {"role": "assistant", "content": None, "tool_calls": [
                       {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
                       for c in TWO_CALLS]},
                   {"role": "tool", "tool_call_id": "call_1", "content": "5"},
                   {"role": "tool", "tool_call_id": "call_2", "content": [{"type": "text", "text": "2"}]}]
        r = oai.chat.completions.create(model="gpt-test", messages=history, tools=TOOLS_OPENAI)
        expect(r.choices[0].message.content == "2 + 3 = 5 and 10 / 5 = 2.", f"content {r.choices[0].message.content!r}")
        expect(r.choices[0].message.tool_calls is None and r.choices[0].finish_reason == "stop", "no calls, stop")
        _, fails, _ = srv.mine()
        expect(not fails, f"failures {fails}")
    check("openai SDK: tool results answered, final text", openai_tool_results)

    def openai_streaming() -> None:
        step = {"provider": "openai", "expect": {"stream": True, "tools": ["add", "divide"]},
                "respond": {"text": "Let me compute.", "tool_calls": TWO_CALLS, "usage": {"input": 12, "output": 9}}}
        srv.script(step, step)
        stream = oai.chat.completions.create(model="gpt-test", messages=[USER], tools=TOOLS_OPENAI, stream=True,
                                             stream_options={"include_usage": True})
        text, calls, finish, usage, n = "", {}, None, None, 0
        for chunk in stream:
            n += 1
            if chunk.usage is not None:
                usage = chunk.usage
            for choice in chunk.choices:
                text += choice.delta.content or ""
                for tc in choice.delta.tool_calls or []:
                    acc = calls.setdefault(tc.index, {"id": None, "name": None, "arguments": ""})
                    acc["id"] = tc.id or acc["id"]
                    if tc.function and tc.function.name:
                        acc["name"] = tc.function.name
                    acc["arguments"] += (tc.function.arguments or "") if tc.function else ""
                finish = choice.finish_reason or finish
        expect(text == "Let me compute.", f"streamed text {text!r}")
        expect(calls[1] == {"id": "call_2", "name": "divide", "arguments": "{\"a\": 10, \"b\": 5}"}, f"calls {calls}")
        expect(finish == "tool_calls" and usage is not None and usage.completion_tokens == 9, f"finish {finish} usage {usage}")
        expect(n >= 10, f"only {n} chunks: text and arguments should come in pieces")
        # The SDK's own accumulator (chat.completions.stream) must agree.
        with oai.chat.completions.stream(model="gpt-test", messages=[USER], tools=TOOLS_OPENAI) as s:
            final = s.get_final_completion()
        m = final.choices[0].message
        expect(m.content == "Let me compute." and m.tool_calls[1].function.arguments == "{\"a\": 10, \"b\": 5}",
               f"accumulated {m}")
        _, fails, st = srv.mine()
        expect(not fails and st["remaining"] == 0, f"failures {fails}")
    check("openai SDK: streaming, text + 2 tool calls accumulated", openai_streaming)

    def openai_retry() -> None:
        srv.script({"respond": {"status": 429, "headers": {"retry-after": "0"}, "message": "Rate limit reached"}},
                   {"respond": {"text": "after the retry"}})
        r = oai.chat.completions.create(model="gpt-test", messages=[USER])
        expect(r.choices[0].message.content == "after the retry", "retried answer")
        reqs, fails, st = srv.mine()
        expect([q["status"] for q in reqs] == [429, 200] and not fails and st["remaining"] == 0, f"requests {reqs}")
        expect(reqs[1]["headers"].get("x-stainless-retry-count") == "1", "the second request is the SDK's retry")
    check("openai SDK: 429 retry-after 0 then success (the SDK retries)", openai_retry)

    def openai_error_surfaces() -> None:
        srv.script({"respond": {"status": 400, "message": "context too long"}})
        try:
            oai.chat.completions.create(model="gpt-test", messages=[USER])
        except openai.BadRequestError as e:
            expect(e.body.get("message") == "context too long" and e.body.get("type") == "invalid_request_error",
                   f"error body {e.body}")
        else:
            raise AssertionError("no error raised")
    check("openai SDK: scripted 400 parsed as BadRequestError", openai_error_surfaces)

    # --------------------------------------------------------- Anthropic SDK
    def anthropic_nonstreaming() -> None:
        srv.script({"provider": "anthropic",
                    "expect": {"tools": ["add", "divide"], "tool_choice": {"type": "auto"}, "stream": False,
                               "last_user_contains": "2 + 3"},
                    "respond": {"text": "Let me compute.", "tool_calls": TWO_USES, "usage": {"input": 20, "output": 8}}})
        r = ant.messages.create(model="claude-test", max_tokens=1024, messages=[USER], tools=TOOLS_ANTHROPIC,
                                tool_choice={"type": "auto"})
        expect([b.type for b in r.content] == ["text", "tool_use", "tool_use"], f"content {r.content}")
        expect(r.content[0].text == "Let me compute.", "text")
        expect(r.content[2].input == {"a": 10, "b": 5} and r.content[2].id == "toolu_2", f"tool_use {r.content[2]}")
        expect(r.stop_reason == "tool_use" and r.model == "claude-test" and r.usage.output_tokens == 8, f"{r}")
        reqs, fails, _ = srv.mine()
        expect(not fails, f"failures {fails}")
        hdrs = reqs[0]["headers"]
        expect("anthropic-version" in hdrs and (hdrs.get("x-api-key") == "***" or hdrs.get("authorization") == "Bearer ***"),
               f"headers {hdrs}")
    check("anthropic SDK: non-streaming, text + 2 tool_use", anthropic_nonstreaming)

    def anthropic_tool_results() -> None:
        srv.script({"provider": "anthropic",
                    "expect": {"tool_results": [{"id": "toolu_1", "contains": "5", "is_error": False},
                                                {"id": "toolu_2", "contains": "division", "is_error": True}],
                               "last_user_contains": "2 + 3"},
                    "respond": {"text": "2 + 3 = 5; the division failed."}})
        history = [USER,
                   {"role": "assistant", "content": [{"type": "text", "text": "Let me compute."}] + [
                       {"type": "tool_use", "id": c["id"], "name": c["name"], "input": json.loads(c["arguments"])}
                       for c in TWO_USES]},
                   {"role": "user", "content": [
                       {"type": "tool_result", "tool_use_id": "toolu_1", "content": "5"},
                       {"type": "tool_result", "tool_use_id": "toolu_2", "is_error": True,
                        "content": [{"type": "text", "text": "division by zero"}]}]}]
        r = ant.messages.create(model="claude-test", max_tokens=1024, messages=history, tools=TOOLS_ANTHROPIC)
        expect(r.content[0].text == "2 + 3 = 5; the division failed." and r.stop_reason == "end_turn", f"{r}")
        _, fails, _ = srv.mine()
        expect(not fails, f"failures {fails}")
    check("anthropic SDK: tool_result blocks (is_error) answered, final text", anthropic_tool_results)

    def anthropic_streaming() -> None:
        srv.script({"provider": "anthropic", "expect": {"stream": True},
                    "respond": {"text": "Let me compute.", "tool_calls": TWO_USES, "usage": {"input": 20, "output": 11}}})
        with ant.messages.stream(model="claude-test", max_tokens=1024, messages=[USER], tools=TOOLS_ANTHROPIC) as s:
            kinds = [ev.type for ev in s]
            final = s.get_final_message()
        expect([b.type for b in final.content] == ["text", "tool_use", "tool_use"], f"content {final.content}")
        expect(final.content[0].text == "Let me compute.", "text")
        expect(final.content[1].input == {"a": 2, "b": 3} and final.content[2].input == {"a": 10, "b": 5},
               f"inputs {final.content[1].input} {final.content[2].input}")
        expect(final.stop_reason == "tool_use" and final.usage.output_tokens == 11, f"{final.stop_reason} {final.usage}")
        expect("input_json" in kinds and "text" in kinds, f"event kinds {kinds}")
        _, fails, _ = srv.mine()
        expect(not fails, f"failures {fails}")
    check("anthropic SDK: messages.stream + get_final_message, text + 2 tool_use", anthropic_streaming)

    def anthropic_retry() -> None:
        srv.script({"respond": {"status": 429, "headers": {"retry-after": "0"}, "message": "Rate limited"}},
                   {"respond": {"text": "after the retry"}})
        r = ant.messages.create(model="claude-test", max_tokens=64, messages=[USER])
        expect(r.content[0].text == "after the retry", "retried answer")
        reqs, fails, st = srv.mine()
        expect([q["status"] for q in reqs] == [429, 200] and not fails and st["remaining"] == 0, f"requests {reqs}")
    check("anthropic SDK: 429 retry-after 0 then success (the SDK retries)", anthropic_retry)

    def anthropic_overloaded() -> None:
        srv.script({"respond": {"status": 529, "message": "Overloaded"}})
        try:
            ant.with_options(max_retries=0).messages.create(model="claude-test", max_tokens=64, messages=[USER])
        except anthropic.APIStatusError as e:
            expect(e.status_code == 529 and e.body["error"]["type"] == "overloaded_error", f"{e.status_code} {e.body}")
        else:
            raise AssertionError("no error raised")
    check("anthropic SDK: 529 overloaded_error body", anthropic_overloaded)

    # -------------------------------------------------- raw wire behaviours
    def openai_truncated() -> None:
        srv.script({"respond": {"truncate_stream": True, "text": "partial answer"}})
        code, hdrs, data = srv.http("POST", "/v1/chat/completions", {
            "model": "m", "messages": [USER], "stream": True}, OPENAI_HEADERS)
        text = data.decode()
        expect(code == 200 and hdrs["content-type"].startswith("text/event-stream"), f"{code} {hdrs}")
        chunks = [json.loads(line[6:]) for line in text.split("\n") if line.startswith("data: {")]
        streamed = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
        expect(streamed == "partial answer", f"streamed {streamed!r}")
        expect("[DONE]" not in text and all(c["choices"][0]["finish_reason"] is None for c in chunks), text)
        expect(hdrs.get("connection") == "close", f"headers {hdrs}")
    check("raw: openai truncate_stream ends without finish/[DONE]", openai_truncated)

    def anthropic_truncated() -> None:
        srv.script({"respond": {"truncate_stream": True, "text": "partial answer"}})
        code, _, data = srv.http("POST", "/v1/messages", {
            "model": "m", "max_tokens": 10, "messages": [USER], "stream": True}, ANTHROPIC_HEADERS)
        text = data.decode()
        expect(code == 200 and "event: message_start" in text and "message_stop" not in text
               and "message_delta" not in text and "content_block_stop" not in text, text)
    check("raw: anthropic truncate_stream ends without message_stop", anthropic_truncated)

    def raw_body() -> None:
        srv.script({"respond": {"status": 200, "raw": "this is not json"}})
        code, hdrs, data = srv.http("POST", "/v1/chat/completions", {"model": "m", "messages": [USER]}, OPENAI_HEADERS)
        expect(code == 200 and data == b"this is not json" and hdrs["content-type"] == "application/json", f"{code} {data!r}")
    check("raw: {status 200, raw} answered verbatim", raw_body)

    def openai_invalid_args_passthrough() -> None:
        srv.script({"respond": {"tool_calls": [{"id": "call_x", "name": "add", "arguments": "{not json"}]}})
        r = oai.chat.completions.create(model="gpt-test", messages=[USER], tools=TOOLS_OPENAI)
        expect(r.choices[0].message.tool_calls[0].function.arguments == "{not json" and r.choices[0].message.content is None,
               f"{r.choices[0].message}")
    check("openai SDK: invalid JSON arguments passed through as-is", openai_invalid_args_passthrough)

    def disconnect_during_delay() -> None:
        srv.script({"delay_ms": 3000, "respond": {"text": "too late"}})
        body = json.dumps({"model": "m", "messages": [USER]}).encode()
        with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as s:
            s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
                      + f"authorization: Bearer {API_KEY}\r\ncontent-length: {len(body)}\r\n\r\n".encode() + body)
            deadline = time.monotonic() + 10
            while not srv.mine()[0]:  # wait until the server has the request
                expect(time.monotonic() < deadline, "the request never arrived")
                time.sleep(0.02)
        deadline = time.monotonic() + 10
        while True:
            reqs, fails, _ = srv.mine()
            if reqs[0]["client_disconnected"]:
                break
            expect(time.monotonic() < deadline, f"disconnect not recorded: {reqs}")
            time.sleep(0.02)
        expect(not fails, f"failures {fails}")
    check("raw: client disconnect during delay_ms is recorded", disconnect_during_delay)

    # -------------------------------------------------------------- refusals
    def refused(name: str, path: str, body: Any, headers: dict, needle: str, provider_shape: str,
                step: dict | None = None) -> None:
        def run() -> None:
            srv.script(step or {"respond": {"text": "should not be answered"}})
            code, _, data = srv.http("POST", path, body, headers)
            expect(code == 400, f"answered {code}: {data[:300]!r}")
            err = json.loads(data)
            if provider_shape == "openai":
                e = err.get("error", {})
                expect(set(e) == {"message", "type", "param", "code"} and e["type"] == "invalid_request_error"
                       and e["param"] is None, f"not the OpenAI error shape: {err}")
                message = e["message"]
            else:
                expect(err.get("type") == "error" and err["error"]["type"] == "invalid_request_error",
                       f"not the Anthropic error shape: {err}")
                message = err["error"]["message"]
            expect(needle in message, f"the message does not name the problem ({needle!r}): {message}")
            reqs, fails, _ = srv.mine()
            expect(len(fails) == 1 and needle in " ".join(fails[0]["problems"]), f"failures {fails}")
            expect(reqs[-1]["status"] == 400 and reqs[-1]["problems"], f"request record {reqs[-1]}")
        check(f"refused: {name}", run)

    ok_openai = {"model": "m", "messages": [USER]}
    ok_anthropic = {"model": "m", "max_tokens": 10, "messages": [USER]}
    refused("openai unknown top-level key", "/v1/chat/completions", {**ok_openai, "bogus_top": 1},
            OPENAI_HEADERS, "bogus_top", "openai")
    refused("openai unknown nested key messages[0].bogus", "/v1/chat/completions",
            {"model": "m", "messages": [{**USER, "bogus": 1}]}, OPENAI_HEADERS, "messages[0].", "openai")
    refused("openai unknown key deep in a tool definition", "/v1/chat/completions",
            {**ok_openai, "tools": [{"type": "function", "function": {"name": "add", "parameters": {"type": "object"},
                                                                    "strictly": True}}]},
            OPENAI_HEADERS, "strictly", "openai")
    refused("openai tool message answering no call", "/v1/chat/completions",
            {"model": "m", "messages": [USER, {"role": "tool", "tool_call_id": "call_9", "content": "5"}]},
            OPENAI_HEADERS, "call_9", "openai")
    refused("openai assistant tool calls left unanswered", "/v1/chat/completions",
            {"model": "m", "messages": [
                USER, {"role": "assistant", "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "add", "arguments": "{}"}},
                    {"id": "call_2", "type": "function", "function": {"name": "add", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "call_1", "content": "5"},
                {"role": "user", "content": "and?"}]},
            OPENAI_HEADERS, "call_2", "openai")
    refused("openai tool name with a dot", "/v1/chat/completions",
            {**ok_openai, "tools": [{"type": "function", "function": {"name": "calc.add", "parameters": {"type": "object"}}}]},
            OPENAI_HEADERS, "calc.add", "openai")
    refused("openai wrong API key", "/v1/chat/completions", ok_openai,
            {**OPENAI_HEADERS, "authorization": "Bearer sk-wrong"}, "authorization", "openai")
    refused("openai expectation (tools) not met", "/v1/chat/completions", ok_openai, OPENAI_HEADERS,
            "expected the tools", "openai", {"expect": {"tools": ["add"]}, "respond": {"text": "x"}})
    refused("openai request sent to a step scripted for anthropic", "/v1/chat/completions", ok_openai, OPENAI_HEADERS,
            "anthropic API", "openai", {"provider": "anthropic", "respond": {"text": "x"}})
    refused("anthropic unknown nested key messages[0].content[0].bogus", "/v1/messages",
            {**ok_anthropic, "messages": [{"role": "user", "content": [{"type": "text", "text": "hi", "bogus": 1}]}]},
            ANTHROPIC_HEADERS, "bogus", "anthropic")
    refused("anthropic non-alternating roles", "/v1/messages",
            {**ok_anthropic, "messages": [USER, {"role": "user", "content": "again"}]},
            ANTHROPIC_HEADERS, "consecutive 'user'", "anthropic")
    refused("anthropic tool_use without tool_result", "/v1/messages",
            {**ok_anthropic, "messages": [
                USER, {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "add", "input": {}}]},
                {"role": "user", "content": "what now?"}]},
            ANTHROPIC_HEADERS, "toolu_1", "anthropic")
    refused("anthropic tool_result after a text block", "/v1/messages",
            {**ok_anthropic, "messages": [
                USER, {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "add", "input": {}}]},
                {"role": "user", "content": [{"type": "text", "text": "here"},
                                             {"type": "tool_result", "tool_use_id": "toolu_1", "content": "5"}]}]},
            ANTHROPIC_HEADERS, "must come first", "anthropic")
    refused("anthropic tool name with a dot", "/v1/messages",
            {**ok_anthropic, "tools": [{"name": "calc.add", "input_schema": {"type": "object"}}]},
            ANTHROPIC_HEADERS, "calc.add", "anthropic")
    refused("anthropic missing max_tokens", "/v1/messages", {"model": "m", "messages": [USER]},
            ANTHROPIC_HEADERS, "max_tokens", "anthropic")
    refused("anthropic missing anthropic-version", "/v1/messages", ok_anthropic,
            {k: v for k, v in ANTHROPIC_HEADERS.items() if k != "anthropic-version"}, "anthropic-version", "anthropic")
    refused("anthropic expectation (is_error) not met", "/v1/messages",
            {**ok_anthropic, "messages": [
                USER, {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "add", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "5"}]}]},
            ANTHROPIC_HEADERS, "is_error", "anthropic",
            {"expect": {"tool_results": [{"id": "toolu_1", "contains": "5", "is_error": True}]}, "respond": {"text": "x"}})

    def anthropic_script_error() -> None:
        srv.script({"respond": {"tool_calls": [{"name": "add", "arguments": "{not json"}]}})
        code, _, data = srv.http("POST", "/v1/messages", ok_anthropic, ANTHROPIC_HEADERS)
        err = json.loads(data)
        expect(code == 500 and err["error"]["type"] == "api_error" and "script error" in err["error"]["message"],
               f"{code} {err}")
        _, fails, _ = srv.mine()
        expect(len(fails) == 1 and "not the text of a JSON object" in fails[0]["problems"][0], f"{fails}")
    check("script error: invalid JSON arguments in an Anthropic non-streaming answer -> 500, recorded",
          anthropic_script_error)

    def exhausted() -> None:
        srv.script()
        code, _, data = srv.http("POST", "/v1/messages", ok_anthropic, ANTHROPIC_HEADERS)
        expect(code == 400 and b"script exhausted" in data, f"{code} {data!r}")
        _, fails, st = srv.mine()
        expect(len(fails) == 1 and st["remaining"] == 0, f"{fails}")
    check("refused: script exhausted", exhausted)

    def bad_script() -> None:
        code, _, data = srv.http("POST", "/__script", {"steps": [{"respond": {"text": "x"}, "expects": {}}]},
                                 {"content-type": "application/json"})
        expect(code == 400 and b"expects" in data, f"{code} {data!r}")
    check("refused: malformed script (unknown key 'expects')", bad_script)

    def clean_status() -> None:
        st = srv.status()
        expect(st["remaining"] == 0, f"remaining {st['remaining']}")
        expect(all("bogus" not in json.dumps(r["headers"]) for r in st["requests"]), "headers")
        expect(not any(API_KEY in json.dumps(r["headers"]) for r in st["requests"]), "an API key leaked into /__status")
    check("status: no steps left, API keys masked everywhere", clean_status)


if __name__ == "__main__":
    sys.exit(main())
