#!/usr/bin/env node
// What the TypeScript SDK adds to a call, against the raw pipe (issue 25, item 3); the twin of
// bench/sdk_overhead.py, on the same scenarios and corpus.
//
// - pipe: the floor. A spawned `fsbox serve`, one request line written, the reply line split from
//   stdout and JSON.parse'd; nothing else.
// - sdk: Client's typed method (client.readFile(...)): the request encoded, the pending call
//   registered, the reply routed by id, its bytes fields decoded (decodeBytes).
// - sdk text(): client.text(name, args), what the AI SDK tools call.
// - sdk text shape: a client started with resultShape "text", through text(): what the AI SDK
//   tools pay when the client is started for them (startForTools in @fsbox/sdk/ai).
//
// Per scenario: median µs per call over interleaved rounds, bytes per reply, and JSON.parse of
// the same reply alone.
//
//   go build -o bin/fsbox ./cmd/fsbox
//   (cd sdks/typescript && npm ci && npm run build)
//   node bench/sdk_overhead.mjs [--binary bin/fsbox] [--n 2000] [--json out.json]
//   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/sdk_overhead.mjs --only sdk   # a profile
//
// Not a test: nothing asserts a time.
import { spawn, execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const binary = resolve(opt("binary", process.env.FSBOX_BIN ?? join(here, "..", "bin", "fsbox")));
const N = Number(opt("n", "2000"));
const WARMUP = Number(opt("warmup", "200"));
const only = opt("only", "");
const sdkDir = resolve(opt("sdk", join(here, "..", "sdks", "typescript", "dist")));
const { Client } = await import(join(sdkDir, "index.js"));

const MARK_A = "// fsbox bench marker: A\n";
const MARK_B = "// fsbox bench marker: B\n";

function corpus() {
  const goroot = execFileSync("go", ["env", "GOROOT"], { encoding: "utf8" }).trim();
  const src = join(goroot, "src");
  const root = mkdtempSync(join(tmpdir(), "fsbox-sdkbench-"));
  mkdirSync(join(root, "src", "fmt"), { recursive: true });
  cpSync(join(src, "fmt", "doc.go"), join(root, "src", "fmt", "doc.go"));
  mkdirSync(join(root, "src", "net"));
  for (const e of readdirSync(join(src, "net"), { withFileTypes: true })) {
    if (e.isDirectory()) mkdirSync(join(root, "src", "net", e.name));
    else if (e.isFile()) cpSync(join(src, "net", e.name), join(root, "src", "net", e.name));
  }
  const lines = readFileSync(join(src, "net", "http", "server.go"), "utf8").split(/(?<=\n)/).slice(0, 999);
  lines.splice(500, 0, MARK_A);
  mkdirSync(join(root, "scratch"));
  writeFileSync(join(root, "scratch", "edit_1000.go"), lines.join(""));
  return root;
}

class Pipe {
  constructor(root, shape) {
    this.child = spawn(binary, ["serve"], { stdio: ["pipe", "pipe", "inherit"] });
    this.id = 0;
    this.parts = [];
    this.waiting = null;
    this.lastLine = "";
    this.child.stdout.on("data", (chunk) => {
      let start = 0;
      for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
        let line = chunk.subarray(start, nl);
        if (this.parts.length) {
          this.parts.push(line);
          line = Buffer.concat(this.parts);
          this.parts = [];
        }
        start = nl + 1;
        const text = line.toString("utf8");
        this.lastLine = text;
        const w = this.waiting;
        this.waiting = null;
        w(JSON.parse(text));
      }
      if (start < chunk.length) this.parts.push(chunk.subarray(start));
    });
    const caps = shape ? { result_shape: shape } : {};
    this.ready = this.request("initialize", { protocol_version: "1", config: { root_dir: root }, capabilities: caps });
  }
  request(method, params) {
    this.id++;
    return new Promise((res, rej) => {
      this.waiting = (msg) => (msg.error ? rej(new Error(JSON.stringify(msg.error))) : res(msg.result));
      this.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: this.id, method, params }) + "\n");
    });
  }
  call(name, a) {
    return this.request("tools/call", { name, arguments: a });
  }
  close() {
    this.child.stdin.end();
    return new Promise((r) => this.child.once("exit", r));
  }
}

