// The provider-shaped edit tools (openai.tools.applyPatch, anthropic.tools.textEditor_20250728)
// driven by the AI SDK's own mock language model through generateText, against a real fsbox
// process: the provider tool calls go straight to fsbox.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";

import { generateText, stepCountIs } from "ai";

import { fsboxEditorTools } from "../dist/editor.js";
import { start, tempRoot } from "./helpers.js";
import { scripted } from "./scripted.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function outputs(result: { steps: ReadonlyArray<{ content: ReadonlyArray<any> }> }): Array<{ output: unknown; error: boolean }> {
  const out: Array<{ output: unknown; error: boolean }> = [];
  for (const step of result.steps) {
    for (const part of step.content) {
      if (part.type === "tool-result") {
        out.push({ output: part.output, error: false });
      } else if (part.type === "tool-error") {
        out.push({ output: String(part.error), error: true });
      }
    }
  }
  return out;
}

const editorConfig = { tools: ["read_file", "apply_patch", "str_replace_based_edit_tool"] };

describe("fsboxEditorTools with generateText", () => {
  test("openai.tools.applyPatch: create, update, delete, and a traversal fails without touching the host", async () => {
    const root = tempRoot({ "app.py": "def f():\n    return 1\n", "old.txt": "bye\n" });
    const client = await start(root, { config: editorConfig });
    try {
      const { apply_patch } = fsboxEditorTools(client);
      assert.ok(apply_patch);
      const result = await generateText({
        model: scripted([
          ["apply_patch", { callId: "p1", operation: { type: "update_file", path: "app.py", diff: "@@ def f():\n-    return 1\n+    return 2\n" } }],
          ["apply_patch", { callId: "p2", operation: { type: "create_file", path: "new.txt", diff: "+hello\n" } }],
          ["apply_patch", { callId: "p3", operation: { type: "delete_file", path: "old.txt" } }],
          ["apply_patch", { callId: "p4", operation: { type: "create_file", path: "../escape.txt", diff: "+x\n" } }],
        ]),
        tools: { apply_patch },
        stopWhen: stepCountIs(6),
        prompt: "go",
      });
      assert.equal(result.text, "done");
      const outs = outputs(result);
      assert.deepEqual(outs.slice(0, 3).map((o) => (o.output as { status: string }).status), ["completed", "completed", "completed"]);
      assert.match((outs[0]?.output as { output: string }).output, /^Success\. Updated the following files:\nM app\.py/);
      const failed = outs[3]?.output as { status: string; output: string };
      assert.equal(failed.status, "failed");
      assert.match(failed.output, /outside the root/);
      assert.equal(readFileSync(join(root, "app.py"), "utf8"), "def f():\n    return 2\n");
      assert.equal(readFileSync(join(root, "new.txt"), "utf8"), "hello\n");
      assert.equal(existsSync(join(root, "old.txt")), false);
      assert.equal(existsSync(join(root, "..", "escape.txt")), false);
    } finally {
      await client.close();
    }
  });

  test("anthropic.tools.textEditor_20250728: view, str_replace, insert, create; an ambiguous old_str is a tool error", async () => {
    const root = tempRoot({ "a.txt": "x = 1\ny = 1\n" });
    const client = await start(root, { config: editorConfig });
    try {
      const { str_replace_based_edit_tool } = fsboxEditorTools(client);
      assert.ok(str_replace_based_edit_tool);
      const result = await generateText({
        model: scripted([
          ["str_replace_based_edit_tool", { command: "view", path: "a.txt", view_range: [2, -1] }],
          ["str_replace_based_edit_tool", { command: "str_replace", path: "a.txt", old_str: "= 1", new_str: "= 2" }],
          ["str_replace_based_edit_tool", { command: "str_replace", path: "a.txt", old_str: "y = 1", new_str: "y = 2" }],
          ["str_replace_based_edit_tool", { command: "insert", path: "a.txt", insert_line: 0, insert_text: "# top" }],
          ["str_replace_based_edit_tool", { command: "create", path: "b.txt", file_text: "new\n" }],
        ]),
        tools: { str_replace_based_edit_tool },
        stopWhen: stepCountIs(7),
        prompt: "go",
      });
      const outs = outputs(result);
      assert.equal(outs[0]?.output, "Here's the result of running `cat -n` on a.txt:\n     2\ty = 1\n");
      assert.equal(outs[1]?.error, true);
      assert.match(String(outs[1]?.output), /Multiple occurrences \(2\).*lines 1, 2/);
      assert.match(String(outs[2]?.output), /^The file a\.txt has been edited\./);
      assert.match(String(outs[4]?.output), /^File created successfully at: b\.txt/);
      assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "# top\nx = 1\ny = 2\n");
      assert.equal(readFileSync(join(root, "b.txt"), "utf8"), "new\n");
    } finally {
      await client.close();
    }
  });

  test("tools the server did not enable are left out", async () => {
    const client = await start(tempRoot({}));
    try {
      assert.deepEqual(Object.keys(fsboxEditorTools(client)), []);
    } finally {
      await client.close();
    }
  });
});
