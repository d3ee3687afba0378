#!/usr/bin/env python3
"""A scripted stand-in for the model providers, for the oxmcp-agent tests.

It speaks the providers' real wire formats -- OpenAI-compatible Chat
Completions, the OpenAI Responses API and Anthropic Messages -- and checks
every request it receives against the providers' OWN published types: the
request-parameter TypedDicts of the official Python SDKs (`openai`,
`anthropic`, pinned by scripts/install-tools.sh), validated with pydantic
with unknown keys rejected at every level, plus the documented rules those
types cannot express. Its answers come from a script, one step per model
request, and are built from the SDKs' own response models, so they are right
by construction (and tests/agent/selftest.py proves them against the SDK
clients).

Usage
-----
    .tools/pyenv/bin/python tests/agent/scripted_model.py --script SCRIPT.json \
        [--port 0] [--api-key KEY] [--max-seconds 600] [--exit-on-stdin-eof] [--quiet]

It listens on 127.0.0.1 and prints `PORT <n>` on stdout (flushed) once
listening. One line per request goes to stderr (unless --quiet). It exits on
its own after --max-seconds (default 600) so it can never outlive a test run,
and with --exit-on-stdin-eof as soon as its stdin closes (the Rust helper
holds the pipe, so a test process that dies takes the server with it).
`--script -` or no --script starts with an empty script (load one with
POST /__script).

Endpoints
---------
  POST /v1/chat/completions   (also /chat/completions)  OpenAI Chat Completions   provider "openai"
  POST /v1/responses          (also /responses)         OpenAI Responses API      provider "openai_responses"
  POST /v1/messages                                      Anthropic Messages        provider "anthropic"
  GET  /__status    {"consumed", "remaining", "script", "failures", "requests"}
  POST /__check_tools  {"format": "openai_chat"|"openai_responses"|"anthropic", "tools": [...]}:
                    each tool validated as the SDK's tool parameter type (unknown
                    keys rejected), its name checked, strict tools checked against
                    OpenAI's strict-mode rules; answers {"problems": [...]}
  POST /__script    replace the remaining script (body: same shape as the file);
                    answers {"ok": true, "script": <generation>} or 400 if the
                    script is malformed. The log (requests, failures) is kept:
                    each record carries its script generation ("script") and
                    step index ("step") so a test can pick its own requests.
  POST /__reset     {"api_key": KEY|null}: back to a server just started with an
                    empty script and that key (--api-key), its log and
                    Responses-API memory emptied: a test harness reuses one
                    server for test after test (starting Python with the SDKs
                    takes over a second).

/__status:
  consumed   number of steps taken since the server started (all scripts)
  remaining  steps left in the current script
  script     current script generation (0 = the --script file, +1 per POST /__script)
  failures   [{"request": i, "script": g, "step": s|null, "path", "problems": [str]}]
             every request that was refused (validation, expectation, script
             exhausted, unknown path, script error)
  requests   [{"index", "method", "path", "headers" (lower-cased names, API keys
             masked as "***"), "body" (the parsed JSON, or the raw text when it
             is not JSON), "script", "step", "status" (the HTTP status answered),
             "problems" ([] when valid), "client_disconnected" (true when the
             client went away during delay_ms / chunk_delay_ms)}]

Validation of every model request
---------------------------------
* Headers. OpenAI (Chat and Responses): with --api-key, `authorization:
  Bearer <key>` must match. Anthropic: a credential is required, `x-api-key:
  <key>` or `authorization: Bearer <key>` (the official SDK 2.x sends the
  latter), matching --api-key when given; `anthropic-version` present
  (YYYY-MM-DD). All: `content-type: application/json`.
* Body: JSON validated as openai.types.chat.completion_create_params.
  CompletionCreateParams{Streaming,NonStreaming}, openai.types.responses.
  response_create_params.ResponseCreateParams{Streaming,NonStreaming} or
  anthropic.types.message_create_params.MessageCreateParams{Streaming,
  NonStreaming} (chosen by `stream`), in pydantic strict mode, with every
  TypedDict (and SDK model) in the schema switched to extra="forbid" and the
  SDKs' lazy `Iterable[...]` fields switched to eager lists, so an unknown key
  anywhere (e.g. messages[0].bogus, input[2].output[0].bogus) is an error,
  and so is a missing Required key (e.g. a Responses function tool without
  `strict`).
* Documented rules the types cannot express:
  OpenAI Chat: every `tool` message's tool_call_id answers a call of the
  preceding assistant message; all of that message's calls are answered, in
  order, before any other message; an assistant message has content or
  tool_calls; tool names match ^[a-zA-Z0-9_-]{1,64}$ and are unique; `tools`
  is not an empty array; function `parameters` is an object schema
  (`"type": "object"`) and, with `strict: true`, every object in it sets
  additionalProperties:false and requires all its properties; tool_choice /
  parallel_tool_calls only with tools, a named tool_choice names an offered
  tool; stream_options only with stream: true.
  OpenAI Responses: function (and custom) tool names match
  ^[a-zA-Z0-9_-]{1,64}$ and are unique; a function tool's `parameters`, when
  not null, is an object schema, and with `strict: true` it is present and
  follows the strict rules above; a named tool_choice ({"type": "function",
  "name"} or {"type": "custom", "name"}) names an offered tool;
  stream_options only with stream: true; `previous_response_id` names a
  response this server produced (answered in full: a JSON answer, or a stream
  that reached response.completed -- a truncate_stream one does not count),
  and not together with `conversation`; with `previous_response_id`, no input
  item carries the `id` of an output item of that response (the API answers
  "Duplicate item found"). Function calls, walking `input` in order: the
  calls "in play" start as the function calls of the previous response (when
  `previous_response_id` is given), and every `function_call` item adds one
  (its name matches the tool-name pattern; a call_id made twice is an
  error); every `function_call_output` item has a call_id that answers (a) a
  `function_call` item earlier in `input` or (b) a call of the previous
  response, at most one output per call_id; a `message` item of role `user`
  (an item with `"type": "message"`, or with a `role` and no `type`) while
  calls are in play and unanswered is an error, and so is an unanswered call
  when `input` ends. The order of outputs among themselves is free.
  Anthropic: at least one message; roles alternate user/assistant starting
  with user (stricter than the API, which merges consecutive same-role turns:
  an agent that sends them has a bug); each tool_use of an assistant message is
  answered by a tool_result with its id in the immediately following user
  message, tool_result blocks first, and no tool_result answers anything
  else; tool_use ids match ^[a-zA-Z0-9_-]+$; content is non-empty and text
  blocks are not empty/whitespace-only (except a final assistant prefill);
  tool names match ^[a-zA-Z0-9_-]{1,64}$ and are unique; a named tool_choice
  names an offered tool, tool_choice only with tools; max_tokens present.
  Anthropic tool search (ToolParam.defer_loading: "Only loaded when returned
  via tool_reference from tool search"): deferred tools need a tool search
  tool (type tool_search_tool_bm25* or tool_search_tool_regex*), which is not
  itself deferred, and not every tool may be deferred; a tool_use of a
  deferred tool follows a tool_search_tool_result of the conversation whose
  tool_references name it; a tool_search_tool_result answers a
  server_tool_use before it in its message.
  Base64 media, everywhere in a request (Anthropic `image` / `document`
  blocks with `"source": {"type": "base64", ...}`, in messages and inside
  tool_result content; Chat `image_url` parts and Responses `input_image`
  parts whose URL is `data:<mime>;base64,<data>`, in messages and in
  function_call_output lists): the data is base64 that decodes, and its bytes
  start with the magic number of the declared type -- image/png `\x89PNG`,
  image/jpeg `\xff\xd8`, image/gif `GIF8`, image/webp `RIFF....WEBP`,
  application/pdf `%PDF` (the APIs refuse an image that does not decode or
  is not what it claims). http(s) URLs and file ids are not checked.
  Structured output (OpenAI): a Chat `response_format` {"type":
  "json_schema", "json_schema": {"name", "schema", "strict"}} or a Responses
  `text.format` {"type": "json_schema", "name", "schema", "strict"} has a
  name matching ^[a-zA-Z0-9_-]{1,64}$; with `"strict": true` the schema's
  root is {"type": "object"} (not anyOf) and it follows the strict rules
  above.
A refused request is answered 400 with the provider's error body
(OpenAI, Chat and Responses: {"error": {"message", "type":
"invalid_request_error", "param": null, "code": null}}, Anthropic {"type":
"error", "error": {"type": "invalid_request_error", "message"}}) naming the
problems, and recorded in `failures`. A refused request still consumes its
step (one step per model request, in order), except when the script is
exhausted or the path unknown.

Script format
-------------
    {"steps": [step, ...]}          consumed one per model request, in order

    step = {
      "provider": "openai" | "openai_responses" | "anthropic",
                                            optional: the request must come to this API
                                            ("openai" = Chat Completions); absent = any
      "expect": {                           all optional; a mismatch is a failure (400 + recorded)
        "tools": ["add", "divide"],         exact set of offered tool names (order-insensitive;
                                            Chat: function and custom tools; Responses: the
                                            function (and custom) tools' names; Anthropic: all tools)
        "no_tools": true,                   the request offers no tools (key absent or empty)
        "deferred": ["add"],                Anthropic: exact set of the tools marked
                                            `defer_loading: true` (tool search)
        "tool_choice": <JSON value> | "absent",   equal to the request's value; "absent" = key missing
        "stream": true | false,             the request's `stream` (missing = false)
        "tool_results": [{"id": "call_1", "contains": "5", "is_error": false,
                          "image": "image/png", "document": "application/pdf"}, ...],
              the results at the end of the conversation, in order, exactly these
              (every key of an entry optional):
              Chat: the run of `tool` messages closing the conversation (id =
              tool_call_id; text content), optionally followed by `user` messages
              carrying their images (see "image");
              Responses: the trailing `function_call_output` items of `input`
              (id = call_id; text = `output` when it is a string, else the text of
              its `input_text` parts);
              Anthropic: the tool_result blocks of the last user message
              (id = tool_use_id; text = string content or its text blocks;
              is_error compared as the block's flag, missing = false).
              "contains" is a substring of the result's text; "is_error" is checked
              for Anthropic only (OpenAI has no such flag).
              "image": one of image/png, image/jpeg, image/gif, image/webp -- the
              result carries an image of that type in the provider's native form,
              base64 data that decodes and starts with that format's magic number:
                Anthropic: the tool_result's `content` list has an `image` block
                  {"type": "image", "source": {"type": "base64", "media_type": <mime>,
                  "data": <base64>}};
                Responses: the function_call_output's `output` list has an
                  {"type": "input_image", "image_url": "data:<mime>;base64,<data>"}
                  part (`detail` optional there);
                Chat (tool messages carry text only): after the run of tool
                  messages come one or more `user` messages whose content list has
                  {"type": "image_url", "image_url": {"url": "data:<mime>;base64,<data>"}}
                  parts; the results that expect an image take those parts in order
                  (each result with "image" consumes the next unused part of its type,
                  across all those user messages), so one combined message or one
                  message per result both work.
              "document": "application/pdf" -- Anthropic only: the tool_result's
              `content` list has a {"type": "document", "source": {"type": "base64",
              "media_type": "application/pdf", "data": <base64 of %PDF...>}} block
              (for the other providers it is reported as a problem).
        "last_user_contains": "2 + 3"       substring of the text of the last user
              message that has text (Chat: role "user", skipping the image messages
              that follow tool messages -- a user message with an image_url part
              right after a tool message or after another such message; Responses:
              `input` itself when it is a string, else the last `message` item of
              role "user" with string content or input_text parts; Anthropic:
              string content or text blocks, tool_result blocks ignored)
        "output_schema": {"name": "answer", "properties": ["answer", "unit"], "strict": true}
                       | "absent",
              the request asks for JSON output with a JSON schema (every key
              optional): Chat `response_format` {"type": "json_schema",
              "json_schema": {"name", "schema", "strict"}}; Responses `text.format`
              {"type": "json_schema", "name", "schema", "strict"}; Anthropic
              `output_config.format` {"type": "json_schema", "schema"}.
              "properties": the schema's top-level `properties` has exactly these
              names (order-insensitive); "name": equal to the format's name
              (OpenAI only; Anthropic formats have none); "strict": OpenAI -- equal
              to the format's `strict` (missing/null = false; a strict schema that
              breaks the strict rules is refused by validation anyway); Anthropic
              (no flag) -- true checks the schema against OpenAI's strict rules,
              false checks nothing. "absent": no JSON output is asked for (no
              json_schema or json_object format: `response_format` / `text.format`
              missing or {"type": "text"}, `output_config.format` missing or null).
        "previous_response_id": "absent" | "previous" | "resp_3"
              Responses: the request's `previous_response_id` -- "absent" = missing
              or null; "previous" = the id of the last response this server
              produced (an error when it has produced none); else the exact id.
      },
      "respond": one of
        {"text": "...", "tool_calls": [{"id": "call_1", "name": "add",
                                        "arguments": "{\"a\": 2, \"b\": 3}"}],
         "stop_reason": "...", "usage": {"input": 10, "output": 5, "cached": 0, "reasoning": 0}}
            A normal answer; every key optional ("text" "" / absent = no text).
            "server_blocks" (Anthropic, JSON answers only): raw content blocks
            placed between the text and the tool_use blocks, e.g. a
            server_tool_use of the tool search tool and its
            tool_search_tool_result (checked by the SDK's Message model).
            "arguments" is the raw string the model writes (an object is
            accepted and serialized). OpenAI (Chat and Responses) passes it
            through as-is (it may be invalid JSON on purpose). Anthropic: when
            not streaming it must be the text of a JSON object (it becomes
            tool_use.input); when streaming it is sent as-is in
            input_json_delta.partial_json fragments. "id" defaults to
            call_<n>_<i> (Chat and Responses call_id) / toolu_<n>_<i>, where <n>
            is the server-wide number of the step (1-based, counted across all
            scripts: /__status "consumed" once the step is taken) and <i> the
            call's index. "stop_reason" overrides finish_reason (Chat) /
            stop_reason (Anthropic); the default is tool_calls/tool_use when
            there are calls, else stop/end_turn (Responses has none: status is
            "completed"). "usage" defaults to {"input": 10, "output": 5};
            "cached" and "reasoning" (default 0) fill the details: Responses
            input_tokens_details.cached_tokens / output_tokens_details.
            reasoning_tokens (always present); Chat prompt_tokens_details.
            cached_tokens / completion_tokens_details.reasoning_tokens (only when
            given); Anthropic cache_read_input_tokens = cached.
            Answer ids: Chat "chatcmpl-scripted<n>", Anthropic
            "msg_scripted<nnnn>", Responses "resp_<n>".
            Responses JSON answer: an openai.types.responses.Response with
            "id": "resp_<n>", "object": "response", "status": "completed",
            "model" echoed, "output": a `message` item ({"id": "msg_<n>", "type":
            "message", "role": "assistant", "status": "completed", "content":
            [{"type": "output_text", "text", "annotations": [], "logprobs": []}]})
            when there is text, then one `function_call` item per call ({"id":
            "fc_<n>_<i>", "type": "function_call", "status": "completed",
            "call_id", "name", "arguments"}), "usage" {"input_tokens",
            "input_tokens_details": {"cached_tokens", "cache_write_tokens": 0},
            "output_tokens", "output_tokens_details": {"reasoning_tokens"},
            "total_tokens"}; the request's tools, tool_choice (default "auto"),
            parallel_tool_calls (default true), instructions, metadata,
            temperature / top_p (default 1.0), max_output_tokens, text (default
            {"format": {"type": "text"}}), truncation (default "disabled"),
            reasoning and previous_response_id are echoed as the API does. The
            server remembers it (id -> its call_ids and item ids) for later
            `previous_response_id` requests.
            Streaming requests get SSE: Chat `data: <ChatCompletionChunk>` chunks
            (role; text in pieces; per call a chunk with index, id, type,
            function.name and "" arguments, then the arguments in 2-3
            fragments; the finish_reason chunk; a usage chunk with empty
            choices when stream_options.include_usage; `data: [DONE]`).
            Anthropic `event: <type>` / `data: <json>` events (message_start,
            ping, per block content_block_start / _delta (text_delta,
            input_json_delta) / _stop, message_delta, message_stop).
            Responses `event: <type>` / `data: <ResponseStreamEvent json>` events,
            each with "sequence_number" 0, 1, 2, ...: response.created and
            response.in_progress (the response with status "in_progress",
            "output": [], "usage": null); for the text item (output_index 0):
            response.output_item.added (the item, status "in_progress", "content":
            []), response.content_part.added (content_index 0, an empty
            output_text part), response.output_text.delta (the text in up to 3
            pieces, "logprobs": []), response.output_text.done ("text"),
            response.content_part.done (the full part), response.output_item.done
            (the completed item); per call (next output_index):
            response.output_item.added (status "in_progress", "arguments": ""),
            response.function_call_arguments.delta (the arguments in 2-3 pieces),
            response.function_call_arguments.done ("arguments"),
            response.output_item.done (the completed item); finally
            response.completed with the whole response as in the JSON answer.
            No `data: [DONE]` (the API sends none).
        {"status": 429, "headers": {"retry-after": "0"}, "message": "Rate limit reached",
         "type": "...", "code": "..."}
            a provider-shaped error body with that message (status >= 400;
            "type"/"code" override the error type (and OpenAI code) that
            otherwise follow from the status); answered as plain JSON to
            streaming requests too, as the APIs do before a stream starts.
            Responses uses the OpenAI error body.
        {"status": 200, "raw": "this is not json", "content_type": "application/json"}
            that body verbatim (content_type default application/json)
        {"truncate_stream": true, "text": "partial", "tool_calls": [...]}
            (streaming requests only) the stream stops before its end -- Chat: no
            finish chunk / [DONE]; Anthropic: not even the last
            content_block_stop, no message_delta / message_stop; Responses: the
            stream ends right after the last item's last delta (no
            .done / output_item.done events for that item, no response.completed;
            with neither text nor calls, after response.in_progress), and that
            response is not remembered -- and the connection closes (the HTTP
            body itself ends cleanly).
        Any respond form may carry "headers": {...} added to the answer.
      "delay_ms": 0,          optional: wait before answering (for cancellation tests);
                              a client that disconnects meanwhile is recorded
      "chunk_delay_ms": 0,    optional: wait between SSE events of a stream
      "comment": "..."        ignored
    }

A request when no step remains is answered 400 "script exhausted" and
recorded as a failure. Unknown keys anywhere in a script are an error (a
typo must not silently weaken a test).

What the SDK types require of a request (the parts an agent gets wrong)
------------------------------------------------------------------------
  Responses function tool: {"type": "function", "name", "parameters",
    "strict"} -- `parameters` and `strict` are Required keys (null allowed),
    "description" optional; no nested "function" object.
  Responses function_call_output: {"type": "function_call_output",
    "call_id", "output"} with `output` a string or a list of
    {"type": "input_text", "text"} / {"type": "input_image", "image_url" |
    "file_id", "detail"?} / {"type": "input_file", ...} parts (`detail` is
    optional here but Required on an input_image inside a message's content).
  Responses function_call (replayed history): {"type": "function_call",
    "call_id", "name", "arguments"} Required, "id" / "status" optional.
  Responses named tool_choice: {"type": "function", "name"}.
  Chat image part: {"type": "image_url", "image_url": {"url", "detail"?}},
    allowed in user messages, not in tool messages (their content is a string
    or text parts only).
  Chat response_format: {"type": "json_schema", "json_schema": {"name"
    (Required), "schema", "strict"?, "description"?}}.
  Responses text.format: {"type": "json_schema", "name" (Required), "schema"
    (Required), "strict"?, "description"?} -- flat, no "json_schema" wrapper.
  Anthropic output_config: {"format": {"type": "json_schema", "schema"}}
    (no name, no strict), "effort"? ; tool_result content: a string or a list
    of text / image / document / search_result / tool_reference /
    browser_state blocks; image source
    media_type one of image/jpeg, image/png, image/gif, image/webp; document
    base64 source media_type "application/pdf".
"""

