// The official MCP TypeScript SDK (@modelcontextprotocol/sdk) against a real `fsbox mcp` process
// over stdio. Each test spawns $FSBOX_BIN in a fresh root.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, existsSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { pathToFileURL } from "node:url";
import { symlinkSync } from "node:fs";

const FSBOX = process.env.FSBOX_BIN;
assert.ok(FSBOX, "set FSBOX_BIN to the fsbox binary");

const NATIVE_CALLS = {
  read_file: { path: "a.txt", limit: 2 },
  write_file: { path: "new.txt", content: "new\n" },
  edit_file: { path: "a.txt", old_text: "two", new_text: "TWO" },
  list_directory: { path: "." },
  search_files: { pattern: "t.o", path: "." },
  find_files: { pattern: "**/*.go" },
  create_directory: { path: "made/deep" },
  file_info: { path: "a.txt" },
};

function makeRoot() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "fsbox-mcp-ts-")));
  const root = join(base, "root");
  mkdirSync(join(root, "src"), { recursive: true });
  writeFileSync(join(root, "a.txt"), "one\ntwo\nthree\n");
  writeFileSync(join(root, "src", "main.go"), "package main\n");
  writeFileSync(join(base, "secret.txt"), "outside canary\n");
  return root;
}

async function connect(args, { elicit, received } = {}) {
  const capabilities = elicit ? { elicitation: {} } : {};
  const client = new Client({ name: "fsbox-ts-test", version: "1" }, { capabilities });
  if (elicit) client.setRequestHandler(ElicitRequestSchema, elicit);
  const transport = new StdioClientTransport({ command: FSBOX, args: ["mcp", ...args], stderr: "inherit" });
  if (received) {
    // Record what the server sends: the SDK keeps the negotiated version to itself.
    let handler;
    Object.defineProperty(transport, "onmessage", {
      configurable: true,
      get: () => handler,
      set: (h) => {
        handler = (msg, extra) => {
          received.push(msg);
          h(msg, extra);
        };
      },
    });
  }
  await client.connect(transport);
  return client;
}

function textOf(res) {
  assert.equal(res.content.length, 1);
  assert.equal(res.content[0].type, "text");
  return res.content[0].text;
}

// The text is the content block: the declared outputSchema neither lists nor requires it.
function assertNoTextInSchema(t) {
  assert.ok(!("text" in (t.outputSchema?.properties ?? {})), t.name);
  assert.ok(!(t.outputSchema?.required ?? []).includes("text"), t.name);
}

function assertNoHostPath(res, root) {
  const s = JSON.stringify(res);
  assert.ok(!s.includes(root) && !s.includes(dirname(root)), s);
}

test("lists tools with input and output schemas and calls every one", async () => {
  const root = makeRoot();
  const client = await connect(["--root", root]);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), Object.keys(NATIVE_CALLS).sort());
    for (const t of tools) {
      assert.equal(t.inputSchema.type, "object", t.name);
      assert.equal(t.outputSchema?.type, "object", t.name);
      assertNoTextInSchema(t);
      assert.equal(t.annotations?.openWorldHint, false, t.name);
    }
    for (const [name, args] of Object.entries(NATIVE_CALLS)) {
      // callTool validates structuredContent against the listed outputSchema.
      const res = await client.callTool({ name, arguments: args });
      assert.ok(!res.isError, `${name}: ${textOf(res)}`);
      assert.ok(!("text" in res.structuredContent) && textOf(res), `${name}: ${JSON.stringify(res.structuredContent)}`);
    }
  } finally {
    await client.close();
  }
  assert.equal(readFileSync(join(root, "new.txt"), "utf8"), "new\n");
  assert.ok(existsSync(join(root, "made", "deep")));
});

test("a traversal attempt is an isError result naming no host path", async () => {
  const root = makeRoot();
  const client = await connect(["--root", root]);
  try {
    for (const path of ["../../etc/passwd", "../secret.txt", "/etc/passwd"]) {
      const res = await client.callTool({ name: "read_file", arguments: { path } });
      assert.equal(res.isError, true, path);
      assert.equal(res._meta?.["fsbox/error"]?.kind, "outside_root");
      assert.ok(!textOf(res).includes("canary"));
      assertNoHostPath(res, root);
    }
  } finally {
    await client.close();
  }
});

