// Binary reads: the hash and a hex preview in text, images and PDFs as a Uint8Array.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { start, tempRoot } from "./helpers.js";

const PNG = Buffer.concat([Buffer.from("\x89PNG\r\n\x1a\n", "latin1"), Buffer.from([...Array(32).keys()])]);

test("an image comes back as a Uint8Array, also inside read_multiple_files", async () => {
  const root = tempRoot({});
  writeFileSync(join(root, "pic.png"), PNG);
  writeFileSync(join(root, "blob.bin"), Buffer.from([0, 1, 2]));
  const fs = await start(root, { config: { tools: ["read_file", "read_multiple_files"] } });
  try {
    const pic = await fs.readFile({ path: "pic.png" });
    assert.ok(pic.data instanceof Uint8Array);
    assert.deepEqual(Buffer.from(pic.data), PNG);
    assert.equal(pic.media_type, "image/png");
    assert.match(pic.text, /^\[pic\.png \| image\/png \| 40 bytes \| hash:[0-9a-f]{12}\]\n$/);
    const blob = await fs.readFile({ path: "blob.bin" });
    assert.equal(blob.data, undefined);
    assert.match(blob.text, /00000000 {2}00 01 02\n/);
    const many = await fs.readMultipleFiles({ paths: ["pic.png", "blob.bin"] });
    assert.ok(many.files[0]?.result?.data instanceof Uint8Array);
  } finally {
    await fs.close();
  }
});