from __future__ import annotations

import argparse
import base64
import binascii
import copy
import json
import os
import re
import select
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

try:
    import pydantic
    from pydantic import TypeAdapter
    from pydantic_core import SchemaValidator, ValidationError

    from openai.types.chat import ChatCompletion, ChatCompletionChunk, ChatCompletionFunctionToolParam
    from openai.types.responses import FunctionToolParam as ResponsesFunctionToolParam
    from openai.types.responses import Response as OpenAIResponse
    from openai.types.responses import ResponseStreamEvent
    from openai.types.responses import response_create_params as responses_params
    from anthropic.types import ToolParam as AnthropicToolParam
    from openai.types.chat import completion_create_params as openai_params
    from openai.types.shared import ErrorObject as OpenAIErrorObject
    from anthropic.types import Message as AnthropicMessage
    from anthropic.types import RawMessageStreamEvent
    from anthropic.types import message_create_params as anthropic_params
    from anthropic.types.shared import ErrorResponse as AnthropicErrorResponse
except ImportError as e:  # pragma: no cover - environment problem, say so loudly
    sys.stderr.write(
        f"scripted_model.py: {e}\nthe scripted model server needs Python with openai and "
        "anthropic: run scripts/install-tools.sh and use .tools/pyenv/bin/python\n"
    )
    sys.exit(2)

TOOL_NAME_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
TOOL_USE_ID_RE = re.compile(r"^[a-zA-Z0-9_-]+$")
API_VERSION_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
SOCKET_TIMEOUT_S = 30  # per-connection read/write timeout: a stuck client never hangs us
MAX_BODY = 64 * 1024 * 1024


def log(msg: str) -> None:
    if not QUIET:
        sys.stderr.write(f"[scripted-model] {msg}\n")
        sys.stderr.flush()


QUIET = False

# --------------------------------------------------------------------------
# Request validation against the SDKs' published parameter types
# --------------------------------------------------------------------------


def _forbid_extra(core_schema: Any) -> Any:
    """A copy of a pydantic core schema where every TypedDict and model
    rejects unknown keys, and every lazy `Iterable[...]` (a pydantic
    "generator", validated only when consumed) is an eager list."""
    schema = copy.deepcopy(core_schema)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            kind = node.get("type")
            if kind in ("typed-dict", "model-fields"):
                node["extra_behavior"] = "forbid"
            elif kind == "generator":
                node["type"] = "list"
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    return schema


class StrictParams:
    """Validator for one SDK request TypedDict, unknown keys rejected."""

    def __init__(self, typed_dict: Any) -> None:
        self.name = f"{typed_dict.__module__}.{typed_dict.__qualname__}"
        self.validator = SchemaValidator(_forbid_extra(TypeAdapter(typed_dict).core_schema))

    def problems(self, raw_body: bytes) -> list[str]:
        try:
            self.validator.validate_json(raw_body, strict=True)
            return []
        except ValidationError as e:
            errors = _prune_union_noise(e.errors(include_url=False))
            shown = [f"{_loc(err['loc'])}: {err['msg']}" for err in errors[:8]]
            more = f" (+{len(errors) - 8} more)" if len(errors) > 8 else ""
            return [f"body does not validate as {self.name}: " + "; ".join(shown) + more]


# The SDKs' tool parameter types, for POST /__check_tools.
TOOL_PARAMS = {
    "openai_chat": StrictParams(ChatCompletionFunctionToolParam),
    "openai_responses": StrictParams(ResponsesFunctionToolParam),
    "anthropic": StrictParams(AnthropicToolParam),
}

_DISCRIMINATORS = ("type", "role")
_TYPE_MISMATCH = {
    "string_type", "list_type", "dict_type", "model_type", "model_attributes_type",
    "int_type", "float_type", "bool_type", "is_instance_of", "iterable_type",
    "literal_error", "none_required", "union_tag_invalid",
}


