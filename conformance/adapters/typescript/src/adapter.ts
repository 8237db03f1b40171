// The conformance adapter of the TypeScript SDK: it speaks the runner's NDJSON protocol on
// stdin/stdout and performs every call through the SDK's typed methods (DISPATCH, generated), so
// the shared vectors exercise the binding, not the wire.
//
//   {"op":"start", binary, root_dir, config, events, change_requests, result_shape} → {"ok":true,"initialize":{...}}
//   {"op":"call", tool, arguments}                                    → {"ok":true,"result",...} or {"ok":false,"error",...}
//   {"op":"tools"} / {"op":"schema"}                                  → {"ok":true,"result":{"tools":[...]}} / the schema bundle
//   {"op":"stop"}                                                     → {"ok":true}, then exit 0
//
// While a call runs, each change request onChangeRequest receives is written out as
// {"change_request": {...}} and decided by the runner's next line, {"op":"answer", approve, reason,
// error, decision, content, arguments}: an error makes the callback throw, decision "edit" calls
// request.edit. Anything else is answered {"ok":false,"skipped":"<reason>"}.
//
// With result_shape "text" every call goes through client.text (the typed methods refuse that
// shape) and the answer is {text}; with "typed" the typed methods run and the text, which the SDK
// fills with "" in that shape, is left out, as the server left it out.

import { createInterface } from "node:readline";

import { Client, ConnectionLostError, RpcError, ToolCallError } from "../../../../sdks/typescript/dist/index.js";
import type { Config, Event, ResultShape } from "../../../../sdks/typescript/dist/index.js";
import { DISPATCH } from "./dispatch.gen.js";

interface StartOp {
  op: "start";
  binary?: string;
  root_dir: string;
  config?: Config;
  events?: boolean;
  change_requests?: boolean;
  result_shape?: ResultShape;
}

interface CallOp {
  op: "call";
  tool: string;
  arguments?: Record<string, unknown>;
}

/** The runner's decision on one change request. */
interface AnswerOp {
  op?: unknown;
  approve?: boolean;
  reason?: string;
  error?: string;
  decision?: string;
  content?: string;
  arguments?: Record<string, unknown>;
}

let client: Client | undefined;
/** The events of the call in progress. */
let current: Event[] | undefined;

function reply(message: object): void {
  process.stdout.write(JSON.stringify(message, wireBytes) + "\n");
}

/** wireBytes writes the SDK's Uint8Array fields back as the base64 the server sent. */
function wireBytes(_key: string, value: unknown): unknown {
  return value instanceof Uint8Array ? Buffer.from(value).toString("base64") : value;
}

// The runner's lines, taken one at a time by the main loop and, while a call waits on its change
// request, by the callback.
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
const queued: string[] = [];
const waiting: ((line: string | undefined) => void)[] = [];
let ended = false;
lines.on("line", (line) => {
  if (line.trim() === "") {
    return;
  }
  const waiter = waiting.shift();
  if (waiter !== undefined) {
    waiter(line);
  } else {
    queued.push(line);
  }
});
lines.on("close", () => {
  ended = true;
  for (const waiter of waiting.splice(0)) {
    waiter(undefined);
  }
});

/** nextLine resolves to the runner's next non-blank line, or undefined at EOF. */
function nextLine(): Promise<string | undefined> {
  const line = queued.shift();
  if (line !== undefined || ended) {
    return Promise.resolve(line);
  }
  return new Promise((resolve) => waiting.push(resolve));
}

/** askRunner writes the change request out and returns the runner's answer. */
async function askRunner(request: object): Promise<AnswerOp> {
  reply({ change_request: request });
  const line = await nextLine();
  let answer: AnswerOp | undefined;
  try {
    answer = line === undefined ? undefined : (JSON.parse(line) as AnswerOp);
  } catch {
    answer = undefined;
  }
  if (answer?.op !== "answer") {
    throw new Error("the runner did not answer the change request");
  }
  if (typeof answer.error === "string" && answer.error !== "") {
    throw new Error(answer.error);
  }
  return answer;
}

