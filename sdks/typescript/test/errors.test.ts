// Tool failures become ToolRetryError / ToolFatalError with the server's kind, path and code.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import {
  ConnectionError,
  ConnectionLostError,
  ERROR_CODES,
  ERROR_KIND_RETRY,
  FsboxError,
  RpcError,
  ToolCallError,
  ToolFatalError,
  ToolRetryError,
} from "../dist/index.js";
import type { Client, ErrorKind } from "../dist/index.js";
import { errorFromWire } from "../dist/errors.js";
import { start, tempRoot } from "./helpers.js";

/** rejectsWith awaits p and checks it failed with a retry error of kind. */
async function rejectsWith(p: Promise<unknown>, kind: ErrorKind, path?: string): Promise<ToolRetryError> {
  const err = await p.then(
    () => assert.fail(`the call succeeded; want a ${kind} error`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ToolRetryError, `want a ToolRetryError, have ${String(err)}`);
  assert.ok(err instanceof ToolCallError && err instanceof RpcError && err instanceof FsboxError);
  assert.equal(err.kind, kind, err.message);
  assert.equal(err.retry, true);
  if (path !== undefined) {
    assert.equal(err.path, path);
  }
  assert.ok(err.message.length > 0);
  assert.ok(!err.message.includes(tmpRootPrefix), `the message leaks the root: ${err.message}`);
  return err;
}

let tmpRootPrefix = "";

describe("tool errors", () => {
  let root: string;
  let fs: Client;

  before(async () => {
    root = tempRoot({ "a.txt": "alpha\n", ".envrc": "SECRET=1\n" });
    tmpRootPrefix = root;
    fs = await start(root);
  });
  after(() => fs.close());

  test("outside_root", async () => {
    const err = await rejectsWith(fs.readFile({ path: "../outside.txt" }), "outside_root");
    assert.equal(err.code, ERROR_CODES.retry);
  });

  test("stale_hash", async () => {
    const err = await rejectsWith(
      fs.writeFile({ path: "a.txt", content: "new\n", expected_hash: "000000000000" }),
      "stale_hash",
      "a.txt",
    );
    assert.equal(err.code, ERROR_CODES.retry);
  });

  test("no_match", async () => {
    await rejectsWith(fs.editFile({ path: "a.txt", old_text: "omega", new_text: "x" }), "no_match", "a.txt");
  });

  test("protected", async () => {
    await rejectsWith(fs.writeFile({ path: ".envrc", content: "SECRET=2\n" }), "protected", ".envrc");
  });

  test("not_found", async () => {
    await rejectsWith(fs.readFile({ path: "missing.txt" }), "not_found", "missing.txt");
  });

  test("unknown tool through call(name, args)", async () => {
    const err = await rejectsWith(fs.call("no_such_tool", {}), "unknown_tool");
    assert.equal(err.code, ERROR_CODES.invalid_params);
  });

  test("invalid_arguments for a misspelt argument", async () => {
    const err = await rejectsWith(fs.call("read_file", { paht: "a.txt" }), "invalid_arguments");
    assert.equal(err.code, ERROR_CODES.invalid_params);
  });

  test("the stack of a tool error leads back to the caller", async () => {
    async function callerOfReadFile(): Promise<unknown> {
      return fs.readFile({ path: "../outside.txt" });
    }
    const err = await rejectsWith(callerOfReadFile(), "outside_root");
    assert.match(err.stack ?? "", /^ToolRetryError: /);
    assert.match(err.stack ?? "", /callerOfReadFile/);
  });

  test("a tool that is not enabled is unknown", async () => {
    await rejectsWith(fs.directoryTree(), "unknown_tool");
  });
});

test("a throwing onChangeRequest aborts the call with a fatal change_request_failed", async () => {
  const root = tempRoot();
  const fs = await start(root, {
    onChangeRequest: () => {
      throw new Error("the reviewer is out");
    },
  });
  try {
    const err = await fs.writeFile({ path: "x.txt", content: "x\n" }).then(
      () => assert.fail("the write succeeded"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ToolFatalError, String(err));
    assert.ok(err instanceof ToolCallError);
    assert.equal(err.kind, "change_request_failed");
    assert.equal(err.retry, false);
    assert.equal(err.code, ERROR_CODES.fatal);
    assert.equal(existsSync(join(root, "x.txt")), false);
  } finally {
    await fs.close();
  }
});

test("errorFromWire maps kinds, falls back to the retry table, and keeps other errors as RpcError", () => {
  const retry = errorFromWire({ code: -32001, message: "m", data: { kind: "stale_hash", retry: true, path: "a" } });
  assert.ok(retry instanceof ToolRetryError);
  assert.equal(retry.path, "a");
  const fatal = errorFromWire({ code: -32002, message: "m", data: { kind: "io_error" } });
  assert.ok(fatal instanceof ToolFatalError);
  assert.equal(ERROR_KIND_RETRY.io_error, false);
  const cancelled = errorFromWire({ code: -32800, message: "cancelled" });
  assert.ok(cancelled instanceof RpcError && !(cancelled instanceof ToolCallError));
  assert.equal(cancelled.code, -32800);
  const newer = errorFromWire({ code: -32001, message: "m", data: { kind: "from_the_future" } });
  assert.ok(newer instanceof ToolRetryError, "an unknown kind under the retry code is a retry error");
});

test("the names from before the naming scheme stay exported, as the same classes", () => {
  // ConnectionError (deprecated) is ConnectionLostError: catch clauses and instanceof written
  // against the old name keep matching what the SDK throws.
  assert.equal(ConnectionError, ConnectionLostError);
  const err: ConnectionError = new ConnectionLostError("gone");
  assert.ok(err instanceof ConnectionError && err instanceof FsboxError);
  assert.equal(err.name, "ConnectionLostError");
});