def _prune_union_noise(errors: list[dict]) -> list[dict]:
    """pydantic reports a failed union member by member; keep the members the
    input was meant to be. Drops (1) every branch whose discriminator
    (`type`/`role`) did not match, (1b) every branch that wants a
    discriminator the input lacks, when another branch of the same union is
    left (an untyped Responses `input` message is not a file_search_call), and
    (2) shallow type mismatches next to a deeper error under the same parent
    (e.g. `content.str` when the list form of `content` has the real
    problem). Falls back to all errors."""
    wrong_branches = [
        tuple(err["loc"][:-1])
        for err in errors
        if err["type"] == "literal_error" and err["loc"] and err["loc"][-1] in _DISCRIMINATORS
        and len(err["loc"]) >= 2 and isinstance(err["loc"][-2], str)
    ]
    kept = [
        err for err in errors
        if not any(tuple(err["loc"][: len(b)]) == b for b in wrong_branches)
    ]
    if not kept:
        return errors
    lacking = {
        tuple(err["loc"][:-1])
        for err in kept
        if err["type"] == "missing" and err["loc"] and err["loc"][-1] in _DISCRIMINATORS
        and len(err["loc"]) >= 2 and isinstance(err["loc"][-2], str)
    }
    if lacking:
        def branch_of(err: dict, union: tuple) -> Any:
            loc = tuple(err["loc"])
            return loc[len(union)] if len(loc) > len(union) and loc[: len(union)] == union else None
        drop = set()
        for b in lacking:
            union = b[:-1]
            others = {branch_of(e, union) for e in kept} - {None, b[-1]}
            if any(union + (o,) not in lacking for o in others):
                drop.add(b)
        kept = [err for err in kept if not any(tuple(err["loc"][: len(b)]) == b for b in drop)] or kept
    deeper = []
    for err in kept:
        loc = tuple(err["loc"])
        if err["type"] in _TYPE_MISMATCH and any(
            len(other["loc"]) > len(loc) and tuple(other["loc"][: len(loc) - 1]) == loc[:-1]
            and tuple(other["loc"][: len(loc)]) != loc
            for other in kept
        ):
            continue
        deeper.append(err)
    return deeper or kept


def _loc(loc: tuple) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif "[" in str(part):  # long union labels such as list[union[...]]
            continue
        else:
            out += ("." if out else "") + str(part)
    return out or "(body)"


OPENAI_NONSTREAM = StrictParams(openai_params.CompletionCreateParamsNonStreaming)
OPENAI_STREAM = StrictParams(openai_params.CompletionCreateParamsStreaming)
ANTHROPIC_NONSTREAM = StrictParams(anthropic_params.MessageCreateParamsNonStreaming)
ANTHROPIC_STREAM = StrictParams(anthropic_params.MessageCreateParamsStreaming)
RESPONSES_NONSTREAM = StrictParams(responses_params.ResponseCreateParamsNonStreaming)
RESPONSES_STREAM = StrictParams(responses_params.ResponseCreateParamsStreaming)

# --------------------------------------------------------------------------
# Documented rules the types cannot express
# --------------------------------------------------------------------------


