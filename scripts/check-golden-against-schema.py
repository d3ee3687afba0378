#!/usr/bin/env python3
"""Validate the oxmcp-types golden cases against the official MCP JSON schemas.

DEVELOPER TOOL ONLY. It is not part of `cargo test`: the test suite never
reads anything outside the repository, while this script reads the official
`schema.json` of every revision from a checkout of the shared spec material
(by default `<repo>/../shared/mcp/spec/<revision>/schema.json`, or the
directory named by `MCP_SPEC_DIR`). When that directory is absent the script
prints SKIP and exits 0.

Usage (needs the `jsonschema` package from PyPI, e.g. in a throwaway venv):

    python3 -m venv /tmp/golden-venv
    /tmp/golden-venv/bin/pip install jsonschema
    /tmp/golden-venv/bin/python scripts/check-golden-against-schema.py [-v]

What it proves, for every case in mcp-types/tests/golden/<revision>/*.json:

1. `message` (and `output`, when the case has one) is a valid JSON-RPC
   message of that revision: it validates against `JSONRPCMessage`.
2. Each part named in the case's `schema` map validates against the named
   definition of that revision (`message`, `params`, `result`, `error`).
   The definitions carry `const` method names, so a method that does not
   exist in a revision (e.g. `ping` in 2026-07-28) fails here.
3. The same parts validate against a STRICT copy of the schema, in which
   every object with declared properties rejects undeclared ones. The
   official schemas let every object grow, so without this pass a misspelled
   optional field (`nextcursor`) would go unnoticed; with it, every field
   name in the goldens is proven to be a name the schema defines. (Request
   and notification `params` always admit `_meta`, which the base `Request`
   / `Notification` types of every revision define, and a tool's
   `inputSchema` / `outputSchema` stay open: they are JSON Schemas; so do
   the `_meta` objects, whose reserved keys are still type-checked.)
4. Cases marked `"extraFields": true` carry deliberately unknown members:
   their `message` must pass the normal pass and FAIL the strict one (so the
   extra member really is unknown), and their `output` (what oxmcp-types
   re-serializes, without the unknown members) must pass the strict pass.
5. Cases marked `"schemaDeviation": "<why>"` document a deliberate deviation
   from the schema (the only one: `"id": null` on an error response whose
   request id could not be read, which JSON-RPC 2.0 requires and the MCP
   schemas do not type). Such an instance must fail validation as written
   and pass once its `null` id is replaced by an integer, so the deviation
   is exactly the null id and nothing else; a marker on a case that
   validates anyway is reported as stale.
6. Modern (2026-07-28) requests name the golden's revision in
   `_meta["io.modelcontextprotocol/protocolVersion"]`; legacy `initialize`
   requests and results name it in `protocolVersion`.

Exit status: 0 when every case passes (or SKIP), 1 otherwise.
"""

from __future__ import annotations

import copy
import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GOLDEN = REPO / "mcp-types" / "tests" / "golden"
DEFAULT_SPEC = REPO.parent / "shared" / "mcp" / "spec"
PARTS = ("message", "params", "result", "error")
# Keys whose values are data, not subschemas.
DATA_KEYS = {"const", "enum", "default", "examples", "description", "required"}
# Members whose values are JSON Schemas written by tool authors, or `_meta`: open by nature.
OPEN_SCHEMAS = {"inputSchema", "outputSchema", "requestedSchema", "_meta"}
# `_meta` objects are open by definition (any prefixed key); 2026-07-28 merely
# documents its reserved keys as properties.
OPEN_DEFS = {"MetaObject", "RequestMetaObject", "ResultMetaObject", "NotificationMetaObject",
             "SubscriptionsListenResultMetaObject"}


def load_jsonschema():
    try:
        import jsonschema  # noqa: F401
        from jsonschema import Draft7Validator, Draft202012Validator
    except ImportError:
        print(
            "error: the `jsonschema` package is missing. Create a throwaway venv:\n"
            "  python3 -m venv /tmp/golden-venv && /tmp/golden-venv/bin/pip install jsonschema\n"
            "  /tmp/golden-venv/bin/python scripts/check-golden-against-schema.py",
            file=sys.stderr,
        )
        sys.exit(2)
    return Draft7Validator, Draft202012Validator


