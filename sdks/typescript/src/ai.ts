/**
 * fsbox tools for the Vercel AI SDK (`import { fsboxTools } from "@fsbox/sdk/ai"`; needs `ai` ≥ 6).
 *
 * ```ts
 * import { generateText, stepCountIs } from "ai";
 * import { fsboxTools, reviewChanges, startClient } from "@fsbox/sdk/ai";
 *
 * const client = await startClient({ rootDir: "workspace", onChangeRequest: reviewChanges(askUser) });
 * try {
 *   const { text } = await generateText({ model, tools: fsboxTools(client), stopWhen: stepCountIs(10), prompt });
 * } finally {
 *   await client.close();
 * }
 * ```
 *
 * What it maps:
 *
 * 1. **Tools**: one AI SDK `tool({ description, inputSchema, execute })` per tool the server
 *    enabled; the input schema is the server's own JSON Schema (the schema bundle's), so the model
 *    sees exactly what fsbox validates.
 * 2. **Text**: `execute` resolves to fsbox's `text`, unchanged. `startClient` starts the client
 *    with `resultShape: "text"`, so the server sends only the text and nothing else is parsed
 *    (bench/README.md, "Adapters: result shapes"); `fsboxTools` works with a client of any shape
 *    that carries text ("both", "text").
 * 3. **Errors**: a failure the model can fix rejects with fsbox's message, which the SDK hands back
 *    to the model as the tool's error output; one whose data says `counts_as_retry: false` resolves
 *    to the message as ordinary output; a fatal failure rejects with the SDK's ToolFatalError (the
 *    AI SDK reports it as a tool error too: check `steps` for it if the run must stop).
 * 4. **Approvals**: `approve: "all"` marks every change-making tool `needsApproval`, so the AI SDK's
 *    own tool-approval flow asks before `execute` runs; `"rules"` (default) leaves that to the
 *    server, whose change requests for `interrupt`-flagged writes go to the `onChangeRequest` the
 *    client was started with (`reviewChanges(review)` builds one that shows the reviewer only those,
 *    with the diff, and approves the rest).
 * 5. **Events** arrive through the client's `onEvent`.
 * 6. **Checkpoints**: start the client with `config: { journal: {} }` and call
 *    `const run = await checkpointRun(client)` before `generateText`; `await run.restore()` after it
 *    puts back everything the model changed (`run.diff()` shows it first).
 */
import { jsonSchema, tool } from "ai";
import type { Tool } from "ai";

import { Client } from "./client.js";
import type { ChangeRequest, ChangeRequestEdit, ClientOptions } from "./client.js";
import type { CheckpointDiffResult, CheckpointRestoreResult } from "./types.gen.js";
import { ToolCallError } from "./errors.js";
import { TOOLS } from "./types.gen.js";

/**
 * The tools that never change anything, as the schema marks them (read_only). Every other tool
 * counts as a change (write_file, edit_file, create_directory, the opt-in delete, move_file,
 * remove_directory and edit formats, or any tool a newer server adds), so `approve: "all"` asks before it: a tool wrongly asked about costs a
 * click; a change not asked about is a change nobody approved.
 */
const READ_TOOLS: ReadonlySet<string> = new Set(TOOLS.filter((t) => t.read_only).map((t) => t.name));

/**
 * startClient starts a Client for the AI SDK tools: `Client.start` with `resultShape: "text"`
 * unless the options say otherwise. The tools hand the model only the text, so the typed fields
 * would be encoded by the server and parsed here for nobody (a list_directory of 300 entries
 * sends a third of the bytes in the text shape). Every other option passes through as it is:
 * `audit: { path, maxBytes, keep, sync }` (or a path) has the server append a line per tool call
 * the model makes to that log (docs/protocol.md §9).
 */
export function startClient(options: ClientOptions): Promise<Client> {
  return Client.start({ resultShape: "text", ...options });
}

