// The conformance adapter of the TypeScript SDK: it speaks the runner's NDJSON protocol on
// stdin/stdout and performs every call through the SDK's typed methods (DISPATCH, generated), so
// the shared vectors exercise the binding, not the wire.
//
//   {"op":"start", binary, root_dir, config, events, change_requests} → {"ok":true,"initialize":{...}}
//   {"op":"call", tool, arguments, change_answers}                    → {"ok":true,"result",...} or {"ok":false,"error",...}
//   {"op":"stop"}                                                     → {"ok":true}, then exit 0
//
// Anything else is answered {"ok":false,"skipped":"<reason>"}.

import { createInterface } from "node:readline";

import { Client, ConnectionError, RpcError, ToolCallError } from "../../../../sdks/typescript/dist/index.js";
import type { ChangeRequestResult, Config, Event } from "../../../../sdks/typescript/dist/index.js";
import { DISPATCH } from "./dispatch.gen.js";

interface StartOp {
  op: "start";
  binary?: string;
  root_dir: string;
  config?: Config;
  events?: boolean;
  change_requests?: boolean;
}

interface CallOp {
  op: "call";
  tool: string;
  arguments?: Record<string, unknown>;
  change_answers?: ChangeRequestResult[];
}

/** What the server sent on its own during one call. */
interface CallLog {
  events: Event[];
  change_requests: object[];
  answers: ChangeRequestResult[];
}

let client: Client | undefined;
let current: CallLog | undefined;

function reply(message: object): void {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function errorJSON(err: unknown): object {
  if (err instanceof ToolCallError) {
    const out: Record<string, unknown> = { code: err.code, kind: err.kind, retry: err.retry, message: err.message };
    if (err.path !== undefined) {
      out["path"] = err.path;
    }
    return out;
  }
  if (err instanceof RpcError) {
    return { code: err.code, message: err.message, data: err.data };
  }
  if (err instanceof ConnectionError) {
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
    ...(op.events === true && {
      onEvent: (event: Event) => {
        current?.events.push(event);
      },
    }),
    ...(op.change_requests === true && {
      onChangeRequest: (request) => {
        // The request serialises as its wire form: cancel is not enumerable.
        current?.change_requests.push(JSON.parse(JSON.stringify(request)) as object);
        const answer = current?.answers.shift() ?? { approve: true };
        if (!answer.approve) {
          request.cancel(answer.reason);
        }
      },
    }),
  });
  const s = client.session;
  return {
    ok: true,
    initialize: {
      root_dir: s.root_dir,
      cwd: s.cwd,
      tools: s.tools.map((t) => t.name),
      schema_hash: s.schema_hash,
    },
  };
}

async function call(op: CallOp): Promise<object> {
  if (client === undefined) {
    return { ok: false, error: { code: null, message: "call before start" } };
  }
  const log: CallLog = { events: [], change_requests: [], answers: [...(op.change_answers ?? [])] };
  current = log;
  const args = op.arguments ?? {};
  try {
    const dispatch = DISPATCH[op.tool];
    const result = dispatch !== undefined ? await dispatch(client, args) : await client.call(op.tool, args);
    return { ok: true, result, events: log.events, change_requests: log.change_requests };
  } catch (err) {
    return { ok: false, error: errorJSON(err), events: log.events, change_requests: log.change_requests };
  } finally {
    current = undefined;
  }
}

async function main(): Promise<void> {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === "") {
      continue;
    }
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
