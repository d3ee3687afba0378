"""A scripted browser for the authorization interop tests: it opens an
authorization URL of tests/interop/oauth/provider.mjs, signs in on its
development login page (user `alice`), and follows the redirects until the
one that leaves the authorization server: the client's redirect URI, which
it opens (a loopback listener) or returns.

    python browser.py URL          # as MCP_OPEN_BROWSER for calculator_client
"""

import html.parser
import os
import sys
import urllib.parse

try:  # the name the mcp SDK 2.x depends on
    import httpx2 as httpx
except ImportError:  # pragma: no cover
    import httpx


DEBUG = bool(os.environ.get("BROWSER_DEBUG"))


class _Forms(html.parser.HTMLParser):
    """The first form of a page: its action and its inputs."""

    def __init__(self):
        super().__init__()
        self.action = None
        self.fields = {}
        self._in_form = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and self.action is None:
            self.action = a.get("action", "")
            self._in_form = True
        elif tag == "input" and self._in_form and a.get("name"):
            self.fields[a["name"]] = a.get("value") or ""

    def handle_endtag(self, tag):
        if tag == "form":
            self._in_form = False


def sign_in(url: str, user: str = "alice", deliver: bool = True) -> str:
    """Walks the authorization server's pages for `url`; returns the final
    redirect (to the client), after opening it when `deliver`."""
    origin = "{0.scheme}://{0.netloc}".format(urllib.parse.urlsplit(url))
    with httpx.Client(follow_redirects=False, timeout=30) as b:
        response = b.get(url)
        for _ in range(20):
            if DEBUG:
                print("browser:", response.status_code, response.request.method, response.url, response.headers.get("location"), file=sys.stderr)
            if response.is_redirect:
                target = urllib.parse.urljoin(str(response.url), response.headers["location"])
                if not target.startswith(origin):
                    if deliver:
                        httpx.get(target, timeout=30)
                    return target
                response = b.get(target)
                continue
            if response.status_code != 200:
                raise SystemExit(f"browser: {response.url} answered {response.status_code}: {response.text[:300]}")
            form = _Forms()
            form.feed(response.text)
            if form.action is None:
                raise SystemExit(f"browser: no form on {response.url}: {response.text[:300]}")
            fields = dict(form.fields)
            if DEBUG:
                print("browser: form", form.action, fields, [(c.name, c.path) for c in b.cookies.jar], file=sys.stderr)
            if "login" in fields or "password" in fields:
                fields["login"] = user
                fields["password"] = "any"
            response = b.post(urllib.parse.urljoin(str(response.url), form.action), data=fields)
        raise SystemExit("browser: too many steps")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: browser.py URL")
    print(f"browser: redirected to {sign_in(sys.argv[1])}", file=sys.stderr)
