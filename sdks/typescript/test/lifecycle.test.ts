// The connection: initialize, pipelining, a server that dies, close, and start failures.
import assert from "node:assert/strict";
import { chmodSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import {
  BinaryNotFoundError,
  Client,
  ConnectionLostError,
  RpcError,
  SCHEMA_HASH,
  SchemaMismatchError,
  ToolCallError,
} from "../dist/index.js";
import type { FileChangeRequest } from "../dist/index.js";
import { alive, binary, children, start, tempRoot } from "./helpers.js";

test("start resolves after initialize with the session", async () => {
  const root = tempRoot();
  const fs = await start(root);
  try {
    assert.equal(fs.session.root_dir, realpathSync(root));
    assert.equal(fs.session.cwd, ".");
    assert.equal(fs.session.protocol_version, "1");
    assert.equal(fs.session.schema_hash, SCHEMA_HASH, "the generated types are stale against the server's schema");
    assert.equal(typeof fs.session.server_info.name, "string");
  } finally {
    await fs.close();
  }
});

test("many calls in flight each get their own answer", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 20; i++) {
    files[`f${i}.txt`] = `content ${i}\n`.repeat(i + 1);
  }
  const fs = await start(tempRoot(files));
  try {
    const calls = Array.from({ length: 200 }, (_, n) => {
      const i = (n * 7) % 20;
      return fs.readFile({ path: `f${i}.txt` }).then((r) => [i, r] as const);
    });
    for (const [i, r] of await Promise.all(calls)) {
      assert.equal(r.path, `f${i}.txt`);
      assert.equal(r.total_lines, i + 1);
    }
  } finally {
    await fs.close();
  }
});

test("lines far bigger than a pipe chunk, with multi-byte characters, arrive whole", async () => {
  const line = "é🙂 grüße ".repeat(400) + "\n";
  const content = line.repeat(1000); // about 5 MB of UTF-8
  const fs = await start(tempRoot({ "big.txt": content }), { config: { max_read_chars: 50_000_000 } });
  try {
    const r = await fs.readFile({ path: "big.txt", limit: 1000 });
    assert.equal(r.lines_shown, 1000);
    const body = r.text.split("\n").slice(1, -1);
    assert.equal(body.length, 1000);
    assert.ok(body.every((l) => l.endsWith(line.slice(0, -1))), "a line came back damaged");
  } finally {
    await fs.close();
  }
});

test("a server killed mid-call fails every pending call at once", { timeout: 10_000 }, async () => {
  const held: FileChangeRequest[] = [];
  let allHeld: () => void = () => {};
  const heldAll = new Promise<void>((resolve) => (allHeld = resolve));
  const fs = await start(tempRoot(), {
    // Never answer: the writes stay pending inside the server.
    onChangeRequest: (req) => {
      held.push(req);
      if (held.length === 3) {
        allHeld();
      }
      return new Promise<void>(() => {});
    },
  });
  const pid = fs.pid;
  assert.ok(pid !== undefined);
  const writes = ["a", "b", "c"].map((n) => fs.writeFile({ path: `${n}.txt`, content: n }));
  await heldAll;
  process.kill(pid, "SIGKILL");
  const results = await Promise.allSettled(writes);
  for (const r of results) {
    assert.equal(r.status, "rejected");
    assert.ok(r.reason instanceof ConnectionLostError, String(r.reason));
    assert.match(r.reason.message, /killed by SIGKILL/);
    assert.equal(r.reason.signal, "SIGKILL");
  }
  await assert.rejects(fs.readFile({ path: "a.txt" }), ConnectionLostError, "a call after the crash fails at once");
  await fs.close();
  assert.equal(alive(pid), false);
});

