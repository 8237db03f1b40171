// The AI SDK entry point driven by the AI SDK's own mock language model through generateText,
// against a real fsbox process.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";

import { generateText, stepCountIs } from "ai";

import { fsboxTools, reviewChanges, startClient } from "../dist/ai.js";
import { startClient as startEditorClient } from "../dist/editor.js";
import type { ChangeRequest } from "../dist/index.js";
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
