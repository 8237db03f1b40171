import { spawn } from "node:child_process";
import type { ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";

import { ConnectionLostError, RpcError, errorFromWire } from "./errors.js";
import type { WireError } from "./errors.js";
import type { ClientMethods, ClientNotifications } from "./types.gen.js";

/** CallOptions tune one call. */
export interface CallOptions {
  /**
   * Aborting the signal sends $/cancel_request for the call; the server then answers it with
   * -32800, and the call rejects with an RpcError of that code (unless it finished first).
   */
  signal?: AbortSignal;
}

/** TransportHandlers receive what the server sends on its own initiative. */
export interface TransportHandlers {
  /** A notification; called in wire order, before any later line is looked at. */
  notification(method: string, params: unknown): void;
  /** A request; resolve with its result, or reject to answer it with a JSON-RPC error. */
  request(method: string, params: unknown): Promise<unknown>;
}

/**
 * LineSplitter cuts a byte stream into newline-terminated lines. A line may span any number of
 * chunks and is decoded only once whole, so a UTF-8 sequence split across chunks stays intact.
 */
export class LineSplitter {
  private parts: Buffer[] = [];

  /** push feeds one chunk and calls onLine for every line it completes, in order. */
  push(chunk: Buffer, onLine: (line: string) => void): void {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, start)) {
      let line = chunk.subarray(start, nl);
      if (this.parts.length > 0) {
        this.parts.push(line);
        line = Buffer.concat(this.parts);
        this.parts = [];
      }
      start = nl + 1;
      onLine(line.toString("utf8"));
    }
    if (start < chunk.length) {
      this.parts.push(chunk.subarray(start));
    }
  }

  /** The number of bytes of an unfinished line held back. */
  get buffered(): number {
    return this.parts.reduce((n, p) => n + p.length, 0);
  }
}

interface Pending {
  resolve(result: unknown): void;
  reject(err: Error): void;
}

/** How much of the server's stderr is kept for error messages. */
const STDERR_TAIL = 4096;

/** The JSON-RPC code a client answers with when its callback for a server request threw. */
const CALLBACK_FAILED = -32603;

type Child = ChildProcessByStdio<Writable, Readable, Readable>;

/**
 * Transport runs one `fsbox serve` child and speaks newline-delimited JSON-RPC 2.0 with it:
 * requests are pipelined, responses matched by id, server notifications and requests handed to
 * the handlers in wire order. When the child goes away every pending call rejects at once with a
 * ConnectionLostError. The child's stderr is copied to this process's stderr, and its tail is kept
 * for error messages.
 */
export class Transport {
  private readonly child: Child;
  private readonly pending = new Map<number, Pending>();
  private readonly splitter = new LineSplitter();
  private nextId = 1;
  private stderrTail = "";
  private stdoutEnded = false;
  private exitStatus: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private failure: ConnectionLostError | undefined;
  private closing: Promise<void> | undefined;
  private readonly exited: Promise<void>;

