// The generated types say what the wire says. Most checks here are compile-time: tsc fails the
// build when an @ts-expect-error line stops being an error, or a narrowing stops compiling.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ERROR_KIND_RETRY, TOOLS } from "../dist/index.js";
import type { Client, ErrorKind, Event, ToolName } from "../dist/index.js";

/** Never called: only type-checked. */
export async function typeChecks(fs: Client): Promise<void> {
  const r = await fs.readFile({ path: "a.txt", offset: 1 });
  const text: string = r.text;
  const next: number | undefined = r.next_offset;
  void [text, next];
  // @ts-expect-error: a misspelt argument is a compile error
  await fs.readFile({ paht: "a.txt" });
  // @ts-expect-error: path is required
  await fs.writeFile({ content: "x" });
  await fs.listDirectory(); // no required arguments: args may be left out
  const info = await fs.call("file_info", { path: "a.txt" });
  // @ts-expect-error: call on a known name is typed like the method ("symlink" is no field)
  void info.symlink;
  const entry = (await fs.listDirectory()).entries[0];
  // @ts-expect-error: DirEntry.type is a closed union
  const other: "other" | undefined = entry?.type;
  void other;
}

/** Never called: the Event union narrows on kind. */
export function narrows(e: Event): string {
  switch (e.kind) {
    case "file_system.files_searched":
      return `${e.pattern} ${e.search} ${e.match_count}`;
    case "file_system.file_edited":
      return e.diff;
    case "file_system.file_moved":
      return e.source;
    default:
      // @ts-expect-error: only the events that carry a diff have one
      return e.diff;
  }
}

test("the retry table has a boolean for every kind, retry kinds first as the protocol lists them", () => {
  const kinds = Object.keys(ERROR_KIND_RETRY) as ErrorKind[];
  assert.ok(kinds.length >= 34);
  assert.equal(ERROR_KIND_RETRY.stale_hash, true);
  assert.equal(ERROR_KIND_RETRY.outside_root, true);
  assert.equal(ERROR_KIND_RETRY.change_request_failed, false);
  assert.equal(ERROR_KIND_RETRY.internal, false);
  const firstFatal = kinds.findIndex((k) => !ERROR_KIND_RETRY[k]);
  assert.ok(kinds.slice(firstFatal).every((k) => !ERROR_KIND_RETRY[k]));
});

test("TOOLS lists the eight default tools and the opt-in ones", () => {
  const defaults: ToolName[] = TOOLS.filter((t) => t.default).map((t) => t.name);
  assert.deepEqual(defaults, [
    "read_file",
    "write_file",
    "edit_file",
    "list_directory",
    "search_files",
    "find_files",
    "create_directory",
    "file_info",
  ]);
  assert.ok(TOOLS.some((t) => t.name === "directory_tree" && !t.default && t.read_only));
});