const SCENARIOS = {
  read_small: ["read_file", "readFile", () => ({ path: "src/fmt/doc.go" })],
  list_dir: ["list_directory", "listDirectory", () => ({ path: "src/net" })],
  edit_1000: [
    "edit_file",
    "editFile",
    (i) => ({ path: "scratch/edit_1000.go", old_text: i % 2 === 0 ? MARK_A : MARK_B, new_text: i % 2 === 0 ? MARK_B : MARK_A }),
  ],
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function perCall(fn, n, warmup, start) {
  for (let i = start; i < start + warmup; i++) await fn(i);
  const times = [];
  for (let i = start + warmup; i < start + warmup + n; i++) {
    const t0 = process.hrtime.bigint();
    await fn(i);
    times.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  return median(times);
}

function timeAlone(fn, n = 2000) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  return median(times);
}

const root = corpus();
const rows = [];
try {
  for (const [name, [tool, method, mk]] of Object.entries(SCENARIOS)) {
    const pipe = new Pipe(root);
    await pipe.ready;
    const client = await Client.start({ rootDir: root, binary });
    const textClient = await Client.start({ rootDir: root, binary, resultShape: "text" });
    const sides = {
      pipe: (i) => pipe.call(tool, mk(i)),
      sdk: (i) => client[method](mk(i)),
      sdk_text_call: (i) => client.text(tool, mk(i)),
      sdk_text_shape: (i) => textClient.text(tool, mk(i)),
    };
    const res = Object.fromEntries(Object.keys(sides).map((k) => [k, []]));
    const rounds = 5;
    const n = Math.max(1, Math.floor(N / rounds));
    let w = WARMUP;
    for (let r = 0; r < rounds; r++) {
      const base = r * (n + w) * 2;
      for (const [k, fn] of Object.entries(sides)) {
        if (only && k !== only) continue;
        res[k].push(await perCall(fn, n, w, base));
      }
      w = Math.max(20, Math.floor(WARMUP / 5));
    }
    await pipe.call(tool, mk(0));
    const line = pipe.lastLine;
    await pipe.call(tool, mk(1));
    const tp = new Pipe(root, "text");
    await tp.ready;
    await tp.call(tool, mk(2));
    const textLine = tp.lastLine;
    await tp.call(tool, mk(3));
    await tp.close();
    await pipe.close();
    await client.close();
    await textClient.close();
    const med = Object.fromEntries(Object.entries(res).map(([k, v]) => [k, v.length ? median(v) : NaN]));
    const r1 = (x) => Math.round(x * 10) / 10;
    rows.push({
      scenario: name,
      tool,
      reply_bytes: Buffer.byteLength(line),
      reply_bytes_text: Buffer.byteLength(textLine),
      ...Object.fromEntries(Object.entries(med).map(([k, v]) => [`${k}_us`, r1(v)])),
      overhead_pct: r1((100 * (med.sdk - med.pipe)) / med.pipe),
      overhead_text_call_pct: r1((100 * (med.sdk_text_call - med.pipe)) / med.pipe),
      json_parse_us: r1(timeAlone(() => JSON.parse(line))),
    });
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}

console.log(`Node ${process.version}; median µs per call (5 interleaved rounds of ${Math.max(1, Math.floor(N / 5))})\n`);
console.log("| call | reply bytes (both / text) | pipe | sdk typed | sdk text() | sdk text shape | overhead typed | overhead text() | JSON.parse |");
console.log("|---|--:|--:|--:|--:|--:|--:|--:|--:|");
for (const r of rows) {
  console.log(
    `| ${r.scenario} | ${r.reply_bytes} / ${r.reply_bytes_text} | ${r.pipe_us} | ${r.sdk_us} | ${r.sdk_text_call_us} | ` +
      `${r.sdk_text_shape_us} | ${r.overhead_pct}% | ${r.overhead_text_call_pct}% | ${r.json_parse_us} |`,
  );
}
const out = opt("json", "");
if (out) writeFileSync(out, JSON.stringify(rows, null, 1));
