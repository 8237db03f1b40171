/**
 * The provider-shaped edit tools for the Vercel AI SDK (`import { fsboxEditorTools } from
 * "@fsbox/sdk/editor"`; needs `ai` ≥ 6 and `@ai-sdk/openai` and/or `@ai-sdk/anthropic`): the
 * providers' own tool definitions, executed by fsbox instead of on the host filesystem.
 *
 * ```ts
 * import { generateText, stepCountIs } from "ai";
 * import { openai } from "@ai-sdk/openai";
 * import { fsboxEditorTools, startClient } from "@fsbox/sdk/editor";
 *
 * const client = await startClient({ rootDir: "workspace", config: { tools: ["apply_patch", "str_replace_based_edit_tool"] } });
 * const { apply_patch } = fsboxEditorTools(client);
 * await generateText({ model: openai("gpt-5.1"), tools: { apply_patch }, stopWhen: stepCountIs(10), prompt });
 * ```
 *
 * - `apply_patch` is `openai.tools.applyPatch({ execute })`: the Responses API's `apply_patch_call`
 *   operation (`create_file`, `update_file`, `delete_file` with a V4A diff) goes to fsbox's
 *   `apply_patch` as `{operation}`; the output is `{status: "completed", output: <fsbox's text>}`,
 *   or `{status: "failed", output: <the message>}` for a failure the model can fix.
 * - `str_replace_based_edit_tool` is `anthropic.tools.textEditor_20250728({ execute })`: the
 *   command and its arguments go to fsbox's `str_replace_based_edit_tool` unchanged, and its text
 *   is the output; a failure the model can fix rejects with fsbox's message, which the AI SDK hands
 *   to the model as the tool's error.
 *
 * A fatal failure (the server gone, a change request that failed) rejects in both, with the SDK's
 * ToolFatalError. Each tool is present only when the client's server enabled it (they are opt-in:
 * list them in `config.tools`).
 */
import { anthropic } from "@ai-sdk/anthropic";
import { openai } from "@ai-sdk/openai";
import type { Tool } from "ai";

import type { Client } from "./client.js";

// The tools return only the text: start their client in the text shape (see ai.ts).
export { startClient } from "./ai.js";
import { ToolCallError } from "./errors.js";

/** The tools fsboxEditorTools returns, keyed by the names the providers give them. */
export interface FsboxEditorTools {
  apply_patch?: Tool;
  str_replace_based_edit_tool?: Tool;
}

/** The Responses API's apply_patch operation, as the AI SDK passes it to execute. */
type ApplyPatchInput = {
  callId: string;
  operation: { type: "create_file" | "update_file" | "delete_file"; path: string; diff?: string };
};

/** The text editor's input, as the AI SDK passes it to execute. */
type TextEditorInput = {
  command: "view" | "create" | "str_replace" | "insert";
  path: string;
  file_text?: string;
  insert_line?: number;
  new_str?: string;
  insert_text?: string;
  old_str?: string;
  view_range?: number[];
};

/** fsboxEditorTools returns the provider tools wired to the client (see the module doc). */
export function fsboxEditorTools(client: Client): FsboxEditorTools {
  const enabled = new Set(client.tools().map((d) => d.name));
  const out: FsboxEditorTools = {};
  if (enabled.has("apply_patch")) {
    out.apply_patch = openai.tools.applyPatch({
      execute: async ({ operation }: ApplyPatchInput, { abortSignal }: { abortSignal?: AbortSignal }) => {
        const op: Record<string, unknown> = { type: operation.type, path: operation.path };
        if (operation.type !== "delete_file" && operation.diff !== undefined) {
          op["diff"] = operation.diff;
        }
        try {
          const text = await client.text("apply_patch", { operation: op }, abortSignal === undefined ? undefined : { signal: abortSignal });
          return { status: "completed" as const, output: text };
        } catch (err) {
          if (err instanceof ToolCallError && err.retry) {
            return { status: "failed" as const, output: err.message };
          }
          throw err;
        }
      },
    }) as Tool;
  }
  if (enabled.has("str_replace_based_edit_tool")) {
    out.str_replace_based_edit_tool = anthropic.tools.textEditor_20250728({
      execute: async (input: TextEditorInput, { abortSignal }: { abortSignal?: AbortSignal }) => {
        const args: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(input)) {
          if (v !== undefined && v !== null) {
            args[k] = v;
          }
        }
        return client.text("str_replace_based_edit_tool", args, abortSignal === undefined ? undefined : { signal: abortSignal });
      },
    }) as Tool;
  }
  return out;
}