def _text_of(content: Any) -> str:
    """The text of a message/result content: a string, or the text parts/blocks of a list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text", "") for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    return ""


def _check_tool_names(names: list[tuple[str, str]], problems: list[str]) -> None:
    seen: set[str] = set()
    for where, name in names:
        if not isinstance(name, str) or not TOOL_NAME_RE.match(name):
            problems.append(f"{where}: tool name {name!r} does not match ^[a-zA-Z0-9_-]{{1,64}}$")
        if name in seen:
            problems.append(f"{where}: tool name {name!r} is offered twice (tool names must be unique)")
        seen.add(name)


def openai_tool_names(body: dict) -> list[tuple[str, str]]:
    out = []
    for i, tool in enumerate(body.get("tools") or []):
        if tool.get("type") == "function":
            out.append((f"tools[{i}].function.name", tool.get("function", {}).get("name")))
        elif tool.get("type") == "custom":
            out.append((f"tools[{i}].custom.name", tool.get("custom", {}).get("name")))
    return out


def _strict_schema_problems(schema: Any, where: str, out: list[str]) -> None:
    if isinstance(schema, dict):
        if schema.get("type") == "object" or "properties" in schema:
            props = schema.get("properties") or {}
            if schema.get("additionalProperties") is not False:
                out.append(f"{where}: strict mode needs \"additionalProperties\": false")
            missing = sorted(set(props) - set(schema.get("required") or []))
            if missing:
                out.append(f"{where}: strict mode needs every property in \"required\" (missing {missing})")
        for key, value in schema.items():
            if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
                for name, sub in value.items():
                    _strict_schema_problems(sub, f"{where}.{key}.{name}", out)
            elif key in ("items", "anyOf", "oneOf", "allOf", "prefixItems"):
                subs = value if isinstance(value, list) else [value]
                for j, sub in enumerate(subs):
                    _strict_schema_problems(sub, f"{where}.{key}[{j}]", out)


def openai_rules(body: dict) -> list[str]:
    problems: list[str] = []
    messages = body.get("messages") or []
    pending_at, remaining = None, []  # the assistant message awaiting answers, its unanswered ids
    for i, msg in enumerate(messages):
        role = msg.get("role")
        if remaining and role != "tool":
            problems.append(
                f"messages[{i}] ({role}) comes before the tool calls {remaining} of assistant "
                f"messages[{pending_at}] are all answered by tool messages"
            )
            remaining = []
        if role == "tool":
            call_id = msg.get("tool_call_id")
            if remaining and call_id == remaining[0]:
                remaining.pop(0)
            elif call_id in remaining:
                problems.append(
                    f"messages[{i}]: tool message answers {call_id!r} out of order "
                    f"(the next unanswered call of messages[{pending_at}] is {remaining[0]!r})"
                )
                remaining.remove(call_id)
            else:
                problems.append(
                    f"messages[{i}]: tool message with tool_call_id {call_id!r} does not answer "
                    "an unanswered tool call of the preceding assistant message"
                )
        if role == "assistant":
            calls = msg.get("tool_calls") or []
            if not calls and msg.get("content") is None:
                problems.append(f"messages[{i}]: assistant message has neither content nor tool_calls")
            ids = [c.get("id") for c in calls]
            if len(set(ids)) != len(ids):
                problems.append(f"messages[{i}]: duplicate tool call ids {ids}")
            for j, call in enumerate(calls):
                name = (call.get("function") or call.get("custom") or {}).get("name")
                if not isinstance(name, str) or not TOOL_NAME_RE.match(name):
                    problems.append(
                        f"messages[{i}].tool_calls[{j}]: tool name {name!r} does not match ^[a-zA-Z0-9_-]{{1,64}}$"
                    )
            pending_at, remaining = i, list(ids)
    if remaining:
        problems.append(
            f"assistant messages[{pending_at}] has tool calls {remaining} that no tool message answers"
        )

    tools = body.get("tools")
    if tools is not None and len(tools) == 0:
        problems.append("tools: empty array (the API wants at least one tool; omit the key instead)")
    names = openai_tool_names(body)
    _check_tool_names(names, problems)
    for i, tool in enumerate(tools or []):
        fn = tool.get("function") if tool.get("type") == "function" else None
        if not fn:
            continue
        params = fn.get("parameters")
        if params is not None and params.get("type") != "object":
            problems.append(
                f"tools[{i}].function.parameters: must be a JSON Schema of \"type\": \"object\", "
                f"got type {params.get('type')!r}"
            )
        if fn.get("strict") is True and params is not None:
            _strict_schema_problems(params, f"tools[{i}].function.parameters", problems)
    if not tools:
        for key in ("tool_choice", "parallel_tool_calls"):
            if key in body:
                problems.append(f"{key}: only allowed when tools are specified")
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") in ("function", "custom"):
        named = (choice.get("function") or choice.get("custom") or {}).get("name")
        if named not in {n for _, n in names}:
            problems.append(f"tool_choice names {named!r}, which is not among the offered tools")
    if "stream_options" in body and body.get("stream") is not True:
        problems.append("stream_options: only allowed when stream is true")
    return problems


def anthropic_tool_names(body: dict) -> list[tuple[str, str]]:
    return [(f"tools[{i}].name", t.get("name")) for i, t in enumerate(body.get("tools") or [])]


def anthropic_rules(body: dict) -> list[str]:
    problems: list[str] = []
    messages = body.get("messages") or []
    if "max_tokens" not in body:
        problems.append("max_tokens: required")
    if not messages:
        problems.append("messages: at least one message is required")
    for i, msg in enumerate(messages):
        role = msg.get("role")
        if i == 0 and role != "user":
            problems.append(f"messages[0]: the first message must have role 'user', got {role!r}")
        if i > 0 and role == messages[i - 1].get("role"):
            problems.append(
                f"messages[{i}]: two consecutive {role!r} messages (roles must alternate user/assistant)"
            )
        content = msg.get("content")
        final_prefill = role == "assistant" and i == len(messages) - 1
        if content in ("", []) and not final_prefill:
            problems.append(f"messages[{i}]: content must be non-empty")
        blocks = content if isinstance(content, list) else []
        for j, block in enumerate(blocks):
            if block.get("type") == "text" and not final_prefill and not str(block.get("text", "")).strip():
                problems.append(f"messages[{i}].content[{j}]: text content blocks must contain non-whitespace text")

        if role == "assistant":
            uses = [b for b in blocks if b.get("type") == "tool_use"]
            ids = [b.get("id") for b in uses]
            for j, block in enumerate(blocks):
                if block.get("type") != "tool_use":
                    continue
                if not isinstance(block.get("id"), str) or not TOOL_USE_ID_RE.match(block["id"]):
                    problems.append(
                        f"messages[{i}].content[{j}]: tool_use id {block.get('id')!r} does not match ^[a-zA-Z0-9_-]+$"
                    )
                if not isinstance(block.get("name"), str) or not TOOL_NAME_RE.match(block["name"]):
                    problems.append(
                        f"messages[{i}].content[{j}]: tool name {block.get('name')!r} does not match ^[a-zA-Z0-9_-]{{1,64}}$"
                    )
            if len(set(ids)) != len(ids):
                problems.append(f"messages[{i}]: duplicate tool_use ids {ids}")
            if ids:
                nxt = messages[i + 1] if i + 1 < len(messages) else None
                if nxt is None or nxt.get("role") != "user":
                    problems.append(
                        f"messages[{i}]: tool_use ids {ids} must be answered by tool_result blocks in "
                        "the immediately following user message, and there is none"
                    )
                else:
                    nblocks = nxt.get("content") if isinstance(nxt.get("content"), list) else []
                    answered = {b.get("tool_use_id") for b in nblocks if b.get("type") == "tool_result"}
                    missing = [x for x in ids if x not in answered]
                    if missing:
                        problems.append(
                            f"messages[{i}]: tool_use ids {missing} have no tool_result block in "
                            f"messages[{i + 1}] (each tool_use must be answered in the next user message)"
                        )

        if role == "user":
            prev = messages[i - 1] if i > 0 else {}
            prev_blocks = prev.get("content") if prev.get("role") == "assistant" and isinstance(prev.get("content"), list) else []
            prev_ids = {b.get("id") for b in prev_blocks if b.get("type") == "tool_use"}
            seen_other, seen_ids = False, set()
            for j, block in enumerate(blocks):
                if block.get("type") != "tool_result":
                    seen_other = True
                    continue
                rid = block.get("tool_use_id")
                if seen_other:
                    problems.append(
                        f"messages[{i}].content[{j}]: tool_result block after another kind of block "
                        "(tool_result blocks must come first)"
                    )
                if rid not in prev_ids:
                    problems.append(
                        f"messages[{i}].content[{j}]: tool_result for {rid!r} answers no tool_use of the "
                        "immediately preceding assistant message"
                    )
                if rid in seen_ids:
                    problems.append(f"messages[{i}].content[{j}]: a second tool_result for {rid!r}")
                seen_ids.add(rid)

    problems += anthropic_deferral_rules(body)
    names = anthropic_tool_names(body)
    _check_tool_names(names, problems)
    choice = body.get("tool_choice")
    if isinstance(choice, dict):
        if not body.get("tools") and choice.get("type") != "none":
            problems.append("tool_choice: may only be specified while providing tools")
        if choice.get("type") == "tool" and choice.get("name") not in {n for _, n in names}:
            problems.append(f"tool_choice names {choice.get('name')!r}, which is not among the offered tools")
    return problems


TOOL_SEARCH_TYPES = ("tool_search_tool_bm25", "tool_search_tool_regex")


def anthropic_deferral_rules(body: dict) -> list[str]:
    """Tool search with deferred loading (the SDK's ToolParam.defer_loading:
    "If true, tool will not be included in initial system prompt. Only
    loaded when returned via tool_reference from tool search"): deferred
    tools need a tool search tool, which is itself not deferred, and not
    every tool may be deferred; a tool_use of a deferred tool must follow a
    tool_search_tool_result of the conversation whose tool_references name
    it; a tool_search_tool_result answers a server_tool_use before it."""
    problems: list[str] = []
    tools = body.get("tools") or []
    deferred = {t.get("name") for t in tools if t.get("defer_loading") is True}
    searches = [t for t in tools if str(t.get("type", "")).startswith(TOOL_SEARCH_TYPES)]
    if deferred and not searches:
        problems.append("tools: deferred tools (defer_loading: true) need a tool search tool among the tools")
    for t in searches:
        if t.get("defer_loading") is True:
            problems.append(f"tools: the tool search tool {t.get('name')!r} cannot be deferred")
    if tools and len(deferred) == len(tools):
        problems.append("tools: every tool is deferred; at least one must be loaded")
    referenced: set[str] = set()
    for i, msg in enumerate(body.get("messages") or []):
        blocks = msg.get("content") if isinstance(msg.get("content"), list) else []
        server_uses: set[str] = set()
        for j, block in enumerate(blocks):
            kind = block.get("type")
            if kind == "server_tool_use":
                server_uses.add(block.get("id"))
            elif kind == "tool_search_tool_result":
                if block.get("tool_use_id") not in server_uses:
                    problems.append(
                        f"messages[{i}].content[{j}]: tool_search_tool_result for {block.get('tool_use_id')!r} "
                        "answers no server_tool_use before it in the message"
                    )
                content = block.get("content") or {}
                for ref in content.get("tool_references") or []:
                    referenced.add(ref.get("tool_name"))
            elif kind == "tool_use" and msg.get("role") == "assistant" and block.get("name") in deferred:
                if block.get("name") not in referenced:
                    problems.append(
                        f"messages[{i}].content[{j}]: tool_use of the deferred tool {block.get('name')!r}, "
                        "which no earlier tool_search_tool_result references (a deferred tool is loaded "
                        "only when a tool_reference names it)"
                    )
    return problems


# ---- media (images and documents carried as base64)

# The first bytes of each format (`....` = any 4 bytes).
MAGIC = {
    "image/png": (b"\x89PNG",),
    "image/jpeg": (b"\xff\xd8",),
    "image/gif": (b"GIF8",),
    "image/webp": (re.compile(rb"^RIFF.{4}WEBP", re.S),),
    "application/pdf": (b"%PDF",),
}
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
DATA_URL_RE = re.compile(r"^data:([^;,]+);base64,(.*)$", re.S)


def sniff(data: bytes) -> str | None:
    """The type (a key of MAGIC) whose magic number `data` starts with."""
    for mime, magics in MAGIC.items():
        for magic in magics:
            if (magic.match(data) if isinstance(magic, re.Pattern) else data.startswith(magic)):
                return mime
    return None


def decode_base64(data: Any) -> bytes | None:
    if not isinstance(data, str):
        return None
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None


def media(mime: Any, data: Any) -> dict:
    """{"mime": declared type, "sniffed": type its bytes start with (None), "ok":
    the data is base64 that decodes and starts with the declared type's magic}."""
    raw = decode_base64(data)
    sniffed = sniff(raw) if raw is not None else None
    return {"mime": mime, "sniffed": sniffed, "decodes": raw is not None and len(raw) > 0,
            "ok": raw is not None and sniffed == mime}


def data_url_media(url: Any) -> dict | None:
    """media() of a `data:<mime>;base64,<data>` URL; None for any other URL."""
    m = DATA_URL_RE.match(url) if isinstance(url, str) else None
    return media(m.group(1), m.group(2)) if m else None


def _media_problem(found: dict, where: str, kind: str) -> str | None:
    """The general rule for base64 media anywhere in a request: it decodes, and
    is the kind it claims to be (the APIs answer 400 "Could not process image"
    / "Image does not match the provided media type")."""
    if not found["decodes"]:
        return f"{where}: the base64 {kind} data does not decode"
    if found["sniffed"] != found["mime"]:
        return (f"{where}: the {kind} data is declared {found['mime']!r} but its bytes "
                f"{'are ' + repr(found['sniffed']) if found['sniffed'] else 'match no known format'}")
    return None


def anthropic_media_problems(body: dict) -> list[str]:
    problems: list[str] = []

    def walk(blocks: Any, where: str) -> None:
        for j, block in enumerate(blocks if isinstance(blocks, list) else []):
            if not isinstance(block, dict):
                continue
            source = block.get("source") if isinstance(block.get("source"), dict) else {}
            if block.get("type") in ("image", "document") and source.get("type") == "base64":
                kind = "image" if block["type"] == "image" else "document"
                problem = _media_problem(media(source.get("media_type"), source.get("data")), f"{where}[{j}].source", kind)
                if problem:
                    problems.append(problem)
            if block.get("type") == "tool_result":
                walk(block.get("content"), f"{where}[{j}].content")

    for i, msg in enumerate(body.get("messages") or []):
        walk(msg.get("content"), f"messages[{i}].content")
    return problems


def openai_media_problems(body: dict) -> list[str]:
    problems: list[str] = []
    for i, msg in enumerate(body.get("messages") or []):
        for j, part in enumerate(msg.get("content") if isinstance(msg.get("content"), list) else []):
            if isinstance(part, dict) and part.get("type") == "image_url":
                found = data_url_media((part.get("image_url") or {}).get("url"))
                if found:
                    problem = _media_problem(found, f"messages[{i}].content[{j}].image_url.url", "image")
                    if problem:
                        problems.append(problem)
    return problems


def responses_media_problems(body: dict) -> list[str]:
    problems: list[str] = []
    items = body.get("input") if isinstance(body.get("input"), list) else []
    for i, item in enumerate(items):
        parts, key = (item.get("output"), "output") if item.get("type") == "function_call_output" else (item.get("content"), "content")
        for j, part in enumerate(parts if isinstance(parts, list) else []):
            if isinstance(part, dict) and part.get("type") == "input_image":
                found = data_url_media(part.get("image_url"))
                if found:
                    problem = _media_problem(found, f"input[{i}].{key}[{j}].image_url", "image")
                    if problem:
                        problems.append(problem)
    return problems


# ---- structured output

def requested_output_schema(provider: str, body: dict) -> dict | None:
    """{"where", "kind" ("json_schema" | "json_object"), "name", "schema", "strict"}
    of the JSON output the request asks for, or None."""
    if provider == "openai":
        fmt, where = body.get("response_format"), "response_format"
        if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
            spec = fmt.get("json_schema") or {}
            return {"where": "response_format.json_schema", "kind": "json_schema", "name": spec.get("name"),
                    "schema": spec.get("schema"), "strict": spec.get("strict")}
    elif provider == "openai_responses":
        fmt, where = (body.get("text") or {}).get("format"), "text.format"
        if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
            return {"where": "text.format", "kind": "json_schema", "name": fmt.get("name"),
                    "schema": fmt.get("schema"), "strict": fmt.get("strict")}
    else:
        fmt, where = (body.get("output_config") or {}).get("format"), "output_config.format"
        if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
            return {"where": "output_config.format", "kind": "json_schema", "name": None,
                    "schema": fmt.get("schema"), "strict": None}
    if isinstance(fmt, dict) and fmt.get("type") == "json_object":
        return {"where": where, "kind": "json_object", "name": None, "schema": None, "strict": None}
    return None


def _strict_root_problems(schema: Any, where: str, out: list[str]) -> None:
    """OpenAI's strict rules for a structured-output schema: the root is an
    object schema (not anyOf), then the rules every strict schema follows."""
    if not isinstance(schema, dict) or schema.get("type") != "object" or "anyOf" in schema:
        out.append(f"{where}: strict mode needs the root schema to be {{\"type\": \"object\"}} (not anyOf)")
    _strict_schema_problems(schema, where, out)


def output_schema_problems(provider: str, body: dict) -> list[str]:
    """The rules for a requested JSON schema output (OpenAI): the format name
    matches ^[a-zA-Z0-9_-]{1,64}$; with strict: true the schema follows the
    strict rules."""
    problems: list[str] = []
    wanted = requested_output_schema(provider, body)
    if not wanted or wanted["kind"] != "json_schema" or provider == "anthropic":
        return problems
    name = wanted["name"]
    if not isinstance(name, str) or not TOOL_NAME_RE.match(name):
        problems.append(f"{wanted['where']}.name: {name!r} does not match ^[a-zA-Z0-9_-]{{1,64}}$")
    if wanted["strict"] is True:
        _strict_root_problems(wanted["schema"], f"{wanted['where']}.schema", problems)
    return problems


# ---- OpenAI Responses

def responses_tool_names(body: dict) -> list[tuple[str, str]]:
    return [
        (f"tools[{i}].name", tool.get("name"))
        for i, tool in enumerate(body.get("tools") or [])
        if isinstance(tool, dict) and tool.get("type") in ("function", "custom")
    ]


def responses_rules(body: dict, produced: dict[str, dict]) -> list[str]:
    """`produced`: {response id: {"calls": [call_id...], "items": [item id...]}}
    of the responses this server answered."""
    problems: list[str] = []
    prev_id = body.get("previous_response_id")
    prev = None
    if prev_id is not None:
        prev = produced.get(prev_id)
        if prev is None:
            problems.append(f"previous_response_id: {prev_id!r} is not a response this server produced "
                            "(Previous response not found)")
        if body.get("conversation") is not None:
            problems.append("previous_response_id: cannot be used together with conversation")
    if "stream_options" in body and body.get("stream") is not True:
        problems.append("stream_options: only allowed when stream is true")

    names = responses_tool_names(body)
    _check_tool_names(names, problems)
    for i, tool in enumerate(body.get("tools") or []):
        if not isinstance(tool, dict) or tool.get("type") != "function":
            continue
        params = tool.get("parameters")
        if params is not None and params.get("type") != "object":
            problems.append(
                f"tools[{i}].parameters: must be a JSON Schema of \"type\": \"object\", got type {params.get('type')!r}"
            )
        if tool.get("strict") is True:
            if params is None:
                problems.append(f"tools[{i}].parameters: strict mode needs a parameters schema")
            else:
                _strict_schema_problems(params, f"tools[{i}].parameters", problems)
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") in ("function", "custom"):
        if choice.get("name") not in {n for _, n in names if n is not None}:
            problems.append(f"tool_choice names {choice.get('name')!r}, which is not among the offered tools")

    # Function calls and their outputs.
    items = body.get("input") if isinstance(body.get("input"), list) else []
    known: dict[str, str] = {}  # call_id -> where it was made
    pending: list[str] = []  # calls of the latest assistant output not answered yet
    answered: set[str] = set()
    prev_items = set(prev["items"]) if prev else set()
    if prev:
        for call_id in prev["calls"]:
            known[call_id] = f"response {prev_id}"
            pending.append(call_id)
    for i, item in enumerate(items):
        kind = item.get("type") or ("message" if "role" in item else None)
        if prev and isinstance(item.get("id"), str) and item["id"] in prev_items:
            problems.append(f"input[{i}]: item id {item['id']!r} is already part of previous response {prev_id!r} "
                            "(Duplicate item found)")
        if kind == "function_call":
            call_id = item.get("call_id")
            name = item.get("name")
            if not isinstance(name, str) or not TOOL_NAME_RE.match(name):
                problems.append(f"input[{i}]: function_call name {name!r} does not match ^[a-zA-Z0-9_-]{{1,64}}$")
            if call_id in known:
                problems.append(f"input[{i}]: a second function_call with call_id {call_id!r} "
                                f"(the first: {known[call_id]})")
                continue
            known[call_id] = f"input[{i}]"
            pending.append(call_id)
        elif kind == "function_call_output":
            call_id = item.get("call_id")
            if call_id is None:
                problems.append(f"input[{i}]: function_call_output without call_id")
            elif call_id in answered:
                problems.append(f"input[{i}]: a second function_call_output for {call_id!r}")
            elif call_id not in known:
                problems.append(
                    f"input[{i}]: function_call_output for {call_id!r} answers no function_call earlier in input"
                    + (f" nor of previous response {prev_id!r}" if prev else "")
                    + " (No tool call found for function call output)"
                )
            answered.add(call_id)
            if call_id in pending:
                pending.remove(call_id)
        elif kind == "message" and item.get("role") == "user" and pending:
            problems.append(
                f"input[{i}]: a user message comes before the function calls {pending} "
                f"({', '.join(sorted({known[c] for c in pending}))}) are answered by function_call_output items"
            )
            pending = []
    if pending:
        problems.append(
            f"the function calls {pending} ({', '.join(sorted({known[c] for c in pending}))}) have no "
            "function_call_output (No tool output found for function call)"
        )
    return problems


# --------------------------------------------------------------------------
# Script
# --------------------------------------------------------------------------

STEP_KEYS = {"provider", "expect", "respond", "delay_ms", "chunk_delay_ms", "comment"}
EXPECT_KEYS = {"tools", "no_tools", "tool_choice", "stream", "tool_results", "last_user_contains",
               "output_schema", "previous_response_id", "deferred"}
RESULT_KEYS = {"id", "contains", "is_error", "image", "document"}
OUTPUT_SCHEMA_KEYS = {"name", "properties", "strict"}
PROVIDERS = ("openai", "anthropic", "openai_responses")
CALL_KEYS = {"id", "name", "arguments"}
NORMAL_KEYS = {"text", "tool_calls", "stop_reason", "usage", "headers", "server_blocks"}
ERROR_KEYS = {"status", "headers", "message", "type", "code"}
RAW_KEYS = {"status", "raw", "content_type", "headers"}
TRUNCATE_KEYS = {"truncate_stream", "text", "tool_calls", "headers"}


class ScriptError(ValueError):
    pass


def _only(obj: Any, allowed: set[str], where: str) -> None:
    if not isinstance(obj, dict):
        raise ScriptError(f"{where}: expected an object, got {json.dumps(obj)}")
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise ScriptError(f"{where}: unknown keys {unknown} (allowed: {sorted(allowed)})")


def check_script(script: Any) -> list[dict]:
    """The steps of a script, or ScriptError naming what is wrong."""
    _only(script, {"steps"}, "script")
    steps = script.get("steps")
    if not isinstance(steps, list):
        raise ScriptError("script: \"steps\" must be a list")
    for n, step in enumerate(steps):
        where = f"steps[{n}]"
        _only(step, STEP_KEYS, where)
        if step.get("provider") not in (None, *PROVIDERS):
            raise ScriptError(f"{where}.provider: must be \"openai\", \"anthropic\" or \"openai_responses\"")
        for key in ("delay_ms", "chunk_delay_ms"):
            if key in step and not (isinstance(step[key], int) and 0 <= step[key] <= 600_000):
                raise ScriptError(f"{where}.{key}: must be an integer 0..600000")
        expect = step.get("expect", {})
        _only(expect, EXPECT_KEYS, f"{where}.expect")
        if "tools" in expect and not (isinstance(expect["tools"], list) and all(isinstance(t, str) for t in expect["tools"])):
            raise ScriptError(f"{where}.expect.tools: must be a list of names")
        for key in ("no_tools", "stream"):
            if key in expect and not isinstance(expect[key], bool):
                raise ScriptError(f"{where}.expect.{key}: must be true or false")
        if "last_user_contains" in expect and not isinstance(expect["last_user_contains"], str):
            raise ScriptError(f"{where}.expect.last_user_contains: must be a string")
        if "tool_results" in expect:
            if not isinstance(expect["tool_results"], list):
                raise ScriptError(f"{where}.expect.tool_results: must be a list")
            for k, res in enumerate(expect["tool_results"]):
                _only(res, RESULT_KEYS, f"{where}.expect.tool_results[{k}]")
                if "image" in res and res["image"] not in IMAGE_TYPES:
                    raise ScriptError(f"{where}.expect.tool_results[{k}].image: one of {list(IMAGE_TYPES)}")
                if "document" in res and res["document"] != "application/pdf":
                    raise ScriptError(f"{where}.expect.tool_results[{k}].document: must be \"application/pdf\"")
        if "output_schema" in expect and expect["output_schema"] != "absent":
            spec = expect["output_schema"]
            _only(spec, OUTPUT_SCHEMA_KEYS, f"{where}.expect.output_schema")
            if "name" in spec and not isinstance(spec["name"], str):
                raise ScriptError(f"{where}.expect.output_schema.name: must be a string")
            if "properties" in spec and not (isinstance(spec["properties"], list)
                                             and all(isinstance(n, str) for n in spec["properties"])):
                raise ScriptError(f"{where}.expect.output_schema.properties: must be a list of names")
            if "strict" in spec and not isinstance(spec["strict"], bool):
                raise ScriptError(f"{where}.expect.output_schema.strict: must be true or false")
        if "deferred" in expect and not (isinstance(expect["deferred"], list) and all(isinstance(t, str) for t in expect["deferred"])):
            raise ScriptError(f"{where}.expect.deferred: must be a list of names")
        if "server_blocks" in step.get("respond", {}) and step.get("provider") != "anthropic":
            raise ScriptError(f"{where}.respond.server_blocks: Anthropic only (\"provider\": \"anthropic\")")
        if "previous_response_id" in expect and not isinstance(expect["previous_response_id"], str):
            raise ScriptError(f"{where}.expect.previous_response_id: \"absent\", \"previous\" or a response id")
        if "respond" not in step:
            raise ScriptError(f"{where}: \"respond\" is required")
        respond = step["respond"]
        if not isinstance(respond, dict):
            raise ScriptError(f"{where}.respond: expected an object")
        if "raw" in respond:
            _only(respond, RAW_KEYS, f"{where}.respond (raw)")
            if not isinstance(respond["raw"], str):
                raise ScriptError(f"{where}.respond.raw: must be a string")
        elif "status" in respond and respond["status"] != 200:
            _only(respond, ERROR_KEYS, f"{where}.respond (error)")
            if not (isinstance(respond["status"], int) and 400 <= respond["status"] <= 599):
                raise ScriptError(f"{where}.respond.status: an error status must be 400..599")
        elif respond.get("truncate_stream"):
            _only(respond, TRUNCATE_KEYS, f"{where}.respond (truncate_stream)")
        else:
            _only(respond, NORMAL_KEYS, f"{where}.respond")
        if "headers" in respond and not (
            isinstance(respond["headers"], dict) and all(isinstance(v, str) for v in respond["headers"].values())
        ):
            raise ScriptError(f"{where}.respond.headers: must map names to strings")
        if "text" in respond and not isinstance(respond["text"], str):
            raise ScriptError(f"{where}.respond.text: must be a string")
        if "usage" in respond:
            _only(respond["usage"], {"input", "output", "cached", "reasoning"}, f"{where}.respond.usage")
            for key, value in respond["usage"].items():
                if not (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
                    raise ScriptError(f"{where}.respond.usage.{key}: must be a non-negative integer")
        for k, call in enumerate(respond.get("tool_calls") or []):
            _only(call, CALL_KEYS, f"{where}.respond.tool_calls[{k}]")
            if not isinstance(call.get("name"), str):
                raise ScriptError(f"{where}.respond.tool_calls[{k}].name: required string")
            if not isinstance(call.get("arguments", ""), (str, dict)):
                raise ScriptError(f"{where}.respond.tool_calls[{k}].arguments: a string (or an object)")
    return steps


# --------------------------------------------------------------------------
# Expectations
# --------------------------------------------------------------------------


def offered_names(provider: str, body: dict) -> list[str]:
    pairs = {"openai": openai_tool_names, "anthropic": anthropic_tool_names,
             "openai_responses": responses_tool_names}[provider](body)
    return [name for _, name in pairs]


def _is_image_followup(msg: dict) -> bool:
    """A Chat `user` message carrying images (content list with an image_url part)."""
    content = msg.get("content")
    return msg.get("role") == "user" and isinstance(content, list) and any(
        isinstance(p, dict) and p.get("type") == "image_url" for p in content
    )


def _chat_followup_indexes(messages: list) -> set[int]:
    """Indexes of the Chat `user` messages that carry the images of tool results:
    image-carrying user messages right after a run of tool messages (or after
    another such message)."""
    out: set[int] = set()
    for i, msg in enumerate(messages):
        if i and _is_image_followup(msg) and (messages[i - 1].get("role") == "tool" or i - 1 in out):
            out.add(i)
    return out


def _parts_media(parts: Any, image_type: str) -> tuple[list[dict], list[dict]]:
    """(images, documents) of a content list: media() dicts, or {"mime": None,
    "form": ...} for an image that is not base64 data."""
    images: list[dict] = []
    documents: list[dict] = []
    for part in parts if isinstance(parts, list) else []:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "image" or kind == "document":  # Anthropic blocks
            source = part.get("source") if isinstance(part.get("source"), dict) else {}
            found = (media(source.get("media_type"), source.get("data")) if source.get("type") == "base64"
                     else {"mime": None, "ok": False, "form": f"source.type {source.get('type')!r}"})
            (images if kind == "image" else documents).append(found)
        elif kind == image_type:  # image_url (Chat) / input_image (Responses)
            url = (part.get("image_url") or {}).get("url") if kind == "image_url" else part.get("image_url")
            found = data_url_media(url)
            images.append(found or {"mime": None, "ok": False,
                                    "form": "file_id" if part.get("file_id") else "a URL that is not a base64 data: URL"})
    return images, documents


def trailing_results(provider: str, body: dict) -> list[dict]:
    """[{"id", "text", "is_error", "images", "documents"}] of the results closing
    the conversation (images/documents: lists of media() dicts)."""
    out: list[dict] = []
    if provider == "openai_responses":
        items = body.get("input") if isinstance(body.get("input"), list) else []
        for item in reversed(items):
            if item.get("type") != "function_call_output":
                break
            output = item.get("output")
            images, documents = _parts_media(output, "input_image")
            text = output if isinstance(output, str) else "".join(
                p.get("text", "") for p in (output or []) if isinstance(p, dict) and p.get("type") == "input_text")
            out.append({"id": item.get("call_id"), "text": text, "is_error": None,
                        "images": images, "documents": documents})
        return list(reversed(out))
    messages = body.get("messages") or []
    if provider == "openai":
        end = len(messages)
        followups = _chat_followup_indexes(messages)
        while end and end - 1 in followups:
            end -= 1
        images: list[dict] = []
        for msg in messages[end:]:
            images += _parts_media(msg.get("content"), "image_url")[0]
        for msg in reversed(messages[:end]):
            if msg.get("role") != "tool":
                break
            out.append({"id": msg.get("tool_call_id"), "text": _text_of(msg.get("content")), "is_error": None,
                        "images": [], "documents": []})
        out.reverse()
        if out:
            out[0]["followup_images"] = images  # shared by the results, matched in order
        return out
    if messages and messages[-1].get("role") == "user" and isinstance(messages[-1].get("content"), list):
        for block in messages[-1]["content"]:
            if block.get("type") == "tool_result":
                images, documents = _parts_media(block.get("content"), "image")
                out.append({
                    "id": block.get("tool_use_id"),
                    "text": _text_of(block.get("content", "")),
                    "is_error": bool(block.get("is_error", False)),
                    "images": images, "documents": documents,
                })
    return out


def last_user_text(provider: str, body: dict) -> str | None:
    if provider == "openai_responses":
        items = body.get("input")
        if isinstance(items, str):
            return items
        for item in reversed(items or []):
            if (item.get("type") or "message") != "message" or item.get("role") != "user":
                continue
            content = item.get("content")
            if isinstance(content, str):
                return content
            texts = [p.get("text", "") for p in content or [] if isinstance(p, dict) and p.get("type") == "input_text"]
            if texts:
                return "".join(texts)
        return None
    messages = body.get("messages") or []
    skip = _chat_followup_indexes(messages) if provider == "openai" else set()
    for i in reversed(range(len(messages))):
        msg = messages[i]
        if msg.get("role") == "user" and i not in skip:
            content = msg.get("content")
            if isinstance(content, str) or any(
                isinstance(b, dict) and b.get("type") == "text" for b in (content or [])
            ):
                return _text_of(content)
    return None


def _describe_media(found: list[dict]) -> str:
    if not found:
        return "none"
    return ", ".join(
        f["mime"] + ("" if f["ok"] else f" (bytes: {f['sniffed'] or 'no known format'})") if f.get("mime")
        else f.get("form", "?") for f in found
    )


def _media_expectation(found: list[dict], want: str, what: str) -> str | None:
    """None when `found` has a base64 `want` whose bytes are `want`, else the problem."""
    if any(f.get("mime") == want and f["ok"] for f in found):
        return None
    return f"expected {what} of type {want} (base64 data starting with its magic number), found: {_describe_media(found)}"


def expectation_problems(provider: str, step: dict, body: dict, last_response_id: str | None = None) -> list[str]:
    expect = step.get("expect", {})
    problems = []
    if step.get("provider") and step["provider"] != provider:
        problems.append(f"expected a request to the {step['provider']} API, got one to the {provider} API")
    names = offered_names(provider, body)
    if "tools" in expect and sorted(names) != sorted(expect["tools"]):
        problems.append(f"expected the tools {sorted(expect['tools'])}, the request offers {sorted(names)}")
    if expect.get("no_tools") and body.get("tools"):
        problems.append(f"expected no tools, the request offers {sorted(names)}")
    if "deferred" in expect:
        deferred = sorted(t.get("name") for t in body.get("tools") or [] if t.get("defer_loading") is True)
        if deferred != sorted(expect["deferred"]):
            shown = deferred if len(deferred) <= 12 else f"{len(deferred)} tools: {deferred[:12]} ..."
            problems.append(f"expected the deferred tools {sorted(expect['deferred'])}, the request defers {shown}")
    if "tool_choice" in expect:
        want = expect["tool_choice"]
        if want == "absent":
            if "tool_choice" in body:
                problems.append(f"expected no tool_choice, got {json.dumps(body['tool_choice'])}")
        elif body.get("tool_choice", "<absent>") != want:
            problems.append(
                f"expected tool_choice {json.dumps(want)}, got "
                f"{json.dumps(body['tool_choice']) if 'tool_choice' in body else 'no tool_choice'}"
            )
    if "stream" in expect and bool(body.get("stream", False)) != expect["stream"]:
        problems.append(f"expected stream={str(expect['stream']).lower()}, got {json.dumps(body.get('stream'))}")
    if "tool_results" in expect:
        have = trailing_results(provider, body)
        want = expect["tool_results"]
        summary = [{"id": r["id"], "text": r["text"][:200], **({"is_error": r["is_error"]} if provider == "anthropic" else {})} for r in have]
        if len(have) != len(want):
            problems.append(f"expected {len(want)} tool results at the end of the conversation, got {len(have)}: {json.dumps(summary)}")
        else:
            followup = list(have[0].get("followup_images", [])) if have else []
            for k, (h, w) in enumerate(zip(have, want)):
                if "id" in w and h["id"] != w["id"]:
                    problems.append(f"tool result {k}: expected id {w['id']!r}, got {h['id']!r}")
                if "contains" in w and str(w["contains"]) not in h["text"]:
                    problems.append(f"tool result {k} ({h['id']}): expected it to contain {w['contains']!r}, got {h['text'][:500]!r}")
                if provider == "anthropic" and "is_error" in w and h["is_error"] != bool(w["is_error"]):
                    problems.append(f"tool result {k} ({h['id']}): expected is_error={str(bool(w['is_error'])).lower()}, got {str(h['is_error']).lower()}")
                if "image" in w and provider == "openai":
                    # Chat tool messages carry text only: the images come in user
                    # messages after the tool messages, matched to the results in order.
                    hit = next((f for f in followup if f.get("mime") == w["image"] and f["ok"]), None)
                    if hit is None:
                        problems.append(
                            f"tool result {k} ({h['id']}): expected an image of type {w['image']} (a data:{w['image']};base64 "
                            "image_url part whose bytes start with its magic number) in a user message after the "
                            f"tool messages (Chat tool messages cannot carry images), found: {_describe_media(followup)}")
                    else:
                        followup.remove(hit)
                elif "image" in w:
                    problem = _media_expectation(h["images"], w["image"], "an image")
                    if problem:
                        problems.append(f"tool result {k} ({h['id']}): {problem}")
                if "document" in w:
                    if provider != "anthropic":
                        problems.append(f"tool result {k} ({h['id']}): \"document\" is checked for Anthropic "
                                        f"tool_result blocks only, this is a request to the {provider} API")
                    else:
                        problem = _media_expectation(h["documents"], w["document"], "a document block")
                        if problem:
                            problems.append(f"tool result {k} ({h['id']}): {problem}")
    if "last_user_contains" in expect:
        text = last_user_text(provider, body)
        if text is None or expect["last_user_contains"] not in text:
            problems.append(f"expected the last user message to contain {expect['last_user_contains']!r}, got {text!r}")
    if "output_schema" in expect:
        spec = expect["output_schema"]
        got = requested_output_schema(provider, body)
        if spec == "absent":
            if got is not None:
                problems.append(f"expected no structured output, the request asks for {got['kind']} in {got['where']}")
        elif got is None or got["kind"] != "json_schema":
            where = {"openai": "response_format", "openai_responses": "text.format",
                     "anthropic": "output_config.format"}[provider]
            problems.append(f"expected a JSON schema output ({where} of type json_schema), "
                            + (f"the request asks for {got['kind']}" if got else f"the request has no {where}"))
        else:
            schema = got["schema"] if isinstance(got["schema"], dict) else {}
            props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
            if "properties" in spec and sorted(props) != sorted(spec["properties"]):
                problems.append(f"expected the output schema's properties {sorted(spec['properties'])}, "
                                f"{got['where']}.schema has {sorted(props)}")
            if "name" in spec and provider != "anthropic" and got["name"] != spec["name"]:
                problems.append(f"expected the output schema name {spec['name']!r}, {got['where']}.name is {got['name']!r}")
            if "strict" in spec:
                if provider != "anthropic" and bool(got["strict"]) != spec["strict"]:
                    problems.append(f"expected {got['where']}.strict {str(spec['strict']).lower()}, "
                                    f"got {json.dumps(got['strict'])}")
                if spec["strict"] and provider == "anthropic":
                    # (OpenAI: a strict schema that breaks the rules is refused by validation)
                    strict_problems: list[str] = []
                    _strict_root_problems(got["schema"], f"{got['where']}.schema", strict_problems)
                    problems += strict_problems
    if "previous_response_id" in expect:
        want = expect["previous_response_id"]
        have = body.get("previous_response_id")
        if want == "absent":
            if have is not None:
                problems.append(f"expected no previous_response_id, got {have!r}")
        elif want == "previous" and last_response_id is None:
            problems.append(f"expected previous_response_id to be the last response this server produced, "
                            f"but it has produced none (got {have!r})")
        else:
            if want == "previous":
                want = last_response_id
            if have != want:
                problems.append(f"expected previous_response_id {want!r}"
                                + (" (the last response this server produced)" if expect["previous_response_id"] == "previous" else "")
                                + f", got {have!r}")
    return problems


# --------------------------------------------------------------------------
# Responses, built from the SDKs' response models
# --------------------------------------------------------------------------


def _no_extras(model: Any, where: str) -> None:
    """SDK models accept unknown keys; ours must not carry any (a typo would
    not be caught by model_validate)."""
    if isinstance(model, pydantic.BaseModel):
        extra = getattr(model, "__pydantic_extra__", None) or {}
        if extra:
            raise AssertionError(f"{where}: keys unknown to {type(model).__name__}: {sorted(extra)}")
        for name in type(model).model_fields:
            _no_extras(getattr(model, name), f"{where}.{name}")
    elif isinstance(model, (list, tuple)):
        for i, item in enumerate(model):
            _no_extras(item, f"{where}[{i}]")


def sdk_json(cls_or_adapter: Any, data: dict) -> dict:
    """`data` validated by an SDK model (or TypeAdapter) and dumped as the wire JSON."""
    if isinstance(cls_or_adapter, TypeAdapter):
        model = cls_or_adapter.validate_python(data)
    else:
        model = cls_or_adapter.model_validate(data)
    _no_extras(model, type(model).__name__)
    return model.model_dump(mode="json", exclude_unset=True, by_alias=True)


ANTHROPIC_EVENT = TypeAdapter(RawMessageStreamEvent)
RESPONSES_EVENT = TypeAdapter(ResponseStreamEvent)
ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error", 401: "authentication_error", 402: "billing_error",
    403: "permission_error", 404: "not_found_error", 413: "invalid_request_error",
    429: "rate_limit_error", 500: "api_error", 504: "timeout_error", 529: "overloaded_error",
}
OPENAI_ERROR_TYPES = {  # status -> (type, code)
    400: ("invalid_request_error", None), 401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", None), 404: ("invalid_request_error", "model_not_found"),
    429: ("tokens", "rate_limit_exceeded"), 500: ("server_error", None), 503: ("server_error", None),
}


def error_body(provider: str, status: int, message: str, type_: str | None = None,
               code: str | None = None, request_id: str = "req_scripted") -> dict:
    if provider == "anthropic":
        etype = type_ or ANTHROPIC_ERROR_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")
        return sdk_json(AnthropicErrorResponse, {
            "type": "error", "error": {"type": etype, "message": message}, "request_id": request_id,
        })
    etype, ecode = OPENAI_ERROR_TYPES.get(status, ("server_error" if status >= 500 else "invalid_request_error", None))
    err = sdk_json(OpenAIErrorObject, {
        "message": message, "type": type_ or etype, "param": None, "code": code if code is not None else ecode,
    })
    return {"error": err}


def _pieces(text: str, n: int) -> list[str]:
    """`text` cut into at most n non-empty pieces (none for "")."""
    if not text:
        return []
    n = max(1, min(n, len(text)))
    size = -(-len(text) // n)
    return [text[i:i + size] for i in range(0, len(text), size)]


def _calls(respond: dict, step_no: int, prefix: str) -> list[dict]:
    out = []
    for i, call in enumerate(respond.get("tool_calls") or []):
        args = call.get("arguments", "")
        if not isinstance(args, str):
            args = json.dumps(args)
        out.append({"id": call.get("id") or f"{prefix}_{step_no}_{i}", "name": call["name"], "arguments": args})
    return out


def _usage(respond: dict) -> tuple[int, int]:
    usage = respond.get("usage") or {}
    return int(usage.get("input", 10)), int(usage.get("output", 5))


def _chat_usage(respond: dict) -> dict:
    tin, tout = _usage(respond)
    usage = respond.get("usage") or {}
    out: dict = {"prompt_tokens": tin, "completion_tokens": tout, "total_tokens": tin + tout}
    if "cached" in usage:
        out["prompt_tokens_details"] = {"cached_tokens": usage["cached"]}
    if "reasoning" in usage:
        out["completion_tokens_details"] = {"reasoning_tokens": usage["reasoning"]}
    return out


def openai_completion(respond: dict, model: str, step_no: int, rid: str) -> dict:
    calls = _calls(respond, step_no, "call")
    text = respond.get("text") or None
    tin, tout = _usage(respond)
    message: dict = {"role": "assistant", "content": text, "refusal": None, "annotations": []}
    if calls:
        message["tool_calls"] = [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
            for c in calls
        ]
    return sdk_json(ChatCompletion, {
        "id": rid, "object": "chat.completion", "created": int(time.time()), "model": model,
        "choices": [{
            "index": 0, "message": message, "logprobs": None,
            "finish_reason": respond.get("stop_reason") or ("tool_calls" if calls else "stop"),
        }],
        "usage": _chat_usage(respond),
        "service_tier": "default", "system_fingerprint": "fp_scripted",
    })


def openai_chunks(respond: dict, model: str, step_no: int, rid: str, include_usage: bool,
                  truncate: bool) -> list[bytes]:
    """The SSE events (`data: ...\\n\\n`) of a streamed completion."""
    calls = _calls(respond, step_no, "call")
    text = respond.get("text") or ""
    created = int(time.time())

    def chunk(delta: dict, finish: str | None = None, choices: bool = True, usage: dict | None = None) -> bytes:
        data: dict = {
            "id": rid, "object": "chat.completion.chunk", "created": created, "model": model,
            "system_fingerprint": "fp_scripted",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}] if choices else [],
        }
        if include_usage:
            data["usage"] = usage  # the API sends "usage": null on every chunk but the last
        return b"data: " + json.dumps(sdk_json(ChatCompletionChunk, data)).encode() + b"\n\n"

    events = [chunk({"role": "assistant", "content": "" if text or not calls else None, "refusal": None})]
    events += [chunk({"content": piece}) for piece in _pieces(text, 3)]
    for i, c in enumerate(calls):
        events.append(chunk({"tool_calls": [{
            "index": i, "id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": ""},
        }]}))
        events += [
            chunk({"tool_calls": [{"index": i, "function": {"arguments": frag}}]})
            for frag in _pieces(c["arguments"], 3 if len(c["arguments"]) >= 12 else 2)
        ]
    if truncate:
        return events
    events.append(chunk({}, respond.get("stop_reason") or ("tool_calls" if calls else "stop")))
    if include_usage:
        events.append(chunk({}, choices=False, usage=_chat_usage(respond)))
    events.append(b"data: [DONE]\n\n")
    return events


