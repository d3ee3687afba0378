#!/usr/bin/env python3
"""Self-test of tests/agent/scripted_model.py against the official SDK clients.

    .tools/pyenv/bin/python tests/agent/selftest.py

Starts the scripted model server (a subprocess) and proves that
  * its answers are exactly what the official `openai` and `anthropic` SDK
    clients accept and parse: non-streaming and streaming, text plus two tool
    calls, tool results going back, a 429 with retry-after: 0 that the SDKs
    retry, a truncated stream, raw bodies, delays and client disconnects;
  * the OpenAI Responses API likewise, with `client.responses.create` (JSON,
    and stream=True read event by event) and the SDK's `responses.stream`
    accumulator: text, function calls, usage details, a second request with
    previous_response_id answering the calls with function_call_output items
    (a string, and a list with input_text + input_image), a stateless replayed
    history, a 429 retried, an error step, a truncated stream;
  * it refuses what the providers refuse, each answered 400 in the provider's
    error shape and recorded in /__status "failures": unknown keys at the top
    level and nested (messages[0].bogus, input[0].bogus), a tool message (or
    function_call_output) answering no call, an assistant's calls left
    unanswered (also a previous response's), an unknown previous_response_id,
    Anthropic non-alternating roles and unanswered tool_use, a tool name with
    a dot, wrong credentials, missing anthropic-version, unmet script
    expectations, an exhausted script, and a malformed script;
  * the image / document expectations of tool results (Anthropic image and
    document blocks, Responses input_image parts, Chat image messages after
    the tool messages) and the structured-output expectation (Chat
    response_format, Responses text.format, Anthropic output_config.format)
    are met by a request that satisfies them and refused, naming the problem,
    for one that does not; base64 media that does not decode or is not the
    type it claims, and strict output schemas that break OpenAI's strict
    rules, are refused.
Prints one line per check and exits non-zero, naming the failed checks, if
any check fails.
"""

from __future__ import annotations

