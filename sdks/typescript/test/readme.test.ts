// The README's quickstart works as written: it runs here, importing the package by its name.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { binary, tempRoot } from "./helpers.js";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");

test("the README quickstart runs and prints what it promises", () => {
  const readme = readFileSync(join(pkg, "README.md"), "utf8");
  const block = /<!-- quickstart[^>]*-->\n```js\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(block !== undefined, "README.md has no quickstart block");
  assert.ok(block.trim().split("\n").length <= 12, "the quickstart is meant to be about ten lines");
  // Inside the package directory "@fsbox/sdk" resolves to this package itself (package self-reference).
  const script = join(pkg, "dist-test", "quickstart.mjs");
  writeFileSync(script, block);
  const root = tempRoot();
  const out = execFileSync("node", [script], {
    cwd: root,
    env: { ...process.env, FSBOX_BIN: binary() },
    encoding: "utf8",
  });
  assert.match(out, /^event: file_system\.file_written hello\.txt$/m);
  assert.match(out, /^event: file_system\.file_read hello\.txt$/m);
  assert.match(out, /\[hello\.txt \| 2 lines \| hash:[0-9a-f]{12}\]/);
  assert.match(out, /^true outside_root$/m);
  assert.equal(readFileSync(join(root, "hello.txt"), "utf8"), "hello\nworld\n");
});