def _anthropic_input(call: dict) -> dict:
    try:
        value = json.loads(call["arguments"] or "{}")
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise ScriptError(
            f"tool call {call['name']!r}: arguments {call['arguments']!r} are not the text of a JSON object, "
            "which an Anthropic non-streaming answer cannot carry (tool_use.input is an object); "
            "use it with a streaming request only"
        )
    return value


def anthropic_message(respond: dict, model: str, step_no: int, rid: str) -> dict:
    calls = _calls(respond, step_no, "toolu")
    text = respond.get("text") or ""
    tin, tout = _usage(respond)
    content: list[dict] = [{"type": "text", "text": text}] if text else []
    content += respond.get("server_blocks") or []
    content += [{"type": "tool_use", "id": c["id"], "name": c["name"], "input": _anthropic_input(c)} for c in calls]
    return sdk_json(AnthropicMessage, {
        "id": rid, "type": "message", "role": "assistant", "model": model, "content": content,
        "stop_reason": respond.get("stop_reason") or ("tool_use" if calls else "end_turn"),
        "stop_sequence": None,
        "usage": {"input_tokens": tin, "output_tokens": tout,
                  "cache_creation_input_tokens": 0,
                  "cache_read_input_tokens": (respond.get("usage") or {}).get("cached", 0)},
    })


