// The AI SDK entry point driven by the AI SDK's own mock language model through generateText,
// against a real fsbox process.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";

import { generateText, stepCountIs } from "ai";

import { fsboxTools, reviewChanges, startClient } from "../dist/ai.js";
import { fsboxEditorTools, startClient as startEditorClient } from "../dist/editor.js";
import type { AuditRecord, ChangeRequest } from "../dist/index.js";
import { binary, start, tempRoot } from "./helpers.js";
import { scripted } from "./scripted.js";

function toolOutputs(result: Awaited<ReturnType<typeof generateText>>): Array<{ name: string; output: unknown; error: boolean }> {
  const out: Array<{ name: string; output: unknown; error: boolean }> = [];
  for (const step of result.steps) {
    for (const part of step.content) {
      if (part.type === "tool-result") {
        out.push({ name: part.toolName, output: part.output, error: false });
      } else if (part.type === "tool-error") {
        out.push({ name: part.toolName, output: String(part.error), error: true });
      }
    }
  }
  return out;
}

describe("fsboxTools with generateText", () => {
  test("reads, edits, and a hostile path comes back as a tool error", async () => {
    const root = tempRoot({ "notes.txt": "hello\nworld\n" });
    const client = await start(root);
    try {
      const result = await generateText({
        model: scripted([
          ["read_file", { path: "notes.txt" }],
          ["edit_file", { path: "notes.txt", old_text: "world", new_text: "there" }],
          ["read_file", { path: "../../etc/passwd" }],
        ]),
        tools: fsboxTools(client),
        stopWhen: stepCountIs(5),
        prompt: "go",
      });
      assert.equal(result.text, "done");
      const outs = toolOutputs(result);
      assert.match(String(outs[0]?.output), /^\[notes\.txt \| 2 lines \| hash:/);
      assert.match(String(outs[1]?.output), /^Edited notes\.txt/);
      assert.equal(outs[2]?.error, true);
      assert.match(String(outs[2]?.output), /outside the root/);
      assert.doesNotMatch(String(outs[2]?.output), /root:x:0:0/);
      assert.equal(readFileSync(join(root, "notes.txt"), "utf8"), "hello\nthere\n");
    } finally {
      await client.close();
    }
  });

  test('a client started with resultShape "text" serves the same tool texts', async () => {
    const root = tempRoot({ "notes.txt": "hello\nworld\n" });
    const client = await start(root, { resultShape: "text" });
    try {
      const result = await generateText({
        model: scripted([
          ["read_file", { path: "notes.txt" }],
          ["read_file", { path: "../../etc/passwd" }],
        ]),
        tools: fsboxTools(client),
        stopWhen: stepCountIs(5),
        prompt: "go",
      });
      const outs = toolOutputs(result);
      assert.equal(outs[0]?.error, false);
      assert.match(String(outs[0]?.output), /^\[notes\.txt \| 2 lines \| hash:/);
      assert.equal(outs[1]?.error, true);
      assert.match(String(outs[1]?.output), /outside the root/);
    } finally {
      await client.close();
    }
  });

  test("a rule-flagged write goes to the reviewer with its diff; a refusal writes nothing", async () => {
    const root = tempRoot({ "free.txt": "a\n", "guarded/": "" });
    const seen: ChangeRequest[] = [];
    const client = await start(root, {
      config: { permissions: [{ operations: ["write"], paths: ["/guarded/**"], mode: "interrupt" }] },
      onChangeRequest: reviewChanges((change) => {
        seen.push(change);
        return { approve: false, reason: "not now" };
      }),
    });
    try {
      const result = await generateText({
        model: scripted([
          ["write_file", { path: "free.txt", content: "b\n" }],
          ["write_file", { path: "guarded/x.txt", content: "x\n" }],
        ]),
        tools: fsboxTools(client),
        stopWhen: stepCountIs(5),
        prompt: "go",
      });
      assert.deepEqual(seen.map((c) => c.path), ["guarded/x.txt"]);
      assert.match(seen[0]?.diff ?? "", /\+x/);
      assert.equal(readFileSync(join(root, "free.txt"), "utf8"), "b\n");
      assert.equal(existsSync(join(root, "guarded", "x.txt")), false);
      assert.match(String(toolOutputs(result)[1]?.output), /not now/);
    } finally {
      await client.close();
    }
  });

  test("a reviewer answering { edit } gets its content written, and the model is told", async () => {
    const root = tempRoot({ "guarded/": "" });
    const client = await start(root, {
      config: { permissions: [{ operations: ["write"], paths: ["/guarded/**"], mode: "interrupt" }] },
      onChangeRequest: reviewChanges(() => ({ edit: { content: "reviewed\n" } })),
    });
    try {
      const result = await generateText({
        model: scripted([["write_file", { path: "guarded/x.txt", content: "x\n" }]]),
        tools: fsboxTools(client),
        stopWhen: stepCountIs(5),
        prompt: "go",
      });
      assert.equal(readFileSync(join(root, "guarded", "x.txt"), "utf8"), "reviewed\n");
      assert.match(String(toolOutputs(result)[0]?.output), /reviewer modified this change/);
    } finally {
      await client.close();
    }
  });

  test('approve: "all" uses the AI SDK\'s own tool approval before execute runs', async () => {
    const root = tempRoot({});
    const client = await start(root);
    try {
      const result = await generateText({
        model: scripted([["write_file", { path: "x.txt", content: "x\n" }]]),
        tools: fsboxTools(client, { approve: "all" }),
        stopWhen: stepCountIs(5),
        prompt: "go",
      });
      const approvals = result.content.filter((p) => p.type === "tool-approval-request");
      assert.equal(approvals.length, 1);
      assert.equal(existsSync(join(root, "x.txt")), false);
    } finally {
      await client.close();
    }
  });

  test('approve: "all" asks before the opt-in change tools too (delete), never before reads', async () => {
    const root = tempRoot({ "keep.txt": "k\n" });
    const client = await start(root, { config: { tools: ["read_file", "delete", "list_directory"] } });
    try {
      const tools = fsboxTools(client, { approve: "all" });
      const result = await generateText({
        model: scripted([["delete", { path: "keep.txt" }]]),
        tools,
        stopWhen: stepCountIs(5),
        prompt: "go",
      });
      assert.equal(result.content.filter((p) => p.type === "tool-approval-request").length, 1);
      assert.equal(existsSync(join(root, "keep.txt")), true);
      assert.equal(tools["read_file"]?.needsApproval, false);
      assert.equal(tools["list_directory"]?.needsApproval, false);
    } finally {
      await client.close();
    }
  });
});

describe("startClient: the tools' client asks for the text shape", () => {
  test("the server answers in the text shape, and the tools work through it", async () => {
    const root = tempRoot({ "notes.txt": "hello\nworld\n" });
    const client = await startClient({ rootDir: root, binary: binary() });
    try {
      assert.equal(client.session.result_shape, "text");
      // The reply as it came off the pipe: the text alone, no typed field encoded or parsed.
      assert.deepEqual(Object.keys((await client.raw("list_directory", { path: "." })) as object), ["text"]);
      const result = await generateText({
        model: scripted([["read_file", { path: "notes.txt" }]]),
        tools: fsboxTools(client),
        stopWhen: stepCountIs(3),
        prompt: "go",
      });
      const outs = toolOutputs(result);
      assert.equal(outs.length, 1);
      assert.match(String(outs[0]?.output), /^\[notes\.txt \| 2 lines/);
    } finally {
      await client.close();
    }
  });

  test("the editor entry point's startClient is the same, and options may still choose a shape", async () => {
    const root = tempRoot();
    const editor = await startEditorClient({ rootDir: root, binary: binary() });
    const both = await startClient({ rootDir: root, binary: binary(), resultShape: "both" });
    try {
      assert.equal(editor.session.result_shape, "text");
      assert.equal(both.session.result_shape, "both");
    } finally {
      await editor.close();
      await both.close();
    }
  });
});

type JsonSchema = { [key: string]: unknown };

/**
 * schemaErrors checks value against a schema of the bundle (type, enum, minimum, properties with
 * no member the schema lacks, required, items, $ref into $defs) and returns what does not fit.
 */
function schemaErrors(value: unknown, schema: JsonSchema, defs: Record<string, JsonSchema>, at = "$"): string[] {
  const ref = schema["$ref"];
  if (typeof ref === "string") {
    const def = defs[ref.replace("#/$defs/", "")];
    return def === undefined ? [`${at}: unknown ${ref}`] : schemaErrors(value, def, defs, at);
  }
  const errors: string[] = [];
  const type = schema["type"];
  const is: Record<string, (v: unknown) => boolean> = {
    integer: Number.isInteger,
    number: (v) => typeof v === "number",
    string: (v) => typeof v === "string",
    boolean: (v) => typeof v === "boolean",
    array: Array.isArray,
    object: (v) => typeof v === "object" && v !== null && !Array.isArray(v),
  };
  if (typeof type === "string" && !(is[type]?.(value) ?? false)) {
    return [`${at}: not ${type}: ${JSON.stringify(value)}`];
  }
  const oneOf = schema["enum"];
  if (Array.isArray(oneOf) && !oneOf.includes(value)) {
    errors.push(`${at}: ${JSON.stringify(value)} not in the enum`);
  }
  const min = schema["minimum"];
  if (typeof min === "number" && typeof value === "number" && value < min) {
    errors.push(`${at}: below ${min}`);
  }
  const props = schema["properties"] as Record<string, JsonSchema> | undefined;
  if (props !== undefined && typeof value === "object" && value !== null) {
    const obj = value as Record<string, unknown>;
    for (const [k, v] of Object.entries(obj)) {
      const sub = props[k];
      errors.push(...(sub === undefined ? [`${at}.${k}: not in the schema`] : schemaErrors(v, sub, defs, `${at}.${k}`)));
    }
    for (const k of (schema["required"] as string[] | undefined) ?? []) {
      if (!(k in obj)) errors.push(`${at}.${k}: missing`);
    }
  }
  const items = schema["items"] as JsonSchema | undefined;
  if (items !== undefined && Array.isArray(value)) {
    value.forEach((v, i) => errors.push(...schemaErrors(v, items, defs, `${at}[${i}]`)));
  }
  return errors;
}

/** auditLines reads the log, checks every line against the bundle's AuditRecord and that none of hidden appears. */
async function auditLines(log: string, client: Awaited<ReturnType<typeof startClient>>, hidden: string[]): Promise<AuditRecord[]> {
  const raw = existsSync(log) ? readFileSync(log, "utf8") : "";
  for (const text of hidden) {
    assert.ok(!raw.includes(text), `${JSON.stringify(text)} is in the audit log`);
  }
  const bundle = (await client.schema()) as { $defs: Record<string, JsonSchema> };
  const record = bundle.$defs["AuditRecord"];
  assert.ok(record !== undefined);
  return raw
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => {
      const obj: unknown = JSON.parse(l);
      assert.deepEqual(schemaErrors(obj, record, bundle.$defs), []);
      return obj as AuditRecord;
    });
}

const SECRET = "SECRET-CONTENT-7f3a";

describe("startClient passes audit through: a line per tool call the model makes", () => {
  test("fsboxTools: each call's line is in the log before the model's next step, without contents or host paths", async () => {
    const root = tempRoot({ "notes.txt": `hello\n${SECRET} world\n` });
    const log = join(mkdtempSync(join(tmpdir(), "fsbox-audit-")), "audit.jsonl");
    const client = await startClient({ rootDir: root, binary: binary(), audit: { path: log, maxBytes: 1 << 20, keep: 2 } });
    try {
      const linesBefore: number[] = [];
      const model = scripted([
        ["read_file", { path: "notes.txt" }],
        ["edit_file", { path: "notes.txt", old_text: "world", new_text: SECRET }],
        ["write_file", { path: "new.txt", content: SECRET }],
        ["read_file", { path: "../../etc/passwd" }],
      ]);
      const result = await generateText({
        model,
        tools: fsboxTools(client),
        stopWhen: stepCountIs(6),
        prompt: "go",
        prepareStep: () => {
          linesBefore.push(existsSync(log) ? readFileSync(log, "utf8").split("\n").filter((l) => l !== "").length : 0);
          return undefined;
        },
      });
      assert.equal(result.text, "done");
      const recs = await auditLines(log, client, [SECRET, root, log]);
      assert.deepEqual(
        recs.map((r) => [r.seq, r.tool, r.paths, r.outcome, r.error_kind]),
        [
          [1, "read_file", ["notes.txt"], "ok", undefined],
          [2, "edit_file", ["notes.txt"], "ok", undefined],
          [3, "write_file", ["new.txt"], "ok", undefined],
          [4, "read_file", undefined, "error", "outside_root"],
        ],
      );
      assert.deepEqual(linesBefore, [0, 1, 2, 3, 4]);
    } finally {
      await client.close();
    }
  });

  test("fsboxEditorTools: startClient from @fsbox/sdk/editor takes audit too", async () => {
    const root = tempRoot({ "app.py": "def f():\n    return 1\n" });
    const log = join(mkdtempSync(join(tmpdir(), "fsbox-audit-")), "audit.jsonl");
    const client = await startEditorClient({ rootDir: root, binary: binary(), audit: log, config: { tools: ["apply_patch"] } });
    try {
      const { apply_patch } = fsboxEditorTools(client);
      assert.ok(apply_patch);
      await generateText({
        model: scripted([
          ["apply_patch", { callId: "p1", operation: { type: "update_file", path: "app.py", diff: `@@ def f():\n-    return 1\n+    return "${SECRET}"\n` } }],
          ["apply_patch", { callId: "p2", operation: { type: "create_file", path: "pkg/new.txt", diff: `+${SECRET}\n` } }],
        ]),
        tools: { apply_patch },
        stopWhen: stepCountIs(4),
        prompt: "go",
      });
      const recs = await auditLines(log, client, [SECRET, root]);
      assert.deepEqual(
        recs.map((r) => [r.seq, r.tool, r.paths, r.outcome]),
        [
          [1, "apply_patch", ["app.py"], "ok"],
          [2, "apply_patch", ["pkg", "pkg/new.txt"], "ok"],
        ],
      );
    } finally {
      await client.close();
    }
  });
});