/** Options of fsboxTools. */
export interface FsboxToolsOptions {
  /**
   * Which changes wait for the AI SDK's tool approval: "all" (every call of a change-making tool),
   * or "rules" / "never" (none; rule-flagged changes are decided by the client's onChangeRequest).
   */
  approve?: "rules" | "all" | "never";
}

/** fsboxTools returns the client's enabled tools as an AI SDK tool set (see the module doc). */
export function fsboxTools(client: Client, options: FsboxToolsOptions = {}): Record<string, Tool> {
  const tools: Record<string, Tool> = {};
  for (const descriptor of client.tools()) {
    const name = descriptor.name;
    tools[name] = tool({
      description: descriptor.description,
      inputSchema: jsonSchema<Record<string, unknown>>(descriptor.input_schema as Parameters<typeof jsonSchema>[0]),
      needsApproval: options.approve === "all" && !READ_TOOLS.has(name),
      execute: async (input: Record<string, unknown>, { abortSignal }) => callTool(client, name, input, abortSignal),
    }) as Tool;
  }
  return tools;
}

async function callTool(
  client: Client,
  name: string,
  input: Record<string, unknown>,
  signal: AbortSignal | undefined,
): Promise<string> {
  try {
    // The text is all the model gets: client.text reads it in the "both" and "text" result shapes
    // alike, where client.call would refuse "text" for a typed tool.
    return await client.text(name, input, signal === undefined ? undefined : { signal });
  } catch (err) {
    if (err instanceof ToolCallError && err.retry) {
      if (!err.countsAsRetry) {
        return err.message;
      }
      throw new Error(err.message);
    }
    throw err;
  }
}

/**
 * A reviewer's answer: true approves; false or { approve: false, reason } refuses; { edit: { content } }
 * (ChangeRequest.approveWith) or { edit: { arguments } } (ChangeRequest.edit) approves the
 * reviewer's replacement instead.
 */
export type ReviewAnswer = boolean | { approve: boolean; reason?: string } | { edit: { content: string } | ChangeRequestEdit };

/**
 * reviewChanges builds a ClientOptions.onChangeRequest that asks review only about changes a
 * permission rule marked `interrupt` (or every change, with `all`), showing it the path, operation
 * and diff, and approves the rest without asking.
 */
export function reviewChanges(
  review: (change: ChangeRequest) => ReviewAnswer | Promise<ReviewAnswer>,
  options: { all?: boolean } = {},
): (request: ChangeRequest) => Promise<void> {
  return async (request) => {
    if (!options.all && request.reason !== "permission_rule") {
      return;
    }
    const answer = await review(request);
    if (typeof answer === "object" && "edit" in answer) {
      if ("content" in answer.edit) {
        request.approveWith(answer.edit.content);
      } else {
        request.edit(answer.edit);
      }
      return;
    }
    if (answer === true || (typeof answer === "object" && answer.approve)) {
      return;
    }
    request.cancel(typeof answer === "object" ? (answer.reason ?? "refused by the reviewer") : "refused by the reviewer");
  };
}

/** A checkpoint made at the start of a run (checkpointRun). */
export interface RunCheckpoint {
  /** The checkpoint's id. */
  id: string;
  /** diff is the unified diff of everything the run changed so far. */
  diff(): Promise<CheckpointDiffResult>;
  /**
   * restore puts back everything the run changed; a file someone else changed since fsbox wrote it
   * is left alone and listed in not_restored, unless force.
   */
  restore(options?: { force?: boolean }): Promise<CheckpointRestoreResult>;
}

/**
 * checkpointRun marks the start of a run on a client started with `config: { journal: {} }`, so the
 * host can look at and undo what the model changed (see the module doc, item 6).
 */
export async function checkpointRun(client: Client, label = "run start"): Promise<RunCheckpoint> {
  const cp = await client.createCheckpoint(label);
  return {
    id: cp.id,
    diff: () => client.diffCheckpoint(cp.id),
    restore: (options) => client.restoreCheckpoint(cp.id, options),
  };
}