  constructor(
    binary: string,
    args: readonly string[],
    private readonly handlers: TransportHandlers,
  ) {
    this.child = spawn(binary, args, { stdio: ["pipe", "pipe", "pipe"] });
    this.exited = new Promise((resolve) => {
      this.child.once("exit", (code, signal) => {
        this.exitStatus = { code, signal };
        this.maybeDead();
        resolve();
      });
      this.child.on("error", (err) => {
        if (this.child.pid === undefined) {
          // Spawning failed: there is no process to wait for.
          this.fail(new ConnectionLostError(`cannot start ${binary}: ${err.message}`));
          resolve();
        }
      });
    });
    // A write after the child died fails with EPIPE; the exit handling reports that.
    this.child.stdin.on("error", () => {});
    this.child.stdout.on("data", (chunk: Buffer) => this.splitter.push(chunk, (line) => this.receive(line)));
    this.child.stdout.once("end", () => {
      this.stdoutEnded = true;
      this.maybeDead();
    });
    this.child.stderr.on("data", (chunk: Buffer) => {
      process.stderr.write(chunk);
      this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL);
    });
  }

  /** The child's process id (undefined if it could not be started). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** request sends a request and resolves with its result or rejects with the error it got. */
  request<M extends keyof ClientMethods>(
    method: M,
    params: ClientMethods[M]["params"],
    options: CallOptions = {},
  ): Promise<ClientMethods[M]["result"]> {
    if (this.closing !== undefined && method !== "shutdown") {
      return Promise.reject(new ConnectionLostError("the fsbox client is closed"));
    }
    if (this.failure !== undefined) {
      return Promise.reject(this.failure);
    }
    const id = this.nextId++;
    // Serialised first, so arguments JSON cannot hold (a BigInt, a cycle) reject before anything is sent.
    let line: string;
    try {
      line = encode(params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params });
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    const { signal } = options;
    // The error of a response is made while reading stdout; give it the caller's stack instead.
    const site: { stack?: string } = {};
    Error.captureStackTrace(site, this.request);
    return new Promise<ClientMethods[M]["result"]>((resolve, reject) => {
      const onAbort = (): void => this.notify("$/cancel_request", { id });
      const settle = (): void => {
        this.pending.delete(id);
        signal?.removeEventListener("abort", onAbort);
      };
      this.pending.set(id, {
        resolve: (result) => {
          settle();
          resolve(result as ClientMethods[M]["result"]);
        },
        reject: (err) => {
          settle();
          if (err instanceof RpcError && site.stack !== undefined) {
            err.stack = `${err.name}: ${err.message}\n${site.stack.slice(site.stack.indexOf("\n") + 1)}`;
          }
          reject(err);
        },
      });
      this.child.stdin.write(line);
      if (signal?.aborted) {
        onAbort();
      } else {
        signal?.addEventListener("abort", onAbort, { once: true });
      }
    });
  }

  /** notify sends a notification. */
  notify<M extends keyof ClientNotifications>(method: M, params: ClientNotifications[M]): void {
    if (this.failure === undefined) {
      this.send({ jsonrpc: "2.0", method, params });
    }
  }

  /**
   * close asks the server to shut down, closes its stdin and waits up to timeoutMs for each step,
   * then kills it. Pending calls reject. It is idempotent: every call returns the same promise,
   * which resolves once the child is gone.
   */
  close(timeoutMs: number): Promise<void> {
    this.closing ??= this.shutdown(timeoutMs);
    return this.closing;
  }

  private async shutdown(timeoutMs: number): Promise<void> {
    if (this.failure === undefined) {
      await within(this.request("shutdown", undefined).catch(() => {}), timeoutMs);
      this.child.stdin.end();
      if (!(await within(this.exited, timeoutMs))) {
        this.child.kill("SIGKILL");
      }
    }
    await this.exited;
    this.fail(new ConnectionLostError("the fsbox client is closed"));
  }

  private send(message: object): void {
    this.child.stdin.write(encode(message));
  }

  /** receive handles one line of the server's stdout. */
  private receive(line: string): void {
    if (line.trim() === "") {
      return;
    }
    let msg: {
      id?: unknown;
      method?: unknown;
      params?: unknown;
      result?: unknown;
      error?: WireError;
    };
    try {
      msg = JSON.parse(line) as typeof msg;
    } catch {
      process.stderr.write(`fsbox: ignoring a line from the server that is not JSON: ${line.slice(0, 200)}\n`);
      return;
    }
    if (typeof msg.method === "string") {
      if (msg.id === undefined) {
        this.handlers.notification(msg.method, msg.params);
      } else {
        this.answer(msg.id, msg.method, msg.params);
      }
      return;
    }
    const call = typeof msg.id === "number" ? this.pending.get(msg.id) : undefined;
    if (call === undefined) {
      const what = msg.error !== undefined ? `error ${msg.error.code} ${msg.error.message}` : "result";
      process.stderr.write(`fsbox: server sent a ${what} for no pending call (id ${JSON.stringify(msg.id)})\n`);
      return;
    }
    if (msg.error !== undefined) {
      call.reject(errorFromWire(msg.error));
    } else {
      call.resolve(msg.result);
    }
  }

  /** answer runs the handler for a server request and sends its result or error back. */
  private answer(id: unknown, method: string, params: unknown): void {
    this.handlers.request(method, params).then(
      (result) => {
        if (this.failure === undefined) {
          this.send({ jsonrpc: "2.0", id, result });
        }
      },
      (err: unknown) => {
        const code = err instanceof RpcError ? err.code : CALLBACK_FAILED;
        const message = err instanceof Error ? err.message : String(err);
        if (this.failure === undefined) {
          this.send({ jsonrpc: "2.0", id, error: { code, message } });
        }
      },
    );
  }

  /** maybeDead fails the connection once the child has exited and its stdout is drained. */
  private maybeDead(): void {
    if (this.exitStatus === undefined || !this.stdoutEnded) {
      return;
    }
    const { code, signal } = this.exitStatus;
    const how = signal !== null ? `was killed by ${signal}` : `exited with code ${code}`;
    const tail = this.stderrTail.trim();
    const detail = tail === "" ? "" : `; its stderr ended with:\n${tail}`;
    this.fail(new ConnectionLostError(`the fsbox server ${how}${detail}`, code, signal));
  }

  /** fail rejects every pending call with err; later calls reject with it too. */
  private fail(err: ConnectionLostError): void {
    if (this.failure !== undefined) {
      return;
    }
    this.failure = err;
    for (const call of [...this.pending.values()]) {
      call.reject(err);
    }
  }
}

/** encode renders one protocol message as its line. */
function encode(message: object): string {
  return JSON.stringify(message) + "\n";
}

/** within waits for p at most timeoutMs and says whether it settled in time. */
async function within(p: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([p.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