import base64
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
TOOLS_RESPONSES = [
    {"type": "function", "name": t["function"]["name"], "description": t["function"]["description"],
     "parameters": t["function"]["parameters"], "strict": None} for t in TOOLS_OPENAI
]
# Real files' first bytes (the server checks the magic numbers).
PNG = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c63f8ffff3f0005fe02fea7d6a4ea0000000049454e44ae426082")).decode()
JPEG = base64.b64encode(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9").decode()
PDF = base64.b64encode(b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n").decode()
STRICT_SCHEMA = {"type": "object", "properties": {"answer": {"type": "number"}, "unit": {"type": "string"}},
                 "required": ["answer", "unit"], "additionalProperties": False}
LOOSE_SCHEMA = {"type": "object", "properties": {"answer": {"type": "number"}, "unit": {"type": "string"}}}
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

    responses_checks(srv, oai, refused)
    media_checks(srv, oai, ant, refused)
    output_schema_checks(srv, oai, ant, refused)

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


Refused = Callable[..., None]


def responses_checks(srv: Server, oai: openai.OpenAI, refused: Refused) -> None:
    """The OpenAI Responses API (POST /v1/responses) against the official client."""

    def responses_json() -> None:
        srv.script({"provider": "openai_responses",
                    "expect": {"tools": ["add", "divide"], "tool_choice": "auto", "stream": False,
                               "last_user_contains": "2 + 3", "previous_response_id": "absent",
                               "output_schema": "absent"},
                    "respond": {"text": "Let me compute.", "tool_calls": TWO_CALLS,
                                "usage": {"input": 31, "output": 7, "cached": 4, "reasoning": 2}}})
        r = oai.responses.create(model="gpt-test", input=[USER], tools=TOOLS_RESPONSES, tool_choice="auto",
                                 instructions="Be brief.")
        expect(r.object == "response" and r.status == "completed" and r.model == "gpt-test", f"{r}")
        expect(r.id.startswith("resp_") and r.id[5:].isdigit(), f"id {r.id}")
        expect([o.type for o in r.output] == ["message", "function_call", "function_call"], f"output {r.output}")
        expect(r.output_text == "Let me compute." and r.output[0].content[0].type == "output_text", f"{r.output[0]}")
        fc = r.output[2]
        expect(fc.call_id == "call_2" and fc.name == "divide" and fc.arguments == "{\"a\": 10, \"b\": 5}"
               and fc.id and fc.id != fc.call_id, f"function_call {fc}")
        u = r.usage
        expect(u.input_tokens == 31 and u.output_tokens == 7 and u.total_tokens == 38
               and u.input_tokens_details.cached_tokens == 4 and u.output_tokens_details.reasoning_tokens == 2, f"usage {u}")
        expect(r.instructions == "Be brief." and [t.name for t in r.tools] == ["add", "divide"], "echoed request fields")
        reqs, fails, st = srv.mine()
        expect(not fails and st["remaining"] == 0, f"failures {fails}")
        expect(reqs[0]["path"] == "/v1/responses" and reqs[0]["headers"]["authorization"] == "Bearer ***", f"{reqs[0]}")
        responses_json.first = r  # type: ignore[attr-defined]
    check("openai SDK responses: JSON, text + 2 function calls, usage details", responses_json)

    def responses_previous() -> None:
        first = getattr(responses_json, "first", None)
        expect(first is not None, "needs the previous check's response")
        srv.script({"provider": "openai_responses",
                    "expect": {"previous_response_id": "previous",
                               "tool_results": [{"id": "call_1", "contains": "5"},
                                                {"id": "call_2", "contains": "chart", "image": "image/png"}]},
                    "respond": {"text": "2 + 3 = 5; see the chart."}},
                   {"provider": "openai_responses", "expect": {"previous_response_id": first.id},
                    "respond": {"text": "again"}})
        r = oai.responses.create(model="gpt-test", previous_response_id=first.id, tools=TOOLS_RESPONSES, input=[
            {"type": "function_call_output", "call_id": "call_1", "output": "5"},
            {"type": "function_call_output", "call_id": "call_2", "output": [
                {"type": "input_text", "text": "the chart"},
                {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}"}]}])
        expect(r.output_text == "2 + 3 = 5; see the chart." and r.previous_response_id == first.id, f"{r}")
        # The same calls answered again on top of the same previous response: an exact-id expectation.
        r2 = oai.responses.create(model="gpt-test", previous_response_id=first.id, input=[
            {"type": "function_call_output", "call_id": "call_1", "output": "5"},
            {"type": "function_call_output", "call_id": "call_2", "output": "2"}])
        expect(r2.output_text == "again", f"{r2}")
        _, fails, st = srv.mine()
        expect(not fails and st["remaining"] == 0, f"failures {fails}")
    check("openai SDK responses: previous_response_id + function_call_output (text, input_image)", responses_previous)

    def responses_history() -> None:
        srv.script({"provider": "openai_responses",
                    "expect": {"previous_response_id": "absent", "last_user_contains": "2 + 3",
                               "tool_results": [{"id": "call_1", "contains": "5"}, {"id": "call_2", "contains": "2"}]},
                    "respond": {"text": "5 and 2"}})
        history = [
            {"role": "system", "content": "Be brief."}, USER,
            {"type": "message", "role": "assistant", "id": "msg_old", "status": "completed",
             "content": [{"type": "output_text", "text": "Let me compute.", "annotations": []}]},
            *[{"type": "function_call", "call_id": c["id"], "name": c["name"], "arguments": c["arguments"]} for c in TWO_CALLS],
            {"type": "function_call_output", "call_id": "call_1", "output": "5"},
            {"type": "function_call_output", "call_id": "call_2", "output": [{"type": "input_text", "text": "2"}]},
        ]
        r = oai.responses.create(model="gpt-test", input=history, tools=TOOLS_RESPONSES, store=False)
        expect(r.output_text == "5 and 2", f"{r}")
        _, fails, _ = srv.mine()
        expect(not fails, f"failures {fails}")
    check("openai SDK responses: stateless history (function_call items answered in input)", responses_history)

    def responses_streaming() -> None:
        step = {"provider": "openai_responses", "expect": {"stream": True, "tools": ["add", "divide"]},
                "respond": {"text": "Let me compute.", "tool_calls": TWO_CALLS, "usage": {"input": 12, "output": 9}}}
        srv.script(step, step)
        kinds, seqs, text, args, final = [], [], "", {}, None
        for ev in oai.responses.create(model="gpt-test", input=[USER], tools=TOOLS_RESPONSES, stream=True):
            kinds.append(ev.type)
            seqs.append(ev.sequence_number)
            if ev.type == "response.output_text.delta":
                text += ev.delta
            elif ev.type == "response.function_call_arguments.delta":
                args[ev.output_index] = args.get(ev.output_index, "") + ev.delta
            elif ev.type == "response.completed":
                final = ev.response
        expect(seqs == list(range(len(seqs))), f"sequence numbers {seqs}")
        expect(kinds[:4] == ["response.created", "response.in_progress", "response.output_item.added",
                             "response.content_part.added"] and kinds[-1] == "response.completed", f"kinds {kinds}")
        order = ["response.output_text.done", "response.content_part.done", "response.output_item.done"]
        expect([k for k in kinds if k in order][:3] == order, f"text item closing order {kinds}")
        expect(kinds.count("response.output_text.delta") >= 2 and kinds.count("response.function_call_arguments.delta") >= 4,
               f"deltas should come in pieces: {kinds}")
        expect(kinds.count("response.function_call_arguments.done") == 2 and kinds.count("response.output_item.done") == 3, f"{kinds}")
        expect(text == "Let me compute." and args == {1: "{\"a\": 2, \"b\": 3}", 2: "{\"a\": 10, \"b\": 5}"}, f"{text!r} {args}")
        expect(final is not None and final.status == "completed" and final.usage.output_tokens == 9
               and [o.type for o in final.output] == ["message", "function_call", "function_call"], f"final {final}")
        # The SDK's own accumulator (responses.stream) must agree.
        with oai.responses.stream(model="gpt-test", input=[USER], tools=TOOLS_RESPONSES) as s:
            for _ in s:
                pass
            acc = s.get_final_response()
        expect(acc.output_text == "Let me compute." and acc.output[2].arguments == "{\"a\": 10, \"b\": 5}"
               and acc.output[1].call_id == "call_1", f"accumulated {acc}")
        _, fails, st = srv.mine()
        expect(not fails and st["remaining"] == 0, f"failures {fails}")
        # A streamed response is remembered too: answer its calls with previous_response_id.
        srv.script({"expect": {"previous_response_id": "previous", "tool_results": [{"id": "call_1"}, {"id": "call_2"}]},
                    "respond": {"text": "ok"}})
        r = oai.responses.create(model="gpt-test", previous_response_id=acc.id, input=[
            {"type": "function_call_output", "call_id": c["id"], "output": "x"} for c in TWO_CALLS])
        expect(r.output_text == "ok", f"{r}")
        _, fails, _ = srv.mine()
        expect(not fails, f"failures {fails}")
    check("openai SDK responses: streaming events, accumulated by responses.stream", responses_streaming)

    def responses_retry_and_error() -> None:
        srv.script({"respond": {"status": 429, "headers": {"retry-after": "0"}, "message": "Rate limit reached"}},
                   {"respond": {"text": "after the retry"}},
                   {"respond": {"status": 400, "message": "context too long"}})
        r = oai.with_options(max_retries=2).responses.create(model="gpt-test", input="hi")
        expect(r.output_text == "after the retry", "retried answer")
        try:
            oai.responses.create(model="gpt-test", input="hi", stream=True)
        except openai.BadRequestError as e:
            expect(e.body.get("message") == "context too long" and e.body.get("type") == "invalid_request_error",
                   f"error body {e.body}")
        else:
            raise AssertionError("no error raised")
        reqs, fails, st = srv.mine()
        expect([q["status"] for q in reqs] == [429, 200, 400] and not fails and st["remaining"] == 0, f"{reqs}")
    check("openai SDK responses: 429 retried, scripted 400 on a stream request -> BadRequestError",
          responses_retry_and_error)

    def responses_truncated() -> None:
        srv.script({"respond": {"truncate_stream": True, "text": "partial answer",
                                "tool_calls": [{"id": "call_t", "name": "add", "arguments": "{\"a\": 1, \"b\": 2}"}]}})
        code, hdrs, data = srv.http("POST", "/v1/responses", {"model": "m", "input": "hi", "stream": True}, OPENAI_HEADERS)
        text = data.decode()
        events = [json.loads(line[6:]) for line in text.split("\n") if line.startswith("data: ")]
        kinds = [e["type"] for e in events]
        expect(code == 200 and hdrs.get("connection") == "close", f"{code} {hdrs}")
        expect("response.completed" not in kinds and kinds[-1] == "response.function_call_arguments.delta"
               and kinds.count("response.output_item.done") == 1, f"kinds {kinds}")
        expect("".join(e["delta"] for e in events if e["type"] == "response.function_call_arguments.delta")
               == "{\"a\": 1, \"b\": 2}", "arguments streamed before the cut")
        rid = events[0]["response"]["id"]
        # ... and a truncated response is not remembered.
        refused_prev = {"model": "m", "previous_response_id": rid,
                        "input": [{"type": "function_call_output", "call_id": "call_t", "output": "3"}]}
        srv.script({"respond": {"text": "x"}})
        code, _, data = srv.http("POST", "/v1/responses", refused_prev, OPENAI_HEADERS)
        expect(code == 400 and b"not a response this server produced" in data, f"{code} {data!r}")
    check("raw: responses truncate_stream ends after the last delta, not remembered", responses_truncated)

    ok = {"model": "m", "input": [USER]}
    refused("responses unknown nested key input[0].bogus", "/v1/responses",
            {"model": "m", "input": [{**USER, "bogus": 1}]}, OPENAI_HEADERS, "bogus", "openai")
    refused("responses function tool without the required strict key", "/v1/responses",
            {**ok, "tools": [{"type": "function", "name": "add", "parameters": {"type": "object"}}]},
            OPENAI_HEADERS, "strict: Field required", "openai")
    refused("responses function_call_output answering no call", "/v1/responses",
            {"model": "m", "input": [USER, {"type": "function_call_output", "call_id": "call_9", "output": "5"}]},
            OPENAI_HEADERS, "call_9", "openai")
    refused("responses function_call left unanswered before a user message", "/v1/responses",
            {"model": "m", "input": [USER, {"type": "function_call", "call_id": "call_1", "name": "add", "arguments": "{}"},
                                     {"role": "user", "content": "and?"}]},
            OPENAI_HEADERS, "call_1", "openai")
    refused("responses unknown previous_response_id", "/v1/responses", {**ok, "previous_response_id": "resp_nope"},
            OPENAI_HEADERS, "resp_nope", "openai")
    refused("responses tool name with a dot", "/v1/responses",
            {**ok, "tools": [{"type": "function", "name": "calc.add", "parameters": {"type": "object"}, "strict": False}]},
            OPENAI_HEADERS, "calc.add", "openai")
    refused("responses duplicate tool names", "/v1/responses",
            {**ok, "tools": [TOOLS_RESPONSES[0], TOOLS_RESPONSES[0]]}, OPENAI_HEADERS, "offered twice", "openai")
    refused("responses named tool_choice not offered", "/v1/responses",
            {**ok, "tools": TOOLS_RESPONSES, "tool_choice": {"type": "function", "name": "mul"}},
            OPENAI_HEADERS, "'mul'", "openai")
    refused("responses strict tool whose schema breaks the strict rules", "/v1/responses",
            {**ok, "tools": [{**TOOLS_RESPONSES[0], "strict": True}]}, OPENAI_HEADERS, "additionalProperties", "openai")
    refused("responses wrong API key", "/v1/responses", ok, {**OPENAI_HEADERS, "authorization": "Bearer sk-wrong"},
            "authorization", "openai")
    refused("responses request to a step scripted for openai (chat)", "/v1/responses", ok, OPENAI_HEADERS,
            "openai API", "openai", {"provider": "openai", "respond": {"text": "x"}})
    refused("responses expectation previous_response_id not met", "/v1/responses", ok, OPENAI_HEADERS,
            "previous_response_id", "openai", {"expect": {"previous_response_id": "previous"}, "respond": {"text": "x"}})

    def responses_previous_unanswered() -> None:
        srv.script({"respond": {"tool_calls": TWO_CALLS}}, {"respond": {"text": "x"}})
        r = oai.responses.create(model="gpt-test", input="hi", tools=TOOLS_RESPONSES)
        code, _, data = srv.http("POST", "/v1/responses", {
            "model": "m", "previous_response_id": r.id, "tools": TOOLS_RESPONSES,
            "input": [{"type": "function_call_output", "call_id": "call_1", "output": "5"},
                      {"role": "user", "content": "next"}]}, OPENAI_HEADERS)
        message = json.loads(data)["error"]["message"]
        expect(code == 400 and "call_2" in message and f"response {r.id}" in message, f"{code} {message}")
        _, fails, _ = srv.mine()
        expect(len(fails) == 1, f"failures {fails}")
    check("refused: responses call of the previous response unanswered before a user message",
          responses_previous_unanswered)


def media_checks(srv: Server, oai: openai.OpenAI, ant: anthropic.Anthropic, refused: Refused) -> None:
    """expect.tool_results[i].image / .document, each provider's native form."""
    use = {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "add", "input": {}}]}

    def anthropic_image_and_document() -> None:
        srv.script({"provider": "anthropic",
                    "expect": {"tool_results": [{"id": "toolu_1", "contains": "a chart", "image": "image/png",
                                                 "document": "application/pdf"}]},
                    "respond": {"text": "seen"}})
        r = ant.messages.create(model="claude-test", max_tokens=64, tools=TOOLS_ANTHROPIC, messages=[
            USER, use, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [
                {"type": "text", "text": "here is a chart"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
                {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": PDF}}]}]}])
        expect(r.content[0].text == "seen", f"{r}")
        _, fails, _ = srv.mine()
        expect(not fails, f"failures {fails}")
    check("anthropic SDK: tool_result with image and document blocks meets image/document expectations",
          anthropic_image_and_document)

    def chat_image_followup() -> None:
        srv.script({"provider": "openai",
                    "expect": {"tool_results": [{"id": "call_1", "contains": "5"},
                                                {"id": "call_2", "contains": "chart", "image": "image/jpeg"}],
                               "last_user_contains": "2 + 3"},
                    "respond": {"text": "seen"}})
        r = oai.chat.completions.create(model="gpt-test", tools=TOOLS_OPENAI, messages=[
            USER, {"role": "assistant", "content": None, "tool_calls": [
                {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
                for c in TWO_CALLS]},
            {"role": "tool", "tool_call_id": "call_1", "content": "5"},
            {"role": "tool", "tool_call_id": "call_2", "content": "a chart (image below)"},
            {"role": "user", "content": [{"type": "text", "text": "The image returned by call_2:"},
                                         {"type": "image_url", "image_url": {"url": f"data:image/jpeg;base64,{JPEG}"}}]}])
        expect(r.choices[0].message.content == "seen", f"{r}")
        _, fails, _ = srv.mine()
        expect(not fails, f"failures {fails}")
    check("openai SDK chat: tool message + a user message with the image meets the image expectation",
          chat_image_followup)

    ok_anthropic = {"model": "m", "max_tokens": 10, "messages": [
        USER, use, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "text only"}]}]}
    refused("anthropic expectation image not met (text-only tool_result)", "/v1/messages", ok_anthropic,
            ANTHROPIC_HEADERS, "image of type image/png", "anthropic",
            {"expect": {"tool_results": [{"id": "toolu_1", "image": "image/png"}]}, "respond": {"text": "x"}})
    refused("anthropic expectation document not met", "/v1/messages", ok_anthropic,
            ANTHROPIC_HEADERS, "document block of type application/pdf", "anthropic",
            {"expect": {"tool_results": [{"id": "toolu_1", "document": "application/pdf"}]}, "respond": {"text": "x"}})
    refused("anthropic image whose bytes are not its media_type", "/v1/messages",
            {**ok_anthropic, "messages": [USER, use, {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": [
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": JPEG}}]}]}]},
            ANTHROPIC_HEADERS, "declared 'image/png' but its bytes are 'image/jpeg'", "anthropic")
    refused("anthropic image data that is not base64", "/v1/messages",
            {**ok_anthropic, "messages": [{"role": "user", "content": [
                {"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": "not base64!"}},
                {"type": "text", "text": "what is this?"}]}]},
            ANTHROPIC_HEADERS, "does not decode", "anthropic")
    chat_calls = [USER, {"role": "assistant", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "add", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "a chart"}]
    refused("openai chat expectation image not met (no user message with the image)", "/v1/chat/completions",
            {"model": "m", "messages": chat_calls}, OPENAI_HEADERS, "user message after the tool messages", "openai",
            {"expect": {"tool_results": [{"id": "call_1", "image": "image/png"}]}, "respond": {"text": "x"}})
    refused("openai chat expectation image of the wrong type", "/v1/chat/completions",
            {"model": "m", "messages": chat_calls + [{"role": "user", "content": [
                {"type": "image_url", "image_url": {"url": f"data:image/jpeg;base64,{JPEG}"}}]}]},
            OPENAI_HEADERS, "found: image/jpeg", "openai",
            {"expect": {"tool_results": [{"id": "call_1", "image": "image/png"}]}, "respond": {"text": "x"}})
    fco = {"type": "function_call", "call_id": "call_1", "name": "add", "arguments": "{}"}
    refused("responses expectation image not met (input_image of another type)", "/v1/responses",
            {"model": "m", "input": [USER, fco, {"type": "function_call_output", "call_id": "call_1", "output": [
                {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}"}]}]},
            OPENAI_HEADERS, "image of type image/jpeg", "openai",
            {"expect": {"tool_results": [{"id": "call_1", "image": "image/jpeg"}]}, "respond": {"text": "x"}})
    refused("responses input_image data URL whose bytes are another format", "/v1/responses",
            {"model": "m", "input": [USER, fco, {"type": "function_call_output", "call_id": "call_1", "output": [
                {"type": "input_image", "image_url": f"data:image/webp;base64,{PNG}"}]}]},
            OPENAI_HEADERS, "declared 'image/webp'", "openai")


def output_schema_checks(srv: Server, oai: openai.OpenAI, ant: anthropic.Anthropic, refused: Refused) -> None:
    """expect.output_schema: the JSON output each provider is asked for."""
    want = {"name": "answer", "properties": ["answer", "unit"], "strict": True}

    def structured_all_three() -> None:
        srv.script({"provider": "openai", "expect": {"output_schema": want}, "respond": {"text": "{\"answer\": 5, \"unit\": \"\"}"}},
                   {"provider": "openai_responses", "expect": {"output_schema": want}, "respond": {"text": "{\"answer\": 5, \"unit\": \"\"}"}},
                   {"provider": "anthropic", "expect": {"output_schema": {"properties": ["unit", "answer"], "strict": True}},
                    "respond": {"text": "{\"answer\": 5, \"unit\": \"\"}"}},
                   {"provider": "anthropic", "expect": {"output_schema": "absent"}, "respond": {"text": "plain"}})
        r = oai.chat.completions.create(model="gpt-test", messages=[USER], response_format={
            "type": "json_schema", "json_schema": {"name": "answer", "schema": STRICT_SCHEMA, "strict": True}})
        expect(json.loads(r.choices[0].message.content)["answer"] == 5, f"{r}")
        r2 = oai.responses.create(model="gpt-test", input=[USER], text={"format": {
            "type": "json_schema", "name": "answer", "schema": STRICT_SCHEMA, "strict": True}})
        expect(json.loads(r2.output_text)["answer"] == 5 and r2.text.format.type == "json_schema", f"{r2}")
        r3 = ant.messages.create(model="claude-test", max_tokens=64, messages=[USER],
                                 output_config={"format": {"type": "json_schema", "schema": STRICT_SCHEMA}})
        expect(json.loads(r3.content[0].text)["unit"] == "", f"{r3}")
        r4 = ant.messages.create(model="claude-test", max_tokens=64, messages=[USER])
        expect(r4.content[0].text == "plain", f"{r4}")
        _, fails, st = srv.mine()
        expect(not fails and st["remaining"] == 0, f"failures {fails}")
    check("SDKs: structured output requests (chat response_format, responses text.format, anthropic output_config)",
          structured_all_three)

    chat_format = {"type": "json_schema", "json_schema": {"name": "answer", "schema": STRICT_SCHEMA, "strict": True}}
    refused("openai chat output_schema properties differ", "/v1/chat/completions",
            {"model": "m", "messages": [USER], "response_format": chat_format}, OPENAI_HEADERS,
            "expected the output schema's properties ['answer', 'total']", "openai",
            {"expect": {"output_schema": {"properties": ["answer", "total"]}}, "respond": {"text": "x"}})
    refused("openai chat strict response_format whose schema breaks the strict rules", "/v1/chat/completions",
            {"model": "m", "messages": [USER], "response_format": {
                "type": "json_schema", "json_schema": {"name": "answer", "schema": LOOSE_SCHEMA, "strict": True}}},
            OPENAI_HEADERS, "response_format.json_schema.schema: strict mode needs \"additionalProperties\": false", "openai")
    refused("responses output_schema expected, none asked for", "/v1/responses", {"model": "m", "input": [USER]},
            OPENAI_HEADERS, "text.format", "openai",
            {"expect": {"output_schema": {"properties": ["answer"]}}, "respond": {"text": "x"}})
    refused("responses output_schema absent expected, one asked for", "/v1/responses",
            {"model": "m", "input": [USER], "text": {"format": {"type": "json_schema", "name": "answer",
                                                                "schema": STRICT_SCHEMA, "strict": True}}},
            OPENAI_HEADERS, "expected no structured output", "openai",
            {"expect": {"output_schema": "absent"}, "respond": {"text": "x"}})
    refused("responses output_schema name/strict differ", "/v1/responses",
            {"model": "m", "input": [USER], "text": {"format": {"type": "json_schema", "name": "result",
                                                                "schema": LOOSE_SCHEMA}}},
            OPENAI_HEADERS, "expected the output schema name 'answer'", "openai",
            {"expect": {"output_schema": want}, "respond": {"text": "x"}})
    refused("anthropic output_schema strict expected, schema breaks the strict rules", "/v1/messages",
            {"model": "m", "max_tokens": 10, "messages": [USER],
             "output_config": {"format": {"type": "json_schema", "schema": LOOSE_SCHEMA}}},
            ANTHROPIC_HEADERS, "output_config.format.schema: strict mode needs every property in \"required\"", "anthropic",
            {"expect": {"output_schema": {"properties": ["answer", "unit"], "strict": True}}, "respond": {"text": "x"}})


if __name__ == "__main__":
    sys.exit(main())
