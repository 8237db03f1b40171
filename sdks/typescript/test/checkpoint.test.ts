// The host's checkpoint methods and the AI SDK's checkpointRun, against a real fsbox process.
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";

import { generateText, stepCountIs } from "ai";

import { checkpointRun, fsboxTools } from "../dist/ai.js";
import { start, tempRoot } from "./helpers.js";
import { scripted } from "./scripted.js";

describe("checkpoints", () => {
  test("create, diff, list and restore; a human's change is a conflict unless forced", async () => {
    const root = tempRoot({ "a.txt": "a\n" });
    const client = await start(root, { config: { journal: {} } });
    try {
      const cp = await client.createCheckpoint("start");
      await client.writeFile({ path: "a.txt", content: "b\n" });
      assert.match((await client.diffCheckpoint(cp.id)).diff, /\+b/);
      assert.deepEqual((await client.listCheckpoints()).checkpoints.map((c) => c.id), [cp.id]);
      writeFileSync(join(root, "a.txt"), "human\n");
      const refused = await client.restoreCheckpoint(cp.id);
      assert.equal(refused.complete, false);
      assert.equal(refused.not_restored[0]?.kind, "conflict");
      const forced = await client.restoreCheckpoint(cp.id, { force: true });
      assert.equal(forced.complete, true);
      assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "a\n");
    } finally {
      await client.close();
    }
  });

  test("checkpointRun: restore after generateText puts back what the model changed", async () => {
    const root = tempRoot({ "notes.txt": "hello\nworld\n" });
    const client = await start(root, { config: { journal: {} } });
    try {
      const run = await checkpointRun(client);
      await generateText({
        model: scripted([
          ["edit_file", { path: "notes.txt", old_text: "world", new_text: "there" }],
          ["write_file", { path: "new.txt", content: "new\n" }],
        ]),
        tools: fsboxTools(client),
        stopWhen: stepCountIs(5),
        prompt: "go",
      });
      assert.equal(readFileSync(join(root, "notes.txt"), "utf8"), "hello\nthere\n");
      assert.deepEqual((await run.diff()).paths, ["new.txt", "notes.txt"]);
      const res = await run.restore();
      assert.equal(res.complete, true);
      assert.equal(readFileSync(join(root, "notes.txt"), "utf8"), "hello\nworld\n");
      assert.equal(existsSync(join(root, "new.txt")), false);
    } finally {
      await client.close();
    }
  });
});