def anthropic_events(respond: dict, model: str, step_no: int, rid: str, truncate: bool) -> list[bytes]:
    calls = _calls(respond, step_no, "toolu")
    text = respond.get("text") or ""
    tin, tout = _usage(respond)

    def event(data: dict) -> bytes:
        wire = sdk_json(ANTHROPIC_EVENT, data)
        return f"event: {wire['type']}\ndata: {json.dumps(wire)}\n\n".encode()

    events = [event({"type": "message_start", "message": {
        "id": rid, "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": tin, "output_tokens": 1,
                  "cache_creation_input_tokens": 0,
                  "cache_read_input_tokens": (respond.get("usage") or {}).get("cached", 0)},
    }})]
    # `ping` is in the documented event flow but not in RawMessageStreamEvent
    # (the SDK skips it), so it is the one event written by hand.
    events.append(b'event: ping\ndata: {"type": "ping"}\n\n')
    blocks: list[list[bytes]] = []
    if text:
        index = len(blocks)
        blocks.append(
            [event({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})]
            + [event({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": p}})
               for p in _pieces(text, 3)]
            + [event({"type": "content_block_stop", "index": index})]
        )
    for c in calls:
        index = len(blocks)
        blocks.append(
            [event({"type": "content_block_start", "index": index, "content_block": {
                "type": "tool_use", "id": c["id"], "name": c["name"], "input": {}}})]
            + [event({"type": "content_block_delta", "index": index,
                      "delta": {"type": "input_json_delta", "partial_json": frag}})
               for frag in _pieces(c["arguments"], 3 if len(c["arguments"]) >= 12 else 2)]
            + [event({"type": "content_block_stop", "index": index})]
        )
    for block in blocks:
        events += block
    if truncate:
        return events[:-1] if blocks else events  # not even the last content_block_stop
    events.append(event({"type": "message_delta",
                         "delta": {"stop_reason": respond.get("stop_reason") or ("tool_use" if calls else "end_turn"),
                                   "stop_sequence": None},
                         "usage": {"output_tokens": tout}}))
    events.append(event({"type": "message_stop"}))
    return events


def _responses_usage(respond: dict) -> dict:
    tin, tout = _usage(respond)
    usage = respond.get("usage") or {}
    return {
        "input_tokens": tin, "input_tokens_details": {"cached_tokens": usage.get("cached", 0), "cache_write_tokens": 0},
        "output_tokens": tout, "output_tokens_details": {"reasoning_tokens": usage.get("reasoning", 0)},
        "total_tokens": tin + tout,
    }


def _responses_frame(body: dict, model: str, rid: str, created: int) -> dict:
    """The fields of a Response that echo the request (as the API does)."""
    parallel = body.get("parallel_tool_calls")
    return {
        "id": rid, "object": "response", "created_at": created, "model": model, "output": [],
        "error": None, "incomplete_details": None,
        "instructions": body.get("instructions"), "metadata": body.get("metadata") or {},
        "parallel_tool_calls": True if parallel is None else parallel,
        "temperature": body.get("temperature") if body.get("temperature") is not None else 1.0,
        "top_p": body.get("top_p") if body.get("top_p") is not None else 1.0,
        "tool_choice": body.get("tool_choice", "auto"), "tools": body.get("tools") or [],
        "previous_response_id": body.get("previous_response_id"),
        "max_output_tokens": body.get("max_output_tokens"),
        "text": body.get("text") or {"format": {"type": "text"}},
        "truncation": body.get("truncation") or "disabled",
        "reasoning": body.get("reasoning"),
        "service_tier": "default", "usage": None,
    }


def responses_output(respond: dict, step_no: int) -> tuple[list[dict], list[dict]]:
    """(output items, calls) of a Response: a `message` item when there is text,
    then one `function_call` item per call."""
    calls = _calls(respond, step_no, "call")
    text = respond.get("text") or ""
    items: list[dict] = []
    if text:
        items.append({"id": f"msg_{step_no}", "type": "message", "role": "assistant", "status": "completed",
                      "content": [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}]})
    for i, c in enumerate(calls):
        items.append({"id": f"fc_{step_no}_{i}", "type": "function_call", "status": "completed",
                      "call_id": c["id"], "name": c["name"], "arguments": c["arguments"]})
    return items, calls


def _integer_times(response: dict) -> dict:
    """The SDK types created_at / completed_at as float; the API sends integer
    Unix seconds (and a client may parse them as integers)."""
    for key in ("created_at", "completed_at"):
        if isinstance(response.get(key), float):
            response[key] = int(response[key])
    return response


def responses_response(respond: dict, body: dict, model: str, step_no: int, rid: str) -> dict:
    items, _ = responses_output(respond, step_no)
    created = int(time.time())
    return _integer_times(sdk_json(OpenAIResponse, {
        **_responses_frame(body, model, rid, created), "status": "completed", "completed_at": created,
        "output": items, "usage": _responses_usage(respond),
    }))


def responses_events(respond: dict, body: dict, model: str, step_no: int, rid: str,
                     truncate: bool) -> list[bytes]:
    """The SSE events (`event: <type>` / `data: <json>`) of a streamed Response,
    in the order the API sends them, numbered by sequence_number."""
    items, _ = responses_output(respond, step_no)
    created = int(time.time())
    frame = _responses_frame(body, model, rid, created)
    seq = 0

    def event(data: dict) -> bytes:
        nonlocal seq
        wire = sdk_json(RESPONSES_EVENT, {**data, "sequence_number": seq})
        if isinstance(wire.get("response"), dict):
            _integer_times(wire["response"])
        seq += 1
        return f"event: {wire['type']}\ndata: {json.dumps(wire)}\n\n".encode()

    events = [event({"type": "response.created", "response": {**frame, "status": "in_progress"}}),
              event({"type": "response.in_progress", "response": {**frame, "status": "in_progress"}})]
    for index, item in enumerate(items):
        last = index == len(items) - 1
        start = {**item, "status": "in_progress"}
        if item["type"] == "message":
            text = item["content"][0]["text"]
            empty = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
            head = [event({"type": "response.output_item.added", "output_index": index, "item": {**start, "content": []}}),
                    event({"type": "response.content_part.added", "item_id": item["id"], "output_index": index,
                           "content_index": 0, "part": empty})]
            body_ = [event({"type": "response.output_text.delta", "item_id": item["id"], "output_index": index,
                            "content_index": 0, "delta": piece, "logprobs": []}) for piece in _pieces(text, 3)]
            tail = [event({"type": "response.output_text.done", "item_id": item["id"], "output_index": index,
                           "content_index": 0, "text": text, "logprobs": []}),
                    event({"type": "response.content_part.done", "item_id": item["id"], "output_index": index,
                           "content_index": 0, "part": item["content"][0]}),
                    event({"type": "response.output_item.done", "output_index": index, "item": item})]
        else:
            args = item["arguments"]
            head = [event({"type": "response.output_item.added", "output_index": index,
                           "item": {**start, "arguments": ""}})]
            body_ = [event({"type": "response.function_call_arguments.delta", "item_id": item["id"],
                            "output_index": index, "delta": frag})
                     for frag in _pieces(args, 3 if len(args) >= 12 else 2)]
            tail = [event({"type": "response.function_call_arguments.done", "item_id": item["id"],
                           "output_index": index, "arguments": args}),
                    event({"type": "response.output_item.done", "output_index": index, "item": item})]
        events += head + body_
        if truncate and last:
            return events  # cut right after the last delta: no .done events, no response.completed
        events += tail
    if truncate:
        return events
    events.append(event({"type": "response.completed", "response": {
        **frame, "status": "completed", "completed_at": int(time.time()), "output": items,
        "usage": _responses_usage(respond)}}))
    return events


# --------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------


class State:
    def __init__(self, steps: list[dict], api_key: str | None) -> None:
        self.lock = threading.Lock()
        self.steps = list(steps)
        self.generation = 0
        self.next_step = 0  # index in the current script
        self.consumed = 0
        self.failures: list[dict] = []
        self.requests: list[dict] = []
        self.api_key = api_key
        # Responses API: {response id: {"calls": [call_id...], "items": [item id...]}}
        # of every response answered in full, and the id of the last one.
        self.responses: dict[str, dict] = {}
        self.last_response_id: str | None = None

    def remember_response(self, rid: str, items: list[dict]) -> None:
        with self.lock:
            self.responses[rid] = {
                "calls": [i["call_id"] for i in items if i["type"] == "function_call"],
                "items": [i["id"] for i in items],
            }
            self.last_response_id = rid

    def replace_script(self, steps: list[dict]) -> int:
        with self.lock:
            self.steps = list(steps)
            self.generation += 1
            self.next_step = 0
            return self.generation

    def status(self) -> dict:
        with self.lock:
            return {
                "consumed": self.consumed,
                "remaining": len(self.steps) - self.next_step,
                "script": self.generation,
                "failures": copy.deepcopy(self.failures),
                "requests": copy.deepcopy(self.requests),
            }


STATE: State  # set in main()


def mask_headers(headers: Any) -> dict:
    out: dict[str, str] = {}
    for name, value in headers.items():
        name = name.lower()
        if name == "authorization":
            scheme = value.split(" ", 1)[0] if " " in value else ""
            value = f"{scheme} ***".strip()
        elif name in ("x-api-key", "api-key"):
            value = "***"
        out[name] = f"{out[name]}, {value}" if name in out else value
    return out


# --------------------------------------------------------------------------
# HTTP
# --------------------------------------------------------------------------

ROUTES = {
    "/v1/chat/completions": "openai", "/chat/completions": "openai", "/v1/messages": "anthropic",
    "/v1/responses": "openai_responses", "/responses": "openai_responses",
}


class ClientGone(Exception):
    pass


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = SOCKET_TIMEOUT_S
    server_version = "scripted-model/1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - base class signature
        pass  # one line per request is logged by us instead

    # ---- plumbing
    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            body = b""
            while True:
                size_line = self.rfile.readline(1024)
                size = int(size_line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass
                    return body
                body += self.rfile.read(size)
                self.rfile.readline(8)
                if len(body) > MAX_BODY:
                    raise ValueError("request body too large")
        length = int(self.headers.get("content-length") or 0)
        if length > MAX_BODY:
            raise ValueError("request body too large")
        return self.rfile.read(length) if length else b""

    def _send(self, status: int, body: bytes, content_type: str, headers: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _send_json(self, status: int, obj: Any, headers: dict | None = None) -> None:
        self._send(status, json.dumps(obj).encode(), "application/json", headers)

    def _wait(self, ms: int) -> None:
        """Sleep `ms`, watching the socket: raise ClientGone if the client hangs up."""
        deadline = time.monotonic() + ms / 1000
        conn = self.connection
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            readable, _, _ = select.select([conn], [], [], min(left, 0.05))
            if readable:
                try:
                    peek = conn.recv(1, socket.MSG_PEEK)
                except OSError:
                    peek = b""
                if not peek:
                    raise ClientGone()
                time.sleep(max(0.0, deadline - time.monotonic()))  # pipelined data: just wait
                return

    def _stream(self, events: list[bytes], headers: dict, chunk_delay_ms: int, close: bool) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        if close:
            self.send_header("connection", "close")
            self.close_connection = True
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        for i, data in enumerate(events):
            if i and chunk_delay_ms:
                self._wait(chunk_delay_ms)
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.write(b"0\r\n\r\n")

    # ---- control endpoints
    # Each request works on the state it started under: a request still in
    # flight when a test resets the server (POST /__reset) does not write into
    # the next test's log.
    state: State

    def do_GET(self) -> None:  # noqa: N802
        self.state = STATE
        path = self.path.split("?", 1)[0]
        if path == "/__status":
            self._send_json(200, self.state.status())
        else:
            self._model_request(path)

    def do_POST(self) -> None:  # noqa: N802
        global STATE
        self.state = STATE
        path = self.path.split("?", 1)[0]
        if path == "/__reset":
            try:
                request = json.loads(self._read_body() or b"null")
                api_key = request["api_key"]
                assert api_key is None or isinstance(api_key, str)
            except (ValueError, KeyError, TypeError, AssertionError) as e:
                self._send_json(400, {"ok": False, "error": f"bad reset: {e!r}"})
                return
            STATE = State([], api_key)
            log(f"reset: empty script, api key {'set' if api_key else 'not checked'}")
            self._send_json(200, {"ok": True})
            return
        if path == "/__script":
            try:
                steps = check_script(json.loads(self._read_body() or b"null"))
            except (ValueError, ScriptError) as e:
                self._send_json(400, {"ok": False, "error": f"bad script: {e}"})
                return
            generation = self.state.replace_script(steps)
            log(f"script {generation} loaded: {len(steps)} steps")
            self._send_json(200, {"ok": True, "script": generation, "steps": len(steps)})
            return
        if path == "/__check_tools":
            self._check_tools()
            return
        self._model_request(path)

    def _check_tools(self) -> None:
        """POST /__check_tools {"format": "openai_chat" | "openai_responses" |
        "anthropic", "tools": [...]}: each tool validated as the SDK's own tool
        parameter type (unknown keys rejected), names checked, and strict tools
        checked against OpenAI's strict-mode rules. Answers {"problems": [...]}."""
        try:
            request = json.loads(self._read_body() or b"null")
            validator = TOOL_PARAMS[request["format"]]
            tools = request["tools"]
            assert isinstance(tools, list)
        except (ValueError, KeyError, TypeError, AssertionError) as e:
            self._send_json(400, {"problems": [f"bad request: {e!r}"]})
            return
        problems: list[str] = []
        for i, tool in enumerate(tools):
            for problem in validator.problems(json.dumps(tool).encode()):
                problems.append(f"tools[{i}]: {problem}")
            if not isinstance(tool, dict):
                continue
            function = tool.get("function", tool)
            name = function.get("name", "")
            if not TOOL_NAME_RE.match(str(name)):
                problems.append(f"tools[{i}]: name {name!r} does not match {TOOL_NAME_RE.pattern}")
            if function.get("strict") is True:
                _strict_schema_problems(function.get("parameters"), f"tools[{i}].parameters", problems)
        self._send_json(200, {"problems": problems})

    def do_PUT(self) -> None:  # noqa: N802
        self.state = STATE
        self._model_request(self.path.split("?", 1)[0])

    do_DELETE = do_PUT
    do_PATCH = do_PUT

    # ---- model endpoints
    def _model_request(self, path: str) -> None:
        provider = ROUTES.get(path)
        try:
            raw = self._read_body()
        except (ValueError, OSError) as e:
            self._send_json(400, {"error": {"message": f"cannot read the body: {e}"}})
            self.close_connection = True
            return
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        record = {
            "method": self.command, "path": path, "headers": mask_headers(self.headers), "body": body,
            "script": None, "step": None, "status": None, "problems": [], "client_disconnected": False,
        }
        with self.state.lock:
            record["index"] = len(self.state.requests)
            self.state.requests.append(record)
            record["script"] = self.state.generation
            step = None
            if provider is not None and self.command == "POST":
                if self.state.next_step < len(self.state.steps):
                    record["step"] = self.state.next_step
                    step = self.state.steps[self.state.next_step]
                    self.state.next_step += 1
                    self.state.consumed += 1
            step_no = self.state.consumed

        if provider is None or self.command != "POST":
            status, problems = (404, [f"no such endpoint: {self.command} {path}"]) if provider is None \
                else (405, [f"{self.command} is not allowed on {path} (POST only)"])
            self._refuse(record, provider or "openai", status, problems)
            return
        problems = self._validate(provider, raw, body)
        if step is None:
            self._refuse(record, provider, 400, ["script exhausted: no step left for this request"] + problems)
            return
        if not problems:
            with self.state.lock:
                last_response_id = self.state.last_response_id
            problems = expectation_problems(provider, step, body, last_response_id)
        if problems:
            self._refuse(record, provider, 400, problems)
            return
        try:
            self._respond(provider, step, body, record, step_no)
        except ScriptError as e:
            self._refuse(record, provider, 500, [f"script error: {e}"])
        except (ValidationError, AssertionError) as e:  # the answer does not build as the SDK's model
            self._refuse(record, provider, 500, [f"script error: cannot build the answer: {e}"])
        except ClientGone:
            record["client_disconnected"] = True
            self.close_connection = True
            log(f"#{record['index']} {path}: the client disconnected before the answer was complete")
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            record["client_disconnected"] = True
            self.close_connection = True
            log(f"#{record['index']} {path}: the client disconnected while we were answering")

    def _validate(self, provider: str, raw: bytes, body: Any) -> list[str]:
        problems: list[str] = []
        ctype = self.headers.get("content-type", "")
        if ctype.split(";")[0].strip().lower() != "application/json":
            problems.append(f"content-type must be application/json, got {ctype!r}")
        auth = self.headers.get("authorization")
        key = self.state.api_key
        if provider in ("openai", "openai_responses"):
            if key is not None and auth != f"Bearer {key}":
                problems.append("authorization: expected \"Bearer <the API key>\"" + (
                    " (header missing)" if auth is None else " (wrong key or scheme)"))
        else:
            xkey = self.headers.get("x-api-key")
            if xkey is None and auth is None:
                problems.append("authentication: an x-api-key header (or authorization: Bearer) is required")
            if key is not None:
                if xkey is not None and xkey != key:
                    problems.append("x-api-key: wrong key")
                if auth is not None and auth != f"Bearer {key}":
                    problems.append("authorization: expected \"Bearer <the API key>\" (wrong key or scheme)")
            version = self.headers.get("anthropic-version")
            if version is None:
                problems.append("anthropic-version: header required")
            elif not API_VERSION_RE.match(version):
                problems.append(f"anthropic-version: {version!r} is not a YYYY-MM-DD version")
        if not isinstance(body, dict):
            problems.append("body: not a JSON object")
            return problems
        streaming = body.get("stream") is True
        if provider == "openai":
            validator = OPENAI_STREAM if streaming else OPENAI_NONSTREAM
            type_problems = validator.problems(raw)
            problems += type_problems
            if not type_problems:
                problems += openai_rules(body) + openai_media_problems(body) + output_schema_problems(provider, body)
        elif provider == "openai_responses":
            validator = RESPONSES_STREAM if streaming else RESPONSES_NONSTREAM
            type_problems = validator.problems(raw)
            problems += type_problems
            if not type_problems:
                with self.state.lock:
                    produced = copy.deepcopy(self.state.responses)
                problems += (responses_rules(body, produced) + responses_media_problems(body)
                             + output_schema_problems(provider, body))
        else:
            validator = ANTHROPIC_STREAM if streaming else ANTHROPIC_NONSTREAM
            type_problems = validator.problems(raw)
            problems += type_problems
            if not type_problems:
                problems += anthropic_rules(body) + anthropic_media_problems(body)
        return problems

    def _refuse(self, record: dict, provider: str, status: int, problems: list[str]) -> None:
        record["status"] = status
        record["problems"] = problems
        with self.state.lock:
            self.state.failures.append({
                "request": record["index"], "script": record["script"], "step": record["step"],
                "path": record["path"], "problems": problems,
            })
        message = "scripted model: " + "; ".join(problems)
        log(f"#{record['index']} {record['method']} {record['path']} -> {status} REFUSED: {'; '.join(problems)}")
        try:
            self._send_json(status, error_body(provider, status, message), self._request_id_header(provider, record))
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            record["client_disconnected"] = True
            self.close_connection = True

    @staticmethod
    def _request_id_header(provider: str, record: dict) -> dict:
        rid = f"req_scripted_{record['index']}"
        return {"request-id": rid} if provider == "anthropic" else {"x-request-id": rid}

    def _respond(self, provider: str, step: dict, body: dict, record: dict, step_no: int) -> None:
        respond = step["respond"]
        if step.get("delay_ms"):
            self._wait(step["delay_ms"])
        headers = {**self._request_id_header(provider, record), **respond.get("headers", {})}
        model = body.get("model") if isinstance(body.get("model"), str) else "scripted"
        streaming = body.get("stream") is True
        rid = {"openai": f"chatcmpl-scripted{step_no}", "anthropic": f"msg_scripted{step_no:04d}",
               "openai_responses": f"resp_{step_no}"}[provider]
        if "raw" in respond:
            status = respond.get("status", 200)
            record["status"] = status
            self._send(status, respond["raw"].encode(), respond.get("content_type", "application/json"), headers)
        elif "status" in respond and respond["status"] != 200:
            status = respond["status"]
            record["status"] = status
            self._send_json(status, error_body(provider, status, respond.get("message", "scripted error"),
                                               respond.get("type"), respond.get("code"), headers.get("request-id", "req_scripted")),
                            headers)
        elif respond.get("truncate_stream") or streaming:
            truncate = bool(respond.get("truncate_stream"))
            if not streaming:
                raise ScriptError("truncate_stream needs a streaming request (stream: true)")
            if provider == "openai":
                include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
                events = openai_chunks(respond, model, step_no, rid, include_usage, truncate)
            elif provider == "openai_responses":
                events = responses_events(respond, body, model, step_no, rid, truncate)
                if not truncate:
                    self.state.remember_response(rid, responses_output(respond, step_no)[0])
            else:
                if respond.get("server_blocks"):
                    raise ScriptError("respond.server_blocks: JSON answers only (a request without stream: true)")
                events = anthropic_events(respond, model, step_no, rid, truncate)
            record["status"] = 200
            self._stream(events, headers, step.get("chunk_delay_ms", 0), close=truncate)
        elif provider == "openai_responses":
            answer = responses_response(respond, body, model, step_no, rid)
            self.state.remember_response(rid, answer["output"])
            record["status"] = 200
            self._send_json(200, answer, headers)
        else:
            answer = (openai_completion if provider == "openai" else anthropic_message)(respond, model, step_no, rid)
            record["status"] = 200
            self._send_json(200, answer, headers)
        log(f"#{record['index']} POST {record['path']} -> {record['status']} (script {record['script']} step {record['step']})")


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main() -> None:
    global STATE, QUIET
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--script", default="-", help="script JSON file (- = start empty)")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--api-key", default=None, help="the key requests must carry")
    parser.add_argument("--max-seconds", type=float, default=600, help="exit after this long (default 600)")
    parser.add_argument("--exit-on-stdin-eof", action="store_true", help="exit when stdin closes")
    parser.add_argument("--quiet", action="store_true", help="no per-request log on stderr")
    args = parser.parse_args()
    QUIET = args.quiet

    steps: list[dict] = []
    if args.script != "-":
        try:
            with open(args.script, encoding="utf-8") as f:
                steps = check_script(json.load(f))
        except (OSError, ValueError, ScriptError) as e:
            sys.stderr.write(f"scripted_model.py: bad script {args.script}: {e}\n")
            sys.exit(2)
    STATE = State(steps, args.api_key)

    server = Server(("127.0.0.1", args.port), Handler)

    def lifetime_cap() -> None:
        time.sleep(args.max_seconds)
        sys.stderr.write(f"[scripted-model] --max-seconds {args.max_seconds:g} reached: exiting\n")
        sys.stderr.flush()
        os._exit(3)

    threading.Thread(target=lifetime_cap, daemon=True).start()
    if args.exit_on_stdin_eof:
        def stdin_watch() -> None:
            while sys.stdin.buffer.read(4096):
                pass
            os._exit(0)
        threading.Thread(target=stdin_watch, daemon=True).start()

    print(f"PORT {server.server_address[1]}", flush=True)
    log(f"listening on 127.0.0.1:{server.server_address[1]} with {len(steps)} steps")
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
