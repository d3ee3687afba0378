// The MCP Apps browser test: headless Chromium loads host.html (host.js,
// bundled here with esbuild), which hosts a server's tool page with the
// official AppBridge; the test fills in the page's form and clicks its
// button, the page calls a tool through the host, and the result must show
// in the page. A screenshot of the host with the page is kept.
//
//   node run.mjs --server http://127.0.0.1:PORT --tool board --chromium /usr/bin/chromium \
//       --modules <node_modules with ext-apps, client, puppeteer-core, esbuild> --out DIR
//
// The host page and the server share one origin: this script serves the page
// on 127.0.0.1 and passes /mcp through to the server, as a host's backend
// would. Exits 1 with the host's log when a check fails.
import { createServer, request as httpRequest } from "node:http";
import { createRequire } from "node:module";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith("--") ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []),
);
for (const k of ["server", "tool", "chromium", "modules", "out"]) {
  if (!args[k]) {
    console.error(`run.mjs: --${k} is required`);
    process.exit(2);
  }
}
const require = createRequire(join(args.modules, "package.json"));
const esbuild = require("esbuild");
const puppeteer = require("puppeteer-core");
mkdirSync(args.out, { recursive: true });

let failures = 0;
const check = (what, ok, detail = "") => {
  console.log(`${ok ? "PASS" : "FAIL"}  ${what}${ok || !detail ? "" : `: ${detail}`}`);
  if (!ok) failures++;
};

// The host page's script, with its two packages, for the browser.
const bundle = await esbuild.build({
  entryPoints: [join(here, "host.js")],
  bundle: true,
  format: "esm",
  platform: "browser",
  nodePaths: [args.modules],
  write: false,
  logLevel: "error",
});
const files = {
  "/": ["text/html", readFileSync(join(here, "host.html"))],
  "/host.bundle.js": ["text/javascript", Buffer.from(bundle.outputFiles[0].contents)],
};

// JSON-RPC requests that went to the server, as the proxy saw them.
const seen = [];
const upstream = new URL(args.server);
const web = createServer((req, res) => {
  const path = new URL(req.url, "http://x").pathname;
  if (path === "/mcp") {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      if (body.length) {
        try {
          const msg = JSON.parse(body);
          for (const m of [msg].flat()) if (m.method) seen.push({ method: m.method, params: m.params });
        } catch {}
      }
      const headers = { ...req.headers, host: upstream.host };
      const out = httpRequest(
        { host: upstream.hostname, port: upstream.port, path: "/mcp", method: req.method, headers },
        (up) => {
          res.writeHead(up.statusCode, up.headers);
          up.pipe(res);
        },
      );
      out.on("error", (e) => {
        res.writeHead(502);
        res.end(String(e));
      });
      out.end(body);
    });
    return;
  }
  const file = files[path];
  if (path === "/favicon.ico") {
    res.writeHead(204);
    res.end();
    return;
  }
  if (!file) {
    res.writeHead(404);
    res.end();
    return;
  }
  res.writeHead(200, { "content-type": file[0] });
  res.end(file[1]);
});
await new Promise((resolve) => web.listen(0, "127.0.0.1", resolve));
const origin = `http://127.0.0.1:${web.address().port}`;

const browser = await puppeteer.launch({
  executablePath: args.chromium,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check"],
});
let hostLog = [];
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 960, height: 640 });
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warn") console.log(`  [browser ${m.type()}] ${m.text()}`);
  });
  page.on("pageerror", (e) => console.log(`  [browser error] ${e.message}`));
  await page.goto(`${origin}/?tool=${encodeURIComponent(args.tool)}`);
  await page.waitForFunction(() => window.hostState && window.hostState !== "starting", { timeout: 30000 });
  hostLog = await page.evaluate(() => window.hostLog);
  const state = await page.evaluate(() => window.hostState);
  check("the host connected, called the tool, read its page and the page initialized", state === "ready", hostLog.join("\n"));
  if (state !== "ready") throw new Error("host failed");

  const frame = await (await page.$("#app")).contentFrame();
  // The tool's result, sent by the host, is the page's list.
  await frame.waitForFunction(() => !document.querySelector("#notes li")?.textContent.startsWith("Waiting"), { timeout: 10000 });
  const before = await frame.$$eval("#notes li", (items) => items.map((i) => `${i.value}. ${i.textContent}`));
  const called = seen.find((m) => m.method === "tools/call" && m.params?.name === args.tool);
  check("the page shows the result of the host's call", before.length >= 1 && called !== undefined, JSON.stringify(before));

  // The user adds a note in the page: the page calls add_note through the host.
  const title = "From the browser";
  await frame.type("#title", title);
  await frame.type("#body", "typed into the app's form");
  await frame.click("#add-button");
  await frame.waitForFunction(
    (t) => document.querySelector("#status").textContent.startsWith("Added note")
      && [...document.querySelectorAll("#notes li")].some((li) => li.textContent === t),
    { timeout: 10000 },
    title,
  ).catch(() => {});
  const status = await frame.$eval("#status", (s) => s.textContent);
  const after = await frame.$$eval("#notes li", (items) => items.map((i) => `${i.value}. ${i.textContent}`));
  const id = (/^Added note (\d+)$/.exec(status) || [])[1];
  check("the page's button called add_note through the host and shows the new note", id !== undefined && after.includes(`${id}. ${title}`), `status=${JSON.stringify(status)} list=${JSON.stringify(after)}`);
  const added = seen.filter((m) => m.method === "tools/call" && m.params?.name === "add_note");
  check("the server received the page's add_note from the host", added.length === 1 && added[0].params.arguments?.title === title, JSON.stringify(added));

  const shot = join(args.out, `${args.tool}.png`);
  writeFileSync(shot, await page.screenshot({ fullPage: true }));
  console.log(`screenshot: ${shot}`);

  // The server's own answer, asked without the browser: the note exists.
  const reply = await fetch(`${args.server}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "resources/read",
      "mcp-name": `notes://${id}`,
    },
    body: JSON.stringify({
      jsonrpc: "2.0", id: 1, method: "resources/read",
      params: {
        uri: `notes://${id}`,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": { name: "apps-test", version: "1" },
        },
      },
    }),
  });
  const text = await reply.text();
  const json = JSON.parse(text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1));
  const contents = json.result?.contents?.[0]?.text ?? "";
  check(`the server holds note ${id}`, contents.startsWith(`# ${title}`), text);
} catch (e) {
  if (failures === 0) check("the browser test ran", false, String(e && e.stack ? e.stack : e));
  if (hostLog.length) console.log(`host log:\n  ${hostLog.join("\n  ")}`);
} finally {
  await browser.close();
  web.close();
}
process.exit(failures ? 1 : 0);
