// A round trip of every tool through its typed method, against the real server.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import type { Client, ToolName } from "../dist/index.js";
import { TOOLS } from "../dist/index.js";
import { start, tempRoot } from "./helpers.js";

const hash = (s: string): string => createHash("sha256").update(s).digest("hex").slice(0, 12);

const A = "one\ntwo\nthree\n";
const MAIN = "package main\n\n// TODO: fix\nfunc main() {}\n";

describe("every tool round-trips through its typed method", () => {
  let root: string;
  let fs: Client;

  before(async () => {
    root = tempRoot({ "a.txt": A, "src/main.go": MAIN, "src/util.go": "package main\n", "empty/": "" });
    fs = await start(root, { config: { tools: TOOLS.map((t) => t.name) } });
  });
  after(() => fs.close());

  test("all ten tools are enabled", () => {
    assert.deepEqual(
      fs.tools().map((t) => t.name).sort(),
      TOOLS.map((t) => t.name).sort(),
    );
    for (const t of fs.tools()) {
      assert.equal(typeof t.description, "string");
      assert.equal(t.input_schema["type"], "object");
    }
  });

  test("read_file", async () => {
    const r = await fs.readFile({ path: "a.txt" });
    assert.equal(r.path, "a.txt");
    assert.equal(r.total_lines, 3);
    assert.equal(r.lines_shown, 3);
    assert.equal(r.binary, false);
    assert.equal(r.size, A.length);
    assert.equal(r.hash, hash(A));
    assert.equal(r.next_offset, undefined);
    assert.equal(r.text, `[a.txt | 3 lines | hash:${hash(A)}]\n     1\tone\n     2\ttwo\n     3\tthree\n`);

    const page = await fs.readFile({ path: "a.txt", offset: 1, limit: 1 });
    assert.equal(page.offset, 1);
    assert.equal(page.lines_shown, 1);
    assert.equal(page.next_offset, 2);
    assert.match(page.text, /     2\ttwo\n/);
    assert.match(page.text, /Use offset=2 to continue reading/);
  });

  test("write_file", async () => {
    const r = await fs.writeFile({ path: "new.txt", content: "hello\n" });
    assert.equal(r.path, "new.txt");
    assert.equal(r.created, true);
    assert.equal(r.hash, hash("hello\n"));
    assert.equal(typeof r.text, "string");
    assert.equal(readFileSync(join(root, "new.txt"), "utf8"), "hello\n");

    const again = await fs.writeFile({ path: "new.txt", content: "bye\n", expected_hash: r.hash });
    assert.equal(again.created, false);
    assert.equal(readFileSync(join(root, "new.txt"), "utf8"), "bye\n");
  });

  test("edit_file", async () => {
    await fs.writeFile({ path: "edit.txt", content: "alpha\nbeta\ngamma\n" });
    const one = await fs.editFile({ path: "edit.txt", old_text: "beta", new_text: "BETA" });
    assert.equal(one.replacements, 1);
    assert.equal(one.path, "edit.txt");
    const two = await fs.editFile({
      path: "edit.txt",
      replacements: [
        { old_text: "alpha", new_text: "A" },
        { old_text: "gamma", new_text: "G" },
      ],
      expected_hash: one.hash,
    });
    assert.equal(two.replacements, 2);
    assert.equal(readFileSync(join(root, "edit.txt"), "utf8"), "A\nBETA\nG\n");
    assert.equal(two.hash, hash("A\nBETA\nG\n"));
  });

  test("list_directory", async () => {
    const r = await fs.listDirectory({ path: "src" });
    assert.equal(r.truncated, false);
    assert.deepEqual(
      r.entries.map((e) => [e.path, e.type, e.size]),
      [
        ["src/main.go", "file", MAIN.length],
        ["src/util.go", "file", "package main\n".length],
      ],
    );
    const top = await fs.listDirectory();
    assert.ok(top.entries.some((e) => e.path === "src/" && e.type === "directory"), top.text);
    const empty = await fs.listDirectory({ path: "empty" });
    assert.deepEqual(empty.entries, []);
    assert.match(empty.text, /\(empty directory\)/);
  });

  test("search_files", async () => {
    const r = await fs.searchFiles({ pattern: "TODO" });
    assert.deepEqual(r.matches, [{ path: "src/main.go", line: 3, text: "// TODO: fix" }]);
    assert.match(r.text, /src\/main\.go:3:\/\/ TODO: fix/);
    const none = await fs.searchFiles({ pattern: "nothing-like-this", path: "src", include_glob: "*.go" });
    assert.deepEqual(none.matches, []);
    assert.match(none.text, /No matches found\./);
  });

  test("find_files", async () => {
    const r = await fs.findFiles({ pattern: "**/*.go" });
    assert.deepEqual(r.paths, ["src/main.go", "src/util.go"]);
    assert.equal(r.truncated, false);
    const dirs = await fs.findFiles({ pattern: "s*" });
    assert.deepEqual(dirs.paths, ["src/"]);
  });

  test("create_directory", async () => {
    const r = await fs.createDirectory({ path: "made/deep" });
    assert.equal(r.created, true);
    assert.ok(statSync(join(root, "made", "deep")).isDirectory());
    const again = await fs.createDirectory({ path: "made/deep" });
    assert.equal(again.created, false);
  });

  test("file_info", async () => {
    const r = await fs.fileInfo({ path: "a.txt" });
    assert.equal(r.type, "file");
    assert.equal(r.size, A.length);
    assert.equal(r.lines, 3);
    assert.equal(r.binary, false);
    assert.equal(r.hash, hash(A));
    const dir = await fs.fileInfo({ path: "src" });
    assert.equal(dir.type, "directory");
  });

  test("read_multiple_files", async () => {
    const r = await fs.readMultipleFiles({ paths: ["a.txt", "missing.txt"] });
    assert.equal(r.files.length, 2);
    assert.equal(r.files[0]?.path, "a.txt");
    assert.equal(r.files[0]?.result?.hash, hash(A));
    assert.equal(r.files[1]?.path, "missing.txt");
    assert.equal(r.files[1]?.error?.kind, "not_found");
    assert.equal(r.files[1]?.result, undefined);
  });

  test("directory_tree", async () => {
    const r = await fs.directoryTree({ path: "src" });
    assert.deepEqual(
      r.entries.map((e) => [e.path, e.depth]),
      [
        ["src/main.go", 1],
        ["src/util.go", 1],
      ],
    );
    const shallow = await fs.directoryTree({ max_depth: 1 });
    assert.ok(shallow.entries.every((e) => e.depth === 1), shallow.text);
  });

  test("call(name, args) is the same call, typed by name", async () => {
    const r = await fs.call("read_file", { path: "a.txt" });
    assert.equal(r.total_lines, 3);
    const name: string = "file_info";
    const loose = await fs.call(name, { path: "a.txt" });
    assert.equal(loose["type"], "file");
    assert.equal(typeof loose.text, "string");
  });

  test("results are plain JSON objects", async () => {
    const r = await fs.readFile({ path: "a.txt" });
    assert.equal(Object.getPrototypeOf(r), Object.prototype);
    assert.deepEqual(JSON.parse(JSON.stringify(r)), r);
  });
});

test("the default tool set is the eight default tools", async () => {
  const fs = await start(tempRoot());
  try {
    const defaults: ToolName[] = TOOLS.filter((t) => t.default).map((t) => t.name);
    assert.deepEqual(fs.tools().map((t) => t.name), defaults);
    assert.deepEqual((await fs.listTools()).map((t) => t.name), defaults);
  } finally {
    await fs.close();
  }
});
