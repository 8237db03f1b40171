// A scripted AI SDK mock model for the tests that drive fsbox's AI SDK entry points through
// generateText (ai.test.ts, editor.test.ts). MockLanguageModelV3 is the mock both ai majors the
// peer range admits export.
import { MockLanguageModelV3 } from "ai/test";

type GenerateResult = Awaited<ReturnType<MockLanguageModelV3["doGenerate"]>>;

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A model that makes one tool call per step, then answers "done". */
export function scripted(calls: Array<[string, Record<string, unknown>]>): MockLanguageModelV3 {
  const steps: GenerateResult[] = calls.map(([toolName, input], i) => ({
    content: [{ type: "tool-call", toolCallId: `c${i}`, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: "tool-calls", raw: "tool_calls" },
    usage,
    warnings: [],
  }));
  steps.push({ content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] });
  return new MockLanguageModelV3({ doGenerate: steps });
}
