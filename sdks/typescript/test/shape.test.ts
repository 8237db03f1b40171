// resultShape: text-only and typed-only results, and the default, against the real server.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { ResultShapeError, ToolCallError, ToolRetryError } from "../dist/index.js";
import { start, tempRoot } from "./helpers.js";

test("the default shape is both", async () => {
  const fs = await start(tempRoot({ "a.txt": "hello\n" }));
  try {
    assert.equal(fs.session.result_shape, "both");
    const r = await fs.readFile({ path: "a.txt" });
    assert.equal(r.total_lines, 1);
    assert.equal(await fs.text("read_file", { path: "a.txt" }), r.text);
  } finally {
    await fs.close();
  }
});

test("resultShape text: text() gives the text, typed calls refuse before sending", async () => {
  const root = tempRoot({ "a.txt": "hello\n" });
  const both = await start(root);
  const fs = await start(root, { resultShape: "text" });
  try {
    assert.equal(fs.session.result_shape, "text");
    const want = (await both.readFile({ path: "a.txt" })).text;
    assert.equal(await fs.text("read_file", { path: "a.txt" }), want);
    assert.match(await fs.text("list_directory", {}), /^a\.txt {2}\(6 bytes\)/);
    await assert.rejects(fs.readFile({ path: "a.txt" }), (err: unknown) => err instanceof ResultShapeError && /client\.text/.test(err.message));
    await assert.rejects(fs.call("read_file", { path: "a.txt" }), ResultShapeError);
    await assert.rejects(fs.writeFile({ path: "new.txt", content: "x" }), ResultShapeError);
    assert.equal(existsSync(join(root, "new.txt")), false, "a refused typed write reached the disk");
    await assert.rejects(fs.text("read_file", { path: "missing.txt" }), (err: unknown) => err instanceof ToolRetryError && err.kind === "not_found");
  } finally {
    await both.close();
    await fs.close();
  }
});

test("resultShape typed: typed fields, text empty", async () => {
  const fs = await start(tempRoot({ "a.txt": "hello\n" }), { resultShape: "typed" });
  try {
    assert.equal(fs.session.result_shape, "typed");
    const r = await fs.readFile({ path: "a.txt" });
    assert.equal(r.text, "");
    assert.equal(r.total_lines, 1);
    const l = await fs.listDirectory({});
    assert.deepEqual(l.entries.map((e) => e.path), ["a.txt"]);
    await assert.rejects(fs.text("read_file", { path: "a.txt" }), ResultShapeError);
  } finally {
    await fs.close();
  }
});

test("an unknown resultShape is refused at start", async () => {
  await assert.rejects(
    start(tempRoot(), { resultShape: "html" as "text" }),
    (err: unknown) => err instanceof ToolCallError && err.kind === "invalid_arguments" && /capabilities\.result_shape/.test(err.message),
  );
});
