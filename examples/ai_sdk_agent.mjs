// The Vercel AI SDK with fsbox tools: `node examples/ai_sdk_agent.mjs [DIR]`.
//
// Needs `npm install @fsbox/sdk ai`. The model is the AI SDK's MockLanguageModelV3 playing a fixed
// script, so the example runs offline; pass a real provider model to generateText instead.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";

import { fsboxTools, startClient } from "@fsbox/sdk/ai";

const root = process.argv[2] ?? mkdtempSync(join(tmpdir(), "fsbox-ai-"));
writeFileSync(join(root, "greeting.txt"), "hello wrld\n");

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const step = (toolName, input, i) => ({
  content: [{ type: "tool-call", toolCallId: `c${i}`, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: "tool-calls", raw: "tool_calls" },
  usage,
  warnings: [],
});
const model = new MockLanguageModelV3({
  doGenerate: [
    step("read_file", { path: "greeting.txt" }, 0),
    step("edit_file", { path: "greeting.txt", old_text: "wrld", new_text: "world" }, 1),
    { content: [{ type: "text", text: "Fixed." }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] },
  ],
});

// startClient: Client.start in the "text" result shape, all the tools need.
const client = await startClient({ rootDir: root });
try {
  const result = await generateText({ model, tools: fsboxTools(client), stopWhen: stepCountIs(5), prompt: "Fix the typo" });
  for (const s of result.steps) {
    for (const part of s.content) {
      if (part.type === "tool-result") console.log(`[${part.toolName}]\n${part.output}`);
    }
  }
  console.log(result.text);
} finally {
  await client.close();
}
process.stdout.write(readFileSync(join(root, "greeting.txt"), "utf8"));
