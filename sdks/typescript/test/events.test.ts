// Events reach onEvent before their call resolves; change requests can be refused or approved.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import type { ChangeRequest, Event, FileChangeRequest } from "../dist/index.js";
import { start, tempRoot } from "./helpers.js";

test("events arrive in order, before the call that caused them resolves", async () => {
  const events: Event[] = [];
  const root = tempRoot({ "a.txt": "alpha\n" });
  const fs = await start(root, { onEvent: (e) => void events.push(e) });
  try {
    await fs.readFile({ path: "a.txt" });
    assert.deepEqual(
      events.map((e) => e.kind),
      ["file_system.file_read"],
      "the event must be delivered before readFile resolves",
    );
    const read = events[0];
    assert.ok(read?.kind === "file_system.file_read");
    // The union narrows on kind: content_hash exists only on the events that carry one.
    assert.equal(read.path, "a.txt");
    assert.equal(read.root_dir, fs.session.root_dir);
    assert.equal(read.tool, "read_file");
    assert.match(read.content_hash, /^[0-9a-f]{12}$/);

    await fs.writeFile({ path: "b.txt", content: "beta\n" });
    await fs.editFile({ path: "b.txt", old_text: "beta", new_text: "gamma" });
    await fs.createDirectory({ path: "d" });
    await fs.listDirectory();
    await fs.searchFiles({ pattern: "gamma" });
    assert.deepEqual(
      events.map((e) => e.kind),
      [
        "file_system.file_read",
        "file_system.file_written",
        "file_system.file_edited",
        "file_system.directory_created",
        "file_system.directory_listed",
        "file_system.files_searched",
      ],
    );
    const edited = events[2];
    assert.ok(edited?.kind === "file_system.file_edited");
    assert.match(edited.diff, /^--- a\/b\.txt\n\+\+\+ b\/b\.txt\n/);
    // Every diff line ends with a newline, so the diff applies with patch or git apply as it is.
    assert.match(edited.diff, /\n-beta\n\+gamma\n$/);
  } finally {
    await fs.close();
  }
});

test("a failed call emits no event, and onEvent throwing does not fail the call", async () => {
  const events: Event[] = [];
  const fs = await start(tempRoot({ "a.txt": "alpha\n" }), {
    onEvent: (e) => {
      events.push(e);
      throw new Error("a listener bug");
    },
  });
  try {
    await assert.rejects(fs.readFile({ path: "missing.txt" }));
    assert.deepEqual(events, []);
    const r = await fs.readFile({ path: "a.txt" });
    assert.equal(r.path, "a.txt");
    assert.equal(events.length, 1);
  } finally {
    await fs.close();
  }
});

test("a change request refused with cancel(reason) leaves the disk untouched", async () => {
  const requests: FileChangeRequest[] = [];
  const root = tempRoot();
  const fs = await start(root, {
    onChangeRequest: (req) => {
      requests.push(JSON.parse(JSON.stringify(req)) as FileChangeRequest);
      req.cancel("not today");
    },
  });
  try {
    const r = await fs.writeFile({ path: "x.txt", content: "hello\n" });
    assert.equal(r.cancelled, true);
    assert.equal(r.cancel_reason, "not today");
    assert.equal(r.text, "['x.txt' was not written: not today]");
    assert.equal(existsSync(join(root, "x.txt")), false);

    assert.equal(requests.length, 1);
    const req = requests[0];
    assert.equal(req?.kind, "file_system.file_change_request");
    assert.equal(req?.operation, "write");
    assert.equal(req?.path, "x.txt");
    assert.equal(req?.reason, "listener");
    assert.equal(req?.root_dir, fs.session.root_dir);
    assert.match(req?.diff ?? "", /\n\+hello\n$/);
    assert.equal("cancel" in (req ?? {}), false, "cancel is not part of the wire form");
  } finally {
    await fs.close();
  }
});

test("an async onChangeRequest that returns approves, and the change waits for it", async () => {
  const order: string[] = [];
  const root = tempRoot({ "a.txt": "alpha\n" });
  const fs = await start(root, {
    onEvent: (e) => void order.push(e.kind),
    onChangeRequest: async (req: ChangeRequest) => {
      order.push(`asked ${req.operation} ${req.path}`);
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "alpha\n", "nothing lands before the answer");
      order.push("approved");
    },
  });
  try {
    const r = await fs.editFile({ path: "a.txt", old_text: "alpha", new_text: "omega" });
    assert.equal(r.cancelled, undefined);
    assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "omega\n");
    assert.deepEqual(order, ["asked edit a.txt", "approved", "file_system.file_edited"]);
  } finally {
    await fs.close();
  }
});

test("approveWith and edit approve the reviewer's replacement: content for a write, arguments for an edit", async () => {
  const events: Event[] = [];
  const root = tempRoot({ "t.txt": "a\nb\n" });
  const fs = await start(root, {
    onEvent: (e) => void events.push(e),
    onChangeRequest: (req) => {
      if (req.operation === "write") {
        req.approveWith("reviewed\n");
      } else {
        req.edit({ arguments: { path: "t.txt", old_text: "b", new_text: "B" } });
      }
    },
  });
  try {
    const w = await fs.writeFile({ path: "w.txt", content: "model\n" });
    assert.equal(w.modified_by_reviewer, true);
    assert.match(w.text, /\nNote: the reviewer modified this change before it was applied\.$/);
    const e = await fs.editFile({ path: "t.txt", old_text: "a", new_text: "A" });
    assert.equal(e.modified_by_reviewer, true);
    assert.equal(readFileSync(join(root, "w.txt"), "utf8"), "reviewed\n");
    assert.equal(readFileSync(join(root, "t.txt"), "utf8"), "a\nB\n");
    assert.deepEqual(
      events.map((ev) => (ev as { modified_by_reviewer?: boolean }).modified_by_reviewer),
      [true, true],
    );
  } finally {
    await fs.close();
  }
});

test("edit takes arguments only, approveWith content only", async () => {
  const root = tempRoot();
  const fs = await start(root, {
    onChangeRequest: (req) => {
      assert.throws(() => req.edit({} as never), TypeError);
      assert.throws(() => req.edit({ content: "x", arguments: {} } as never), TypeError);
      assert.throws(() => req.edit({ content: "x" } as never), TypeError);
      assert.throws(() => req.approveWith(undefined as never), TypeError);
      req.cancel("checked");
    },
  });
  try {
    const r = await fs.writeFile({ path: "x.txt", content: "hello\n" });
    assert.equal(r.cancel_reason, "checked");
  } finally {
    await fs.close();
  }
});
