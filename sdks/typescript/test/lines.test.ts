// LineSplitter: lines across chunk boundaries, including inside a UTF-8 sequence.
import assert from "node:assert/strict";
import { test } from "node:test";

import { LineSplitter } from "../dist/transport.js";

function split(chunks: Buffer[]): { lines: string[]; buffered: number } {
  const s = new LineSplitter();
  const lines: string[] = [];
  for (const c of chunks) {
    s.push(c, (l) => lines.push(l));
  }
  return { lines, buffered: s.buffered };
}

test("several lines in one chunk, and a partial line held back", () => {
  assert.deepEqual(split([Buffer.from('{"a":1}\n{"b":2}\n{"c"')]), { lines: ['{"a":1}', '{"b":2}'], buffered: 4 });
});

test("a line split at every byte, through a multi-byte character", () => {
  const text = '{"t":"é🙂"}\n';
  const bytes = Buffer.from(text);
  const chunks = Array.from(bytes, (b) => Buffer.from([b]));
  assert.deepEqual(split(chunks), { lines: ['{"t":"é🙂"}'], buffered: 0 });
});

test("a long line over many chunks", () => {
  const long = "x".repeat(1 << 20);
  const bytes = Buffer.from(long + "\nnext\n");
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 65536) {
    chunks.push(bytes.subarray(i, i + 65536));
  }
  assert.deepEqual(split(chunks), { lines: [long, "next"], buffered: 0 });
});