test("an aborted signal cancels a pending call with -32800", { timeout: 10_000 }, async () => {
  const controller = new AbortController();
  const fs = await start(tempRoot(), {
    onChangeRequest: () => {
      controller.abort();
      return new Promise<void>(() => {});
    },
  });
  try {
    const err = await fs.writeFile({ path: "x.txt", content: "x" }, { signal: controller.signal }).then(
      () => assert.fail("the write succeeded"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof RpcError, String(err));
    assert.equal(err.code, -32800);
  } finally {
    await fs.close();
  }
});

test("close is idempotent and leaves no process behind", { timeout: 10_000 }, async () => {
  const fs = await start(tempRoot({ "a.txt": "alpha\n" }));
  const pid = fs.pid;
  assert.ok(pid !== undefined && alive(pid));
  assert.ok(children().includes(pid));
  const first = fs.close();
  assert.equal(fs.close(), first, "a second close while closing is the same close");
  await first;
  assert.equal(alive(pid), false);
  assert.ok(!children().includes(pid));
  await fs.close();
  await assert.rejects(fs.readFile({ path: "a.txt" }), (e: unknown) => e instanceof ConnectionLostError && /closed/.test(e.message));
});

test("arguments that cannot be sent reject the call and leave the connection usable", async () => {
  const fs = await start(tempRoot({ "a.txt": "alpha\n" }));
  try {
    await assert.rejects(fs.call("read_file", { path: "a.txt", offset: 1n }), TypeError);
    assert.equal((await fs.readFile({ path: "a.txt" })).total_lines, 1);
  } finally {
    await fs.close();
  }
});

test("schema returns the server's bundle", async () => {
  const fs = await start(tempRoot());
  try {
    const bundle = (await fs.schema()) as { $defs: Record<string, unknown>; "x-fsbox": { protocol_version: string } };
    assert.ok("ReadFileArgs" in bundle.$defs);
    assert.equal(bundle["x-fsbox"].protocol_version, "1");
  } finally {
    await fs.close();
  }
});

test("close kills a server that does not exit", { timeout: 10_000 }, async (t) => {
  const fs = await start(tempRoot(), { closeTimeoutMs: 100 });
  const pid = fs.pid;
  assert.ok(pid !== undefined);
  // Should close fail to kill it, a stopped child would keep this test process alive for good.
  t.after(() => {
    if (alive(pid)) {
      process.kill(pid, "SIGKILL");
    }
  });
  process.kill(pid, "SIGSTOP"); // it can no longer answer shutdown or see EOF
  await fs.close();
  assert.equal(alive(pid), false);
});

test("a refused initialize rejects start and leaves no process behind", async () => {
  const before = children();
  const err = await start(tempRoot(), { config: { max_read_lines: -1 } }).then(
    () => assert.fail("start succeeded"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof RpcError, String(err));
  assert.equal(err.code, -32602);
  assert.ok(!(err instanceof ToolCallError) || err.kind === "invalid_arguments");
  assert.deepEqual(children().filter((p) => !before.includes(p)), []);
});

test("a missing binary is reported with how to get one", async () => {
  const saved = { bin: process.env["FSBOX_BIN"], path: process.env["PATH"] };
  delete process.env["FSBOX_BIN"];
  process.env["PATH"] = tempRoot();
  try {
    const err = await Client.start({ rootDir: tempRoot() }).then(
      () => assert.fail("start succeeded"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof BinaryNotFoundError, String(err));
    assert.match(err.message, /FSBOX_BIN/);
    assert.match(err.message, /go build -o bin\/fsbox \.\/cmd\/fsbox/);
    // The advice names what works today (the platform package, or a build), not `go install …@latest`.
    assert.match(err.message, /@fsbox\/(linux|darwin|win32)-/);
    assert.doesNotMatch(err.message, /@latest/);
  } finally {
    process.env["PATH"] = saved.path;
    if (saved.bin !== undefined) {
      process.env["FSBOX_BIN"] = saved.bin;
    }
  }
  await assert.rejects(
    Client.start({ rootDir: tempRoot(), binary: "/nonexistent/fsbox" }),
    (e: unknown) => e instanceof ConnectionLostError && /cannot start \/nonexistent\/fsbox/.test(e.message),
  );
});

test("FSBOX_BIN is used when no binary is given", async () => {
  const saved = process.env["FSBOX_BIN"];
  process.env["FSBOX_BIN"] = binary();
  try {
    const fs = await Client.start({ rootDir: tempRoot() });
    await fs.close();
  } finally {
    if (saved === undefined) {
      delete process.env["FSBOX_BIN"];
    } else {
      process.env["FSBOX_BIN"] = saved;
    }
  }
});

test("a server of another schema is refused at start, naming both hashes", async () => {
  const fake = join(tempRoot(), "old-fsbox");
  writeFileSync(
    fake,
    "#!/bin/sh\nread line\n" +
      `echo '{"jsonrpc":"2.0","id":1,"result":{"protocol_version":"1","server_info":{"name":"old","version":"0"},` +
      `"root_dir":"/","cwd":".","tools":[],"schema_hash":"sha256:0ld"}}'\nread line\n`,
  );
  chmodSync(fake, 0o755);
  const before = children();
  await assert.rejects(
    Client.start({ rootDir: tempRoot(), binary: fake }),
    (e: unknown) => e instanceof SchemaMismatchError && e.message.includes("sha256:0ld") && e.message.includes(SCHEMA_HASH),
  );
  assert.deepEqual(children().filter((p) => !before.includes(p)), []);
});
