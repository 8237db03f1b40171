// The conformance adapter speaks the runner's NDJSON protocol through the SDK's typed methods.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { SCHEMA_HASH } from "../dist/index.js";
import { binary, tempRoot } from "./helpers.js";

const adapter = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "conformance", "adapters", "typescript", "dist", "adapter.js");

/** runAdapter starts the adapter and returns a function sending one op (or answer) and reading its next line. */
function runAdapter(): { send: (op: object) => Promise<Record<string, unknown>>; exited: Promise<number | null> } {
  const child = spawn("node", [adapter], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    send: async (op) => {
      child.stdin.write(JSON.stringify(op) + "\n");
      const next = await lines.next();
      assert.ok(next.done !== true, "the adapter closed its stdout");
      return JSON.parse(next.value as string) as Record<string, unknown>;
    },
    exited,
  };
}

test("the adapter runs start, calls with events and change requests answered by the runner, errors, and stop", async () => {
  const root = tempRoot({ "a.txt": "alpha\n" });
  const { send, exited } = runAdapter();

  const started = await send({ op: "start", binary: binary(), root_dir: root, config: {}, events: true, change_requests: true });
  assert.equal(started["ok"], true, JSON.stringify(started));
  const init = started["initialize"] as Record<string, unknown>;
  assert.equal(init["schema_hash"], SCHEMA_HASH);
  const descriptors = init["tools"] as { name: string; input_schema: { type: string } }[];
  assert.equal(descriptors[0]?.name, "read_file");
  assert.equal(descriptors[0]?.input_schema.type, "object");
  assert.equal(init["cwd"], ".");
  assert.equal(init["protocol_version"], "1");

  assert.deepEqual(await send({ op: "tools" }), { ok: true, result: { tools: descriptors } });
  const schema = await send({ op: "schema" });
  assert.equal(schema["ok"], true, JSON.stringify(schema));
  assert.ok((schema["result"] as { $defs?: object }).$defs !== undefined);

  const read = await send({ op: "call", tool: "read_file", arguments: { path: "a.txt" } });
  assert.equal(read["ok"], true, JSON.stringify(read));
  assert.equal((read["result"] as { total_lines: number }).total_lines, 1);
  assert.deepEqual((read["events"] as { kind: string }[]).map((e) => e.kind), ["file_system.file_read"]);

  // A change request comes out as its own line and waits for the runner's answer.
  const write = { op: "call", tool: "write_file", arguments: { path: "b.txt", content: "beta\n" } };
  const asked = (await send(write))["change_request"] as Record<string, unknown>;
  assert.equal(asked["kind"], "file_system.file_change_request");
  assert.equal(asked["path"], "b.txt");
  const refused = await send({ op: "answer", approve: false, reason: "not today" });
  assert.equal(refused["ok"], true, JSON.stringify(refused));
  assert.equal((refused["result"] as { cancelled: boolean }).cancelled, true);
  assert.equal(existsSync(join(root, "b.txt")), false);

  assert.ok("change_request" in (await send(write)));
  const approved = await send({ op: "answer", approve: true });
  assert.equal(approved["ok"], true, JSON.stringify(approved));
  assert.equal(readFileSync(join(root, "b.txt"), "utf8"), "beta\n");

  // An error answer makes the callback throw: the server fails the call and writes nothing.
  assert.ok("change_request" in (await send({ ...write, arguments: { path: "b.txt", content: "gamma\n" } })));
  const crashed = await send({ op: "answer", approve: true, error: "listener crashed" });
  assert.equal(crashed["ok"], false, JSON.stringify(crashed));
  assert.equal((crashed["error"] as { kind: string }).kind, "change_request_failed");
  assert.deepEqual(crashed["events"], []);
  assert.equal(readFileSync(join(root, "b.txt"), "utf8"), "beta\n");

  const failed = await send({ op: "call", tool: "read_file", arguments: { path: "../x" } });
  assert.equal(failed["ok"], false);
  assert.deepEqual(
    { ...(failed["error"] as Record<string, unknown>), message: undefined },
    { code: -32001, kind: "outside_root", retry: true, counts_as_retry: true, message: undefined },
  );

  const unknown = await send({ op: "call", tool: "no_such_tool", arguments: {} });
  assert.equal((unknown["error"] as { kind: string }).kind, "unknown_tool");

  const skipped = await send({ op: "teleport" });
  assert.equal(skipped["ok"], false);
  assert.equal(typeof skipped["skipped"], "string");

  assert.deepEqual(await send({ op: "stop" }), { ok: true });
  assert.equal(await exited, 0);
});
