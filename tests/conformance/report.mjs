#!/usr/bin/env node
// Helper for tests/conformance/run.sh (runs under the Node 22 of scripts/install-tools.sh).
//
//   node report.mjs lint <expected-failures.yml> <suite-kind> <scenario-list-file> [<requirements.yaml>]
//       suite-kind: "0.1.16" (whole-scenario entries only) or "alpha" (also scenario:check-id).
//       scenario-list-file: one runnable scenario name per line (what the run will execute).
//       requirements.yaml: for "alpha", the frozen requirement set; entries must be SCORED ones.
//     Checks that the file parses with the suites' own YAML library, has only a `server` list of
//     unique strings, that every scenario exists in the run, that not-scored scenarios are not
//     listed (they never affect the exit code), and that every entry line carries a `# reason`.
//     Exit 0 = OK, 1 = problems (printed).
//
//   node report.mjs scenarios <requirements.yaml>
//     Prints the server scenarios a frozen requirement set runs (scored, then not scored).
//
//   node report.mjs summarize <label> <log file> <output dir> [<requirements.yaml>]
//     Prints a per-suite summary from the suite's console log (its baseline verdict) and its
//     -o output dir (checks.json per scenario: which checks FAILED or WARNED).
//
// The YAML library is the one bundled with the conformance alpha install (found via
// $MCP_CONFORMANCE_ALPHA), so parsing matches what the suites do.
import { readFileSync, readdirSync, existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

function loadYaml() {
  const candidates = [process.env.MCP_CONFORMANCE_ALPHA, process.env.MCP_CONFORMANCE_0116].filter(Boolean);
  for (const bin of candidates) {
    // <prefix>/node_modules/.bin/conformance -> <prefix>/package.json
    const prefix = resolve(dirname(bin), '..', '..');
    try {
      return createRequire(join(prefix, 'package.json'))('yaml');
    } catch {
      // try the next install
    }
  }
  throw new Error('cannot load the `yaml` package from the conformance installs; source .tools/env.sh');
}
const YAML = loadYaml();

function readRequirements(path) {
  const doc = YAML.parse(readFileSync(path, 'utf8')) ?? {};
  const scored = Array.isArray(doc.server) ? doc.server : [];
  const notScored = (doc.not_scored ?? []).filter((e) => e?.leg === 'server');
  return { scored, notScored: new Map(notScored.map((e) => [e.scenario, e.reason])) };
}

function lint(file, kind, scenarioListFile, requirementsFile) {
  const problems = [];
  const text = readFileSync(file, 'utf8');
  let doc;
  try {
    doc = YAML.parse(text);
  } catch (e) {
    console.log(`  ${file}: YAML parse error: ${e.message}`);
    return 1;
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    problems.push('top level must be a mapping with a `server` list');
    doc = {};
  }
  for (const k of Object.keys(doc)) if (k !== 'server') problems.push(`unexpected top-level key '${k}' (only 'server' is used)`);
  const entries = Array.isArray(doc.server) ? doc.server : (problems.push('`server` must be a list'), []);
  const runnable = new Set(readFileSync(scenarioListFile, 'utf8').split('\n').map((s) => s.trim()).filter(Boolean));
  const req = requirementsFile ? readRequirements(requirementsFile) : undefined;
  const seen = new Set();
  for (const entry of entries) {
    if (typeof entry !== 'string' || entry === '') {
      problems.push(`entry ${JSON.stringify(entry)} is not a scenario name (no space after a colon in scenario:check-id)`);
      continue;
    }
    if (seen.has(entry)) problems.push(`duplicate entry '${entry}'`);
    seen.add(entry);
    const colon = entry.indexOf(':');
    const scenario = colon === -1 ? entry : entry.slice(0, colon);
    if (colon !== -1 && kind !== 'alpha') {
      problems.push(`'${entry}': 0.1.16 matches whole scenario names only; a scenario:check-id entry would be silently ignored`);
    }
    if (req?.notScored.has(scenario)) {
      problems.push(`'${entry}': scenario is not scored in this requirement set (reason: ${req.notScored.get(scenario)}); it never affects the exit code, remove it`);
    } else if (!runnable.has(scenario) || (req && !req.scored.includes(scenario))) {
      problems.push(`'${entry}': no scenario '${scenario}' in this run`);
    }
  }
  // Every entry line must carry a `# reason` comment.
  for (const [i, line] of text.split('\n').entries()) {
    const m = /^\s*-\s*(.*)$/.exec(line);
    if (!m) continue;
    const hash = m[1].indexOf('#');
    if (hash === -1 || m[1].slice(hash + 1).trim() === '') problems.push(`line ${i + 1}: entry without a '# reason' comment: ${line.trim()}`);
  }
  if (problems.length) {
    for (const p of problems) console.log(`  ${file}: ${p}`);
    return 1;
  }
  console.log(`  ${file}: ${entries.length} entries OK`);
  return 0;
}

const stripAnsi = (s) => s.replace(/\x1B\[[0-9;]*m/g, '');

function section(lines, header, marker) {
  const i = lines.findIndex((l) => l.startsWith(header));
  if (i === -1) return [];
  const out = [];
  for (const l of lines.slice(i + 1)) {
    const m = new RegExp(`^  ${marker} (.+)$`).exec(l);
    if (!m) break;
    out.push(m[1].trim());
  }
  return out;
}

function readChecks(outDir) {
  // server-<scenario>-<YYYY-MM-DDTHH-MM-SS-mmmZ>/checks.json
  const res = new Map();
  if (!outDir || !existsSync(outDir)) return res;
  for (const d of readdirSync(outDir)) {
    const p = join(outDir, d, 'checks.json');
    if (!existsSync(p) || !statSync(join(outDir, d)).isDirectory()) continue;
    const scenario = d.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
    try {
      res.set(scenario, JSON.parse(readFileSync(p, 'utf8')));
    } catch {
      res.set(scenario, [{ id: 'checks.json', status: 'FAILURE', errorMessage: 'unreadable checks.json' }]);
    }
  }
  return res;
}

function summarize(label, logFile, outDir, requirementsFile) {
  const lines = stripAnsi(existsSync(logFile) ? readFileSync(logFile, 'utf8') : '').split('\n');
  const req = requirementsFile ? readRequirements(requirementsFile) : undefined;
  const summary = [];
  for (const l of lines) {
    const m = /^([✓✗]) (\S+): (\d+) passed, (\d+) failed$/.exec(l);
    if (m) summary.push({ ok: m[1] === '✓', scenario: m[2], passed: +m[3], failed: +m[4] });
  }
  const total = lines.find((l) => l.startsWith('Total: '));
  const checks = readChecks(outDir);
  const bad = (c) => c.status === 'FAILURE' || c.status === 'WARNING';
  const withProblems = [];
  for (const [scenario, list] of [...checks.entries()].sort()) {
    const failing = list.filter(bad);
    if (failing.length) withProblems.push({ scenario, failing });
  }
  const out = [];
  out.push(`  scenarios run: ${summary.length || checks.size}; checks ${total ? total.replace('Total: ', '') : '(no total printed)'}`);
  const expected = section(lines, 'Expected failures (in baseline):', '~');
  const stale = section(lines, 'Stale baseline entries', '✓');
  const unexpected = section(lines, 'Unexpected failures (not in baseline):', '✗');
  out.push(`  baseline: ${expected.length} expected failure(s), ${stale.length} stale entr${stale.length === 1 ? 'y' : 'ies'}, ${unexpected.length} unexpected failure(s)`);
  if (stale.length) out.push(`    STALE (passing now, remove from the baseline): ${stale.join(', ')}`);
  if (unexpected.length) out.push(`    UNEXPECTED (failing, not in the baseline): ${unexpected.join(', ')}`);
  if (lines.some((l) => l.startsWith('Baseline check passed'))) out.push('  suite verdict: baseline check passed');
  else if (lines.some((l) => l.startsWith('Baseline is stale') || l.startsWith('Unexpected failures detected'))) out.push('  suite verdict: baseline check FAILED');
  else out.push('  suite verdict: no baseline verdict printed (crash or usage error? see the log)');
  if (req) {
    const ns = withProblems.filter((w) => req.notScored.has(w.scenario));
    const nsRun = [...checks.keys()].filter((s) => req.notScored.has(s));
    out.push(`  not scored (never affect the exit code): ${nsRun.length} run, ${ns.length} with FAILURE/WARNING${ns.length ? ': ' + ns.map((w) => w.scenario).join(', ') : ''}`);
  }
  if (withProblems.length) {
    out.push('  FAILURE/WARNING checks per scenario (from checks.json):');
    for (const { scenario, failing } of withProblems) {
      const tag = req?.notScored.has(scenario) ? ' [not scored]' : expected.some((e) => e === scenario || e.startsWith(scenario + ':')) ? ' [expected]' : '';
      const ids = failing.map((c) => `${c.id}=${c.status}`).join(', ');
      out.push(`    ${scenario}${tag}: ${ids.length > 300 ? ids.slice(0, 300) + '…' : ids}`);
    }
  }
  console.log(`== summary: ${label}`);
  console.log(out.join('\n'));
  return 0;
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === 'scenarios' && args.length === 1) {
  // Every server scenario a requirement set runs (scored first, then not scored).
  const { scored, notScored } = readRequirements(args[0]);
  for (const s of [...scored, ...notScored.keys()]) console.log(s);
  process.exit(0);
}
if (cmd === 'lint' && args.length >= 3) process.exit(lint(args[0], args[1], args[2], args[3]));
if (cmd === 'summarize' && args.length >= 3) process.exit(summarize(args[0], args[1], args[2], args[3]));
console.error('usage: report.mjs scenarios <requirements.yaml>\n       report.mjs lint <file> <0.1.16|alpha> <scenario-list-file> [requirements.yaml]\n       report.mjs summarize <label> <log> <outdir> [requirements.yaml]');
process.exit(2);
