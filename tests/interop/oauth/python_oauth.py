#!/usr/bin/env python3
"""The Python `mcp` 2.3.0 client, with its own OAuth provider, against the
protected calculator (`calculator --http ADDR --issuer URL`) and the real
authorization server of tests/interop/oauth/provider.mjs.

    python_oauth.py http://HOST:PORT/mcp [--label NAME] [--client-id ID | --client-metadata-url URL]

The SDK discovers the server's resource metadata and the issuer, registers
itself (or, with --client-id, uses a client registered beforehand, handed
to it through its token storage; with --client-metadata-url, uses that URL
as its client id where the authorization server supports Client ID Metadata
Documents), runs the code flow with PKCE (the scripted browser of
browser.py signs in) and calls the calculator in both eras; `store` needs a
scope the first token lacks, so the SDK steps up on the server's 403.
Prints one line per check; exits non-zero if any failed.
"""

from __future__ import annotations

import argparse
import os
import sys
import urllib.parse

import anyio
import httpx2
from mcp import Client
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser  # noqa: E402

REDIRECT = "http://127.0.0.1:9/callback"


class Memory:
    """The SDK's TokenStorage, in memory."""

    def __init__(self, client: OAuthClientInformationFull | None = None) -> None:
        self.tokens: OAuthToken | None = None
        self.client = client

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


failed: list[str] = []
LABEL = "python oauth"


def check(name: str, cond: bool, detail: str = "") -> None:
    print(f"{'PASS' if cond else 'FAIL'} [{LABEL}] {name}" + (f": {detail}" if detail and not cond else ""))
    if not cond:
        failed.append(name)


async def main(url: str, client_id: str | None, client_metadata_url: str | None) -> None:
    redirects: list[str] = []
    asked: list[str] = []

    async def redirect_handler(authorization_url: str) -> None:
        asked.append(authorization_url)
        # The user signs in; the browser stops at the redirect to the client.
        final = await anyio.to_thread.run_sync(lambda: browser.sign_in(authorization_url, deliver=False))
        redirects.append(final)

    async def callback_handler() -> AuthorizationCodeResult:
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(redirects[-1]).query))
        if "code" not in query:
            raise SystemExit(f"the authorization server answered: {redirects[-1]}")
        return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))

    metadata = OAuthClientMetadata(
        client_name="python-mcp-interop",
        redirect_uris=[REDIRECT],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    # A client registered beforehand: the SDK takes it from its storage.
    pre_registered = (
        OAuthClientInformationFull(client_id=client_id, **metadata.model_dump(exclude_none=True))
        if client_id
        else None
    )
    storage = Memory(pre_registered)
    provider = OAuthClientProvider(
        server_url=url,
        client_metadata=metadata,
        storage=storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
        client_metadata_url=client_metadata_url,
    )
    async with httpx2.AsyncClient(auth=provider, timeout=30) as http:
        for mode in ("legacy", "2026-07-28"):
            async with Client(streamable_http_client(url, http_client=http), mode=mode, read_timeout_seconds=60) as client:
                tools = sorted(t.name for t in (await client.list_tools()).tools)
                check(f"{mode}: tools/list after signing in", "add" in tools, str(tools))
                result = await client.call_tool("add", {"a": 2, "b": 3})
                text = "".join(c.text for c in result.content if getattr(c, "type", "") == "text")
                check(f"{mode}: add(2, 3)", not result.is_error and text == "5", text)
                result = await client.call_tool("store", {"value": 7})
                check(f"{mode}: store(7) (needs calculator:write)", not result.is_error, str(result))
                result = await client.call_tool("recall", {})
                text = "".join(c.text for c in result.content if getattr(c, "type", "") == "text")
                check(f"{mode}: recall()", not result.is_error and text == "7", text)
    check("signed in through the authorization server", len(redirects) >= 1, str(len(redirects)))
    ids = {dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(r).query)).get("client_id") for r in asked}
    expected = client_id or client_metadata_url or (storage.client.client_id if storage.client else None)
    check("the client id sent is the expected one", ids == {expected}, f"{ids} != {{{expected!r}}}")
    print(f"INFO [{LABEL}] authorizations: {len(redirects)}, client id: {expected}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="The Python mcp client signing in to the protected calculator.")
    parser.add_argument("url")
    parser.add_argument("--label", default="python oauth")
    who = parser.add_mutually_exclusive_group()
    who.add_argument("--client-id", help="a client registered beforehand (public, loopback redirect)")
    who.add_argument("--client-metadata-url", help="the https URL of the client's metadata document")
    args = parser.parse_args()
    LABEL = args.label
    anyio.run(main, args.url, args.client_id, args.client_metadata_url)
    sys.exit(1 if failed else 0)