for (const [action, approve, applied] of [["accept", true, true], ["accept", false, false], ["decline", false, false]]) {
  test(`elicitation ${action}${action === "accept" ? ` approve=${approve}` : ""} decides a write`, async () => {
    const root = makeRoot();
    const seen = [];
    const client = await connect(["--root", root], {
      elicit: async (req) => {
        seen.push(req.params.message);
        return action === "accept" ? { action, content: { approve } } : { action };
      },
    });
    try {
      const res = await client.callTool({ name: "write_file", arguments: { path: "a.txt", content: "replaced\n" } });
      assert.ok(!res.isError, textOf(res));
      assert.equal(Boolean(res.structuredContent.cancelled), !applied);
    } finally {
      await client.close();
    }
    assert.equal(seen.length, 1);
    assert.match(seen[0], /write of a\.txt/);
    assert.match(seen[0], /\+replaced/);
    assert.ok(!seen[0].includes(root));
    assert.equal(readFileSync(join(root, "a.txt"), "utf8") === "replaced\n", applied);
  });
}

test("compat reference: read_text_file and edit_file with edits[]", async () => {
  const root = makeRoot();
  const client = await connect(["--compat", "reference", root]);
  try {
    const head = await client.callTool({ name: "read_text_file", arguments: { path: "a.txt", head: 1 } });
    assert.ok(!head.isError && textOf(head).includes("one") && !textOf(head).includes("two"), textOf(head));
    const edits = [{ oldText: "two", newText: "TWO" }];
    const dry = await client.callTool({ name: "edit_file", arguments: { path: "a.txt", edits, dryRun: true } });
    assert.match(textOf(dry), /\+TWO/);
    assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "one\ntwo\nthree\n");
    const res = await client.callTool({ name: "edit_file", arguments: { path: "a.txt", edits } });
    assert.ok(!res.isError, textOf(res));
    const bad = await client.callTool({ name: "get_file_info", arguments: { path: "../secret.txt" } });
    assert.equal(bad.isError, true);
    assertNoHostPath(bad, root);
  } finally {
    await client.close();
  }
  assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "one\nTWO\nthree\n");
});

// A successful call of every tool, in an order in which each succeeds in a fresh root: all tools
// enabled (undo_last_change with a journal), in fsbox's own presentation and the reference one.
const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
    "1f15c4890000000d49444154789c63f8ffff3f0005fe02fea73581840000000049454e44ae426082",
  "hex",
);
const PATCH = "*** Begin Patch\n*** Add File: p.txt\n+pee\n*** End Patch";
const EVERY_NATIVE_CALL = [
  ["read_file", { path: "a.txt", limit: 2 }],
  ["read_file", { path: "img.png" }],
  ["read_multiple_files", { paths: ["a.txt", "src/main.go"] }],
  ["list_directory", { path: "." }],
  ["directory_tree", { path: "." }],
  ["find_files", { pattern: "**/*.go" }],
  ["list_files", {}],
  ["search_files", { pattern: "t.o" }],
  ["grep", { pattern: "package" }],
  ["file_info", { path: "a.txt" }],
  ["write_file", { path: "new.txt", content: "new\n" }],
  ["edit_file", { path: "a.txt", old_text: "two", new_text: "TWO" }],
  ["undo_last_change", {}],
  ["create_directory", { path: "made/deep" }],
  ["remove_directory", { path: "made/deep" }],
  ["move_file", { source: "new.txt", destination: "moved.txt" }],
  ["delete", { path: "moved.txt" }],
  ["apply_patch", { input: PATCH }],
  ["str_replace_based_edit_tool", { command: "view", path: "a.txt" }],
];
const EVERY_REFERENCE_CALL = [
  ["read_text_file", { path: "a.txt", tail: 2 }],
  ["read_media_file", { path: "img.png" }],
  ["read_multiple_files", { paths: ["a.txt", "src/main.go"] }],
  ["list_directory", { path: "." }],
  ["list_directory_with_sizes", { path: "." }],
  ["directory_tree", { path: "." }],
  ["search_files", { path: ".", pattern: "*.go" }],
  ["get_file_info", { path: "a.txt" }],
  ["write_file", { path: "new.txt", content: "new\n" }],
  ["edit_file", { path: "a.txt", edits: [{ oldText: "two", newText: "TWO" }], dryRun: true }],
  ["edit_file", { path: "a.txt", edits: [{ oldText: "two", newText: "TWO" }] }],
  ["create_directory", { path: "made/deep" }],
  ["move_file", { source: "new.txt", destination: "moved.txt" }],
  ["apply_patch", { input: PATCH }],
  ["str_replace_based_edit_tool", { command: "view", path: "a.txt" }],
  ["list_allowed_directories", {}],
];