function errorJSON(err: unknown): object {
  if (err instanceof ToolCallError) {
    const out: Record<string, unknown> = { code: err.code, kind: err.kind, retry: err.retry, message: err.message };
    if (typeof err.data.counts_as_retry === "boolean") {
      out["counts_as_retry"] = err.data.counts_as_retry;
    }
    if (err.path !== undefined) {
      out["path"] = err.path;
    }
    return out;
  }
  if (err instanceof RpcError) {
    return { code: err.code, message: err.message, data: err.data };
  }
  if (err instanceof ConnectionLostError) {
    return { code: null, kind: "connection_lost", message: err.message };
  }
  return { code: null, message: err instanceof Error ? err.message : String(err) };
}

async function start(op: StartOp): Promise<object> {
  await client?.close();
  client = await Client.start({
    rootDir: op.root_dir,
    ...(op.binary !== undefined && { binary: op.binary }),
    ...(op.config !== undefined && { config: op.config }),
    ...(op.result_shape !== undefined && { resultShape: op.result_shape }),
    ...(op.events === true && {
      onEvent: (event: Event) => {
        current?.push(event);
      },
    }),
    ...(op.change_requests === true && {
      onChangeRequest: async (request) => {
        // The request serialises as its wire form: cancel is not enumerable.
        const answer = await askRunner(request);
        const content = typeof answer.content === "string" ? answer.content : undefined;
        const args = typeof answer.arguments === "object" && answer.arguments !== null ? answer.arguments : undefined;
        const replaces = answer.content !== undefined || answer.arguments !== undefined;
        if (answer.decision === "edit" || (answer.decision === undefined && answer.approve === true && replaces)) {
          if ((content === undefined) === (args === undefined)) {
            throw new Error("the SDK sends an edit with content or with arguments, not both or neither");
          }
          if (content !== undefined) {
            request.approveWith(content);
          } else {
            request.edit({ arguments: args as object });
          }
        } else if (answer.decision === "reject" || (answer.decision !== "approve" && answer.approve !== true)) {
          request.cancel(answer.reason);
        }
      },
    }),
  });
  return { ok: true, initialize: client.session };
}

/** method answers the tools op with listTools and the schema op with schema. */
async function method(name: "tools" | "schema"): Promise<object> {
  if (client === undefined) {
    return { ok: false, skipped: `${name} before start` };
  }
  try {
    const result = name === "tools" ? { tools: await client.listTools() } : await client.schema();
    return { ok: true, result };
  } catch (err) {
    return { ok: false, error: errorJSON(err) };
  }
}

async function call(op: CallOp): Promise<object> {
  if (client === undefined) {
    return { ok: false, error: { code: null, message: "call before start" } };
  }
  const events: Event[] = [];
  current = events;
  const args = op.arguments ?? {};
  try {
    if (client.session.result_shape === "text" || client.session.result_shape === "typed") {
      // The typed methods decode the "both" shape only: the other shapes are checked as sent.
      return { ok: true, result: await client.raw(op.tool, args), events };
    }
    const dispatch = DISPATCH[op.tool];
    const result: unknown = dispatch !== undefined ? await dispatch(client, args) : await client.call(op.tool, args);
    return { ok: true, result, events };
  } catch (err) {
    return { ok: false, error: errorJSON(err), events };
  } finally {
    current = undefined;
  }
}

async function main(): Promise<void> {
  for (let line = await nextLine(); line !== undefined; line = await nextLine()) {
    let op: { op?: unknown };
    try {
      op = JSON.parse(line) as { op?: unknown };
    } catch {
      reply({ ok: false, skipped: "the line is not JSON" });
      continue;
    }
    switch (op.op) {
      case "start":
        reply(await start(op as StartOp).catch((err: unknown) => ({ ok: false, error: errorJSON(err) })));
        break;
      case "call":
        reply(await call(op as CallOp));
        break;
      case "tools":
      case "schema":
        reply(await method(op.op));
        break;
      case "stop":
        await client?.close();
        process.stdout.write(JSON.stringify({ ok: true }) + "\n", () => process.exit(0));
        return;
      default:
        reply({ ok: false, skipped: `the TypeScript adapter does not know op ${JSON.stringify(op.op)}` });
    }
  }
  await client?.close();
}

await main();