def strictify(node, d2020: bool, allof_member: bool = False):
    """A copy of `node` in which objects with declared properties reject others."""
    if isinstance(node, list):
        return [strictify(x, d2020) for x in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key in DATA_KEYS:
            out[key] = copy.deepcopy(value)
        elif key == "allOf":
            out[key] = [strictify(x, d2020, True) for x in value]
        elif key == "properties":
            out[key] = {
                k: copy.deepcopy(v) if k in OPEN_SCHEMAS else strictify(v, d2020) for k, v in value.items()
            }
        elif key in ("$defs", "definitions"):
            out[key] = {
                k: copy.deepcopy(v) if k in OPEN_DEFS else strictify(v, d2020) for k, v in value.items()
            }
        elif key == "patternProperties":
            out[key] = {k: strictify(v, d2020) for k, v in value.items()}
        else:
            out[key] = strictify(value, d2020)
    # Request / notification params always admit `_meta` (base Request/Notification),
    # and before 2025-11-25 the per-method definitions leave the envelope members
    # `jsonrpc` / `id` to JSONRPCRequest / JSONRPCNotification.
    props = out.get("properties")
    if isinstance(props, dict) and "method" in props:
        props.setdefault("jsonrpc", {"const": "2.0"})
        props.setdefault("id", {"type": ["string", "integer"]})
        params = props.get("params")
        if isinstance(params, dict) and isinstance(params.get("properties"), dict):
            params["properties"].setdefault("_meta", {"type": "object"})
    declares = bool(node.get("properties")) or "allOf" in node
    open_already = "additionalProperties" in node or "unevaluatedProperties" in node
    # Members of an allOf are evaluated together by their parent (2020-12
    # unevaluatedProperties sees through allOf), so only the parent is closed.
    if declares and not open_already and not allof_member:
        out["unevaluatedProperties" if d2020 else "additionalProperties"] = False
    return out


class Revision:
    def __init__(self, name: str, schema_path: Path, validators):
        draft7, draft2020 = validators
        self.name = name
        self.root = json.loads(schema_path.read_text())
        self.d2020 = "2020-12" in self.root.get("$schema", "")
        self.defs_key = "$defs" if "$defs" in self.root else "definitions"
        self.defs = self.root[self.defs_key]
        self.cls = draft2020 if self.d2020 else draft7
        self.strict_root = strictify(self.root, self.d2020)
        self._cache = {}

    def validator(self, definition: str, strict: bool):
        key = (definition, strict)
        if key not in self._cache:
            if definition not in self.defs:
                raise KeyError(f"revision {self.name} has no definition `{definition}`")
            root = dict(self.strict_root if strict else self.root)
            root["$ref"] = f"#/{self.defs_key}/{definition}"
            self._cache[key] = self.cls(root)
        return self._cache[key]

    def errors(self, definition: str, instance, strict: bool = False):
        v = self.validator(definition, strict)
        return sorted(
            (f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in v.iter_errors(instance)),
        )


def part_of(instance, part: str):
    if part == "message":
        return instance
    if isinstance(instance, dict) and part in instance:
        return instance[part]
    raise KeyError(f"the message has no `{part}`")


def check_instance(rev: Revision, case: dict, instance, label: str, strict_expect: str, problems: list, notes: list):
    """Validates one wire instance (message or output). strict_expect: 'pass' | 'fail'."""
    deviation = case.get("schemaDeviation")
    targets = [("message", "JSONRPCMessage")]
    for part, defs in case["schema"].items():
        for d in [defs] if isinstance(defs, str) else defs:
            targets.append((part, d))

    def run(inst):
        errs = []
        for part, d in targets:
            try:
                sub = part_of(inst, part)
            except KeyError as e:
                errs.append(f"{part}: {e}")
                continue
            errs += [f"[{d}] {e}" for e in rev.errors(d, sub)]
        return errs

    errs = run(instance)
    null_id = isinstance(instance, dict) and "id" in instance and instance["id"] is None
    if deviation and null_id:
        if not errs:
            problems.append(f"{label}: stale schemaDeviation marker (the instance validates)")
            return
        instance = dict(instance, id=0)
        errs = run(instance)
        if errs:
            problems += [f"{label}: fails beyond the documented null-id deviation: {e}" for e in errs]
            return
        notes.append(f"{label}: documented deviation, valid once the null id is an integer")
    if errs:
        problems += [f"{label}: {e}" for e in errs]
        return
    # Strict pass over the specific definitions (the envelope is open by design).
    strict_errs = []
    for part, d in targets[1:]:
        strict_errs += [f"[{d} strict] {e}" for e in rev.errors(d, part_of(instance, part), strict=True)]
    if strict_expect == "pass" and strict_errs:
        problems += [f"{label}: {e}" for e in strict_errs]
    if strict_expect == "fail" and not strict_errs:
        problems.append(f"{label}: marked extraFields but holds no member unknown to the schema")


def check_version_marker(rev: Revision, case: dict, problems: list, label: str):
    msg = case["message"]
    if not isinstance(msg, dict):
        return
    params = msg.get("params") or {}
    meta = params.get("_meta") or {} if isinstance(params, dict) else {}
    pv = meta.get("io.modelcontextprotocol/protocolVersion")
    if pv is not None and pv != rev.name:
        problems.append(f"{label}: _meta protocolVersion {pv} != revision {rev.name}")
    if "method" in msg and "id" in msg and rev.name == "2026-07-28" and pv is None:
        problems.append(f"{label}: a 2026-07-28 request must carry _meta protocolVersion")
    if msg.get("method") == "initialize" and params.get("protocolVersion") != rev.name:
        problems.append(f"{label}: initialize protocolVersion != revision {rev.name}")
    result = msg.get("result")
    if isinstance(result, dict) and "serverInfo" in result and result.get("protocolVersion") != rev.name:
        problems.append(f"{label}: InitializeResult protocolVersion != revision {rev.name}")


def main() -> int:
    verbose = "-v" in sys.argv[1:]
    spec_dir = Path(os.environ.get("MCP_SPEC_DIR", DEFAULT_SPEC))
    if not spec_dir.is_dir():
        print(f"SKIP: official schemas not found at {spec_dir} (set MCP_SPEC_DIR to a directory "
              f"holding <revision>/schema.json); nothing was checked.")
        return 0
    validators = load_jsonschema()
    total = failed = 0
    for rev_dir in sorted(p for p in GOLDEN.iterdir() if p.is_dir()):
        schema_path = spec_dir / rev_dir.name / "schema.json"
        if not schema_path.is_file():
            print(f"FAIL {rev_dir.name}: no official schema at {schema_path}")
            failed += 1
            continue
        rev = Revision(rev_dir.name, schema_path, validators)
        cases = sorted(rev_dir.glob("*.json"))
        rev_failed = 0
        for path in cases:
            label = f"{rev.name}/{path.name}"
            problems: list[str] = []
            notes: list[str] = []
            try:
                case = json.loads(path.read_text())
                for key in ("description", "schema", "rust", "message"):
                    if key not in case:
                        problems.append(f"{label}: missing `{key}`")
                if not problems:
                    if not case["schema"] or set(case["schema"]) - set(PARTS):
                        problems.append(f"{label}: `schema` must map some of {PARTS} to definitions")
                    extra = case.get("extraFields", False)
                    if extra and "output" not in case:
                        problems.append(f"{label}: extraFields case needs an `output`")
                    check_instance(rev, case, case["message"], f"{label} message",
                                   "fail" if extra else "pass", problems, notes)
                    if "output" in case:
                        check_instance(rev, case, case["output"], f"{label} output", "pass", problems, notes)
                    check_version_marker(rev, case, problems, label)
            except (KeyError, ValueError) as e:
                problems.append(f"{label}: {e}")
            total += 1
            if problems:
                rev_failed += 1
                print(f"FAIL {label}")
                for p in problems:
                    print(f"     {p}")
            elif verbose or notes:
                print(f"ok   {label}" + "".join(f"\n     note: {n}" for n in notes))
        failed += rev_failed
        print(f"== {rev.name}: {len(cases) - rev_failed}/{len(cases)} cases valid "
              f"({'draft 2020-12' if rev.d2020 else 'draft-07'} schema)")
    print(f"== total: {total - failed}/{total} cases valid")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
