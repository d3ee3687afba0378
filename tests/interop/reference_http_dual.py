#!/usr/bin/env python3
"""The Python reference calculator behind our calculator's HTTP command line.

    .tools/pyenv/bin/python tests/interop/reference_http_dual.py --http 127.0.0.1:PORT

Serves, on ONE port like `target/debug/calculator --http ADDR` will:
  - Streamable HTTP (dual-era: 2025-11-25 sessions and stateless 2026-07-28) at /mcp;
  - the legacy 2024-11-05 HTTP+SSE transport at GET /sse, whose `endpoint` event
    points at /messages/?session_id=... (the Python SDK's path; ours is /messages?session_id=).
Prints nothing on stdout (uvicorn's access log is off; its error log goes to stderr).
Same tools as tests/interop/reference_calculator.py (imported from there).

It exists to prove run_http.sh's "start a binary with --http" path end to end:
    tests/interop/run_http.sh --reference .tools/pyenv/bin/python tests/interop/reference_http_dual.py
"""

from __future__ import annotations

import argparse
import os
import sys

import uvicorn

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_calculator import mcp  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--http", required=True, metavar="HOST:PORT")
    args = p.parse_args()
    host, _, port = args.http.rpartition(":")
    app = mcp.streamable_http_app(streamable_http_path="/mcp", host=host)
    # The SSE app's routes (GET /sse, POST /messages/) join the Streamable HTTP app,
    # whose lifespan runs the session manager.
    app.router.routes.extend(mcp.sse_app(host=host).routes)
    uvicorn.run(app, host=host, port=int(port), access_log=False, log_level="warning")


if __name__ == "__main__":
    main()
