// The audit option: the client starts fsbox serve with --audit; every call has its line when the
// call resolves, and the lines read as the generated AuditRecord.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

import type { AuditRecord } from "../dist/index.js";
import { start, tempRoot } from "./helpers.js";

function records(path: string): AuditRecord[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as AuditRecord);
}

test("audit: a line per call, written before the call resolves", async () => {
  const root = tempRoot({ "a.txt": "hello\n" });
  const log = join(mkdtempSync(join(tmpdir(), "fsbox-audit-")), "audit.jsonl");
  const fs = await start(root, { audit: { path: log, maxBytes: 1 << 20, keep: 2 } });
  try {
    await fs.readFile({ path: "a.txt" });
    assert.deepEqual(records(log).map((r) => [r.seq, r.tool, r.outcome]), [[1, "read_file", "ok"]]);
    await assert.rejects(fs.readFile({ path: "missing.txt" }));
    assert.deepEqual(records(log).map((r) => [r.seq, r.outcome, r.error_kind]), [
      [1, "ok", undefined],
      [2, "error", "not_found"],
    ]);
  } finally {
    await fs.close();
  }
});

test("audit: a path alone is the log", async () => {
  const root = tempRoot({});
  const log = join(mkdtempSync(join(tmpdir(), "fsbox-audit-")), "audit.jsonl");
  const fs = await start(root, { audit: log });
  try {
    await fs.listDirectory({ path: "." });
    assert.deepEqual(records(log).map((r) => r.tool), ["list_directory"]);
  } finally {
    await fs.close();
  }
});
