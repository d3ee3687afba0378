// A minimal MCP Apps host, run in Chromium by tests/apps/run.mjs (bundled
// there with esbuild). It does what a chat host does when the model calls a
// tool that has a page: an MCP client (the official TypeScript SDK, declaring
// the Apps extension) connects to the server, lists the tools, calls the
// tool, reads the `ui://` page its `_meta.ui.resourceUri` names, renders it
// in a sandboxed iframe under the CSP its `_meta.ui.csp` asks for, and joins
// page and server with the official host-side bridge (AppBridge from
// @modelcontextprotocol/ext-apps), which forwards the page's `tools/call`s.
// Progress goes to window.hostLog; window.hostState ends "ready" or "failed".
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

const MIME = "text/html;profile=mcp-app";
const log = (line) => {
  window.hostLog.push(line);
  document.getElementById("log").textContent = window.hostLog.join("\n");
};
window.hostLog = [];
window.hostState = "starting";

// The CSP a host puts on a page: nothing beyond the page itself, plus the
// origins its `_meta.ui.csp` lists.
function policy(csp = {}) {
  const list = (origins) => (origins && origins.length ? origins.join(" ") : "'none'");
  const resources = csp.resourceDomains && csp.resourceDomains.length ? " " + csp.resourceDomains.join(" ") : "";
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline'${resources}`,
    `style-src 'unsafe-inline'${resources}`,
    `img-src data:${resources}`,
    `font-src${resources || " 'none'"}`,
    `connect-src ${list(csp.connectDomains)}`,
    `frame-src ${list(csp.frameDomains)}`,
    `base-uri ${list(csp.baseUriDomains)}`,
  ].join("; ");
}

async function main() {
  const toolName = new URLSearchParams(location.search).get("tool");
  const client = new Client(
    { name: "apps-test-host", version: "1.0.0" },
    { capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [MIME] } } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.href)));
  const server = client.getServerCapabilities();
  log(`connected: ${JSON.stringify(client.getServerVersion())}, extensions ${JSON.stringify(server.extensions)}`);
  if (!server.extensions || !server.extensions["io.modelcontextprotocol/ui"]) {
    throw new Error("the server does not offer io.modelcontextprotocol/ui");
  }

  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === toolName);
  const uri = tool && tool._meta && tool._meta.ui && tool._meta.ui.resourceUri;
  if (!uri) throw new Error(`tool ${toolName} has no _meta.ui.resourceUri: ${JSON.stringify(tool)}`);
  log(`tool ${toolName} shows ${uri}`);

  // The model's call, then the page it shows.
  const result = await client.callTool({ name: toolName, arguments: {} });
  log(`called ${toolName}: ${JSON.stringify(result.content)}`);
  const read = await client.readResource({ uri });
  const page = read.contents[0];
  if (page.mimeType !== MIME) throw new Error(`page ${uri} has MIME type ${page.mimeType}`);
  const listed = (await client.listResources()).resources.find((r) => r.uri === uri);
  const ui = (page._meta && page._meta.ui) || (listed && listed._meta && listed._meta.ui) || {};
  log(`read ${uri}: ${page.text.length} characters, csp ${JSON.stringify(ui.csp || {})}`);

  const iframe = document.createElement("iframe");
  iframe.id = "app";
  iframe.setAttribute("sandbox", "allow-scripts allow-forms");
  const csp = `<meta http-equiv="Content-Security-Policy" content="${policy(ui.csp)}">`;
  iframe.srcdoc = page.text.replace(/<head>/i, `<head>${csp}`);
  document.getElementById("frame").append(iframe);

  const bridge = new AppBridge(
    client,
    { name: "apps-test-host", version: "1.0.0" },
    { serverTools: {}, logging: {} },
  );
  const initialized = new Promise((resolve) => {
    bridge.oninitialized = resolve;
  });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  await initialized;
  log("page initialized");
  await bridge.sendToolInput({ arguments: {} });
  await bridge.sendToolResult(result);
  log("sent the tool's result to the page");
  window.hostState = "ready";
}

main().catch((e) => {
  log(`failed: ${e && e.stack ? e.stack : e}`);
  window.hostState = "failed";
});
