// The AI SDK's provider tools for OpenAI's apply_patch and Anthropic's text editor, executed by
// fsbox: `node examples/ai_sdk_editor_tools.mjs [DIR]`.
//
// Needs `npm install @fsbox/sdk ai @ai-sdk/openai @ai-sdk/anthropic`. The model is the AI SDK's
// MockLanguageModelV3 issuing the provider tool calls, so the example runs offline; pass
// openai("gpt-5.1") or anthropic("claude-sonnet-4-5") to generateText instead.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";

import { fsboxEditorTools, startClient } from "@fsbox/sdk/editor";

const root = process.argv[2] ?? mkdtempSync(join(tmpdir(), "fsbox-editor-"));
writeFileSync(join(root, "app.js"), "export const port = 80;\n");

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const step = (toolName, input, i) => ({
  content: [{ type: "tool-call", toolCallId: `c${i}`, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: "tool-calls", raw: "tool_calls" },
  usage,
  warnings: [],
});
const model = new MockLanguageModelV3({
  doGenerate: [
    step("apply_patch", { callId: "p1", operation: { type: "update_file", path: "app.js", diff: "@@\n-export const port = 80;\n+export const port = 8080;\n" } }, 0),
    step("str_replace_based_edit_tool", { command: "insert", path: "app.js", insert_line: 0, insert_text: "// served by fsbox" }, 1),
    step("str_replace_based_edit_tool", { command: "view", path: "app.js" }, 2),
    { content: [{ type: "text", text: "Done." }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] },
  ],
});

const client = await startClient({ rootDir: root, config: { tools: ["apply_patch", "str_replace_based_edit_tool"] } });
try {
  const result = await generateText({ model, tools: fsboxEditorTools(client), stopWhen: stepCountIs(6), prompt: "Serve on port 8080" });
  for (const s of result.steps) {
    for (const part of s.content) {
      if (part.type === "tool-result") console.log(`[${part.toolName}]\n${typeof part.output === "string" ? part.output : JSON.stringify(part.output)}`);
    }
  }
  console.log(result.text);
} finally {
  await client.close();
}
console.log(readFileSync(join(root, "app.js"), "utf8").trimEnd());
