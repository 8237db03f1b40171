// Shared setup of the tests: the real fsbox binary (FSBOX_BIN, or built once into a temporary
// directory), temporary roots, and a client started on them.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { Client } from "../dist/index.js";
import type { ClientOptions } from "../dist/index.js";

/** The repository root: this file runs from sdks/typescript/dist-test/. */
const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

let built: string | undefined;

/** binary returns FSBOX_BIN, or builds cmd/fsbox once for this test process. */
export function binary(): string {
  const fromEnv = process.env["FSBOX_BIN"];
  if (fromEnv !== undefined && fromEnv !== "") {
    return fromEnv;
  }
  if (built === undefined) {
    const out = join(mkdtempSync(join(tmpdir(), "fsbox-bin-")), "fsbox");
    execFileSync("go", ["build", "-o", out, "./cmd/fsbox"], { cwd: repo, stdio: "inherit" });
    built = out;
  }
  return built;
}

/** tempRoot makes a fresh root holding files (path → content); a path ending in / is a directory. */
export function tempRoot(files: Record<string, string> = {}): string {
  const root = mkdtempSync(join(tmpdir(), "fsbox-ts-"));
  for (const [path, content] of Object.entries(files)) {
    const full = join(root, path);
    if (path.endsWith("/")) {
      mkdirSync(full, { recursive: true });
      continue;
    }
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
  return root;
}

/** start starts a client on root with the test binary. */
export function start(root: string, options: Omit<ClientOptions, "rootDir"> = {}): Promise<Client> {
  return Client.start({ binary: binary(), ...options, rootDir: root });
}

/** alive reports whether a process with this pid exists (and is not a reaped zombie). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}


/** children lists the pids of this process's live child processes (Linux /proc). */
export function children(): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) {
      continue;
    }
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // The fields after the parenthesised command: state, ppid, ...
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(ppid) === process.pid && state !== "Z") {
        pids.push(Number(name));
      }
    } catch {
      // The process went away while we looked.
    }
  }
  return pids;
}