for (const compat of [false, true]) {
  test(`every tool${compat ? " (compat reference)" : ""}: structuredContent validates without the text, which is the content block`, async () => {
    const root = makeRoot();
    writeFileSync(join(root, "img.png"), PNG);
    const config = join(dirname(root), "all-tools.json");
    const tools = [...new Set(EVERY_NATIVE_CALL.map(([name]) => name))].sort();
    writeFileSync(config, JSON.stringify({ tools, journal: {} }));
    const calls = compat ? EVERY_REFERENCE_CALL : EVERY_NATIVE_CALL;
    const client = await connect(["--config", config, "--changes", "allow", ...(compat ? ["--compat", "reference"] : []), root]);
    try {
      const listed = (await client.listTools()).tools;
      assert.deepEqual(listed.map((t) => t.name).sort(), [...new Set(calls.map(([name]) => name))].sort());
      for (const [name, args] of calls) {
        // callTool validates structuredContent against the listed outputSchema (it throws if not).
        const res = await client.callTool({ name, arguments: args });
        assert.ok(!res.isError, `${name}: ${JSON.stringify(res.content)}`);
        assert.ok(!("text" in res.structuredContent), `${name}: ${JSON.stringify(res.structuredContent)}`);
        assert.equal(res.content[0].type, "text", name);
        assert.ok(res.content[0].text, name);
        assert.equal(res.content.length, args.path === "img.png" ? 2 : 1, name);
      }
      listed.forEach(assertNoTextInSchema);
    } finally {
      await client.close();
    }
  });
}

// @modelcontextprotocol/sdk 1.32.2 (the newest npm serves here) knows protocol versions up to
// 2025-11-25 and has no server/discover: it gets the initialize generation, which fsbox still serves.
test("negotiates 2025-11-25 through initialize", async () => {
  const root = makeRoot();
  const received = [];
  const client = await connect(["--root", root], { received });
  try {
    const init = received.find((m) => m.result?.protocolVersion);
    assert.equal(init?.result.protocolVersion, "2025-11-25");
    assert.equal(client.getServerVersion()?.name, "fsbox");
    assert.ok(client.getServerCapabilities()?.resources, "resources capability");
  } finally {
    await client.close();
  }
});

test("files are resources by file:// URI, never listed, and URIs cannot traverse", async () => {
  const root = makeRoot();
  symlinkSync(join(dirname(root), "secret.txt"), join(root, "out-link.txt"));
  const client = await connect(["--root", root]);
  try {
    assert.deepEqual((await client.listResources()).resources, []);
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate), ["file://{+path}"]);
    const uri = pathToFileURL(join(root, "a.txt")).href;
    const { contents } = await client.readResource({ uri });
    assert.deepEqual(contents, [{ uri, mimeType: "text/plain", text: "one\ntwo\nthree\n" }]);
    const base = pathToFileURL(root).href;
    for (const bad of [
      `${base}/../secret.txt`,
      `${base}/%2e%2e/secret.txt`,
      `${base}/src%2F..%2F..%2Fsecret.txt`,
      pathToFileURL(join(dirname(root), "secret.txt")).href,
      `${base}/out-link.txt`,
      `file://localhost${root}/a.txt`,
      `${base}/a.txt?x=1`,
    ]) {
      await assert.rejects(client.readResource({ uri: bad }), (err) => {
        assert.ok(err instanceof McpError, String(err));
        assert.equal(err.code, -32602, `${bad}: ${err.message}`);
        assert.ok(["invalid_path", "outside_root"].includes(err.data?.kind), `${bad}: ${JSON.stringify(err.data)}`);
        assert.ok(!err.message.includes("canary"));
        return true;
      });
    }
  } finally {
    await client.close();
  }
});
