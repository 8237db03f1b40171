import { accessSync, constants, statSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, join, resolve } from "node:path";

import { GeneratedClient } from "./client.gen.js";
import { BinaryNotFoundError, ResultShapeError, RpcError, SchemaMismatchError } from "./errors.js";
import { Transport } from "./transport.js";
import type { CallOptions } from "./transport.js";
import { BYTES_FIELDS, PROTOCOL_VERSION, SCHEMA_HASH, TOOL_RESULT_TYPES } from "./types.gen.js";
import { VERSION } from "./version.js";
import type {
  ChangeRequestResult,
  Checkpoint,
  CheckpointDiffResult,
  CheckpointListResult,
  CheckpointRestoreResult,
  Config,
  Event,
  FileChangeRequest,
  Implementation,
  InitializeResult,
  ToolArguments,
  ToolDescriptor,
  ToolName,
  ToolResults,
  ToolsListResult,
} from "./types.gen.js";

/**
 * ChangeRequestEdit is the reviewer's replacement of a change's arguments: the tool call's complete
 * replacement arguments (a typed ...Args value or a plain object), which replace the model's
 * entirely.
 */
export type ChangeRequestEdit = { arguments: object };

/**
 * ChangeRequest is a change the server asks the client to approve before it touches disk: the
 * wire FileChangeRequest plus cancel, approveWith and edit. Returning without calling any of them
 * approves the change; of them, the last call decides.
 */
export type ChangeRequest = FileChangeRequest & {
  /** cancel refuses the change; reason is shown to the model. The disk stays untouched. */
  cancel(reason?: string): void;
  /**
   * approveWith approves a write or an edit with content as the file's whole new content (the
   * reviewer's edit), written to the same path under the same checks as the model's change; the
   * result and event say modified_by_reviewer. For other operations the call fails with
   * change_request_failed.
   */
  approveWith(content: string): void;
  /**
   * edit approves the change with the reviewer's replacement arguments. The server re-runs the
   * tool on them exactly as if the model had sent them and applies that instead (the result has
   * modified_by_reviewer set), or fails the call with the check's error and changes nothing. A
   * delete or remove_directory cannot be edited (change_request_failed).
   */
  edit(replacement: ChangeRequestEdit): void;
};

/** The result of a tool called by a name this SDK does not know: text plus whatever else came. */
export interface UnknownToolResult {
  text: string;
  [field: string]: unknown;
}

/** ClientOptions configure Client.start. */
export interface ClientOptions {
  /** The directory every tool is confined to; sent as config.root_dir, overriding config's. */
  rootDir: string;
  /** Server configuration sent in initialize; it overrides the server's flags and config file. */
  config?: Config;
  /**
   * Path of the fsbox binary. Default: the FSBOX_BIN environment variable, then `fsbox` on PATH.
   */
  binary?: string;
  /**
   * Called with every event, in order, before the call that caused it resolves. Setting it turns
   * on capabilities.events. What it throws is written to stderr and does not fail the call.
   */
  onEvent?: (event: Event) => void | Promise<void>;
  /**
   * Called before every change touches disk; refuse with request.cancel(reason), or approve the
   * reviewer's replacement with request.approveWith(content) or request.edit({arguments}). It may be async:
   * the change waits for it. If it throws, the server aborts the call with a ToolFatalError of kind
   * change_request_failed. Setting it turns on capabilities.change_requests.
   */
  onChangeRequest?: (request: ChangeRequest) => void | Promise<void>;
  /**
   * What tool results carry (capabilities.result_shape). "both" (the default): the typed fields
   * and text. "text": only the text, for a program that hands only text to the model; neither
   * side encodes or parses the typed fields, client.text(name, args) returns the text, and the
   * typed methods (and call with a tool this SDK knows) reject with ResultShapeError without
   * sending anything. "typed": the typed fields without text (typed results have text "").
   */
  resultShape?: ResultShape;
  /** Who the client is, for the server's logs. */
  clientInfo?: Implementation;
  /**
   * The server's audit log (`fsbox serve --audit`): one JSON line per call, an AuditRecord of the
   * schema bundle, written before the call's reply. An AuditLog or just the log's path; it must
   * lie outside rootDir and every mount.
   */
  audit?: AuditLog | string;
  /** Extra arguments for `fsbox serve`. */
  serveArgs?: string[];
  /** How long close waits for each shutdown step before killing the server. Default 2000 ms. */
  closeTimeoutMs?: number;
}

/** AuditLog is where and how the server keeps its audit log; see ClientOptions.audit. */
export interface AuditLog {
  /** The log file, created 0600 when missing and appended to otherwise. */
  path: string;
  /** Rotate the log (path.1, path.2, ...) before it would grow past this size; 0 never rotates. */
  maxBytes?: number;
  /** Rotated files kept; default the server's (5). */
  keep?: number;
  /** Make every line durable (fdatasync) before the reply. */
  sync?: boolean;
}

/** auditArgs returns the `fsbox serve` flags of an audit log. */
function auditArgs(audit: AuditLog | string | undefined): string[] {
  if (audit === undefined) {
    return [];
  }
  const log = typeof audit === "string" ? { path: audit } : audit;
  const args = ["--audit", log.path];
  if (log.maxBytes !== undefined && log.maxBytes > 0) {
    args.push("--audit-max-bytes", String(log.maxBytes));
  }
  if (log.keep !== undefined && log.keep > 0) {
    args.push("--audit-keep", String(log.keep));
  }
  if (log.sync === true) {
    args.push("--audit-sync");
  }
  return args;
}

/** ResultShape is what tool results carry; see ClientOptions.resultShape. */
export type ResultShape = "both" | "text" | "typed";

const DEFAULT_CLIENT_INFO: Implementation = { name: "fsbox-typescript", version: VERSION };

/**
 * Client is one fsbox server session. Start one with Client.start, call tools through the typed
 * methods (readFile, writeFile, ...) or call, and close it when done.
 */
export class Client extends GeneratedClient {
  /** The initialize result: resolved root_dir, cwd, enabled tools and schema_hash. */
  readonly session: InitializeResult;
  private readonly transport: Transport;
  private readonly closeTimeoutMs: number;

  private constructor(transport: Transport, session: InitializeResult, closeTimeoutMs: number) {
    super();
    this.transport = transport;
    this.session = session;
    this.closeTimeoutMs = closeTimeoutMs;
  }

  /**
   * start spawns `fsbox serve`, initializes the session and resolves once the server accepted it.
   * If the binary cannot be found or started, or initialize fails, it rejects and leaves no
   * process behind.
   */
  static async start(options: ClientOptions): Promise<Client> {
    const binary = locateBinary(options.binary);
    const rootDir = resolve(options.rootDir);
    const closeTimeoutMs = options.closeTimeoutMs ?? 2000;
    const transport = new Transport(binary, ["serve", ...auditArgs(options.audit), ...(options.serveArgs ?? [])], {
      notification: (method, params) => {
        if (method === "event") {
          deliverEvent(options.onEvent, params as Event);
        }
      },
      request: (method, params) => answerServerRequest(options.onChangeRequest, method, params),
    });
    try {
      const session = await transport.request("initialize", {
        protocol_version: PROTOCOL_VERSION,
        client_info: options.clientInfo ?? DEFAULT_CLIENT_INFO,
        config: { ...options.config, root_dir: rootDir },
        capabilities: {
          events: options.onEvent !== undefined,
          change_requests: options.onChangeRequest !== undefined,
          ...(options.resultShape === undefined ? {} : { result_shape: options.resultShape }),
        },
      });
      if (session.schema_hash !== SCHEMA_HASH) {
        throw new SchemaMismatchError(
          `${binary} answers with schema_hash ${JSON.stringify(session.schema_hash)}, but this SDK ` +
            `(@fsbox/sdk ${VERSION}) was generated from ${SCHEMA_HASH}; use the fsbox binary of the ` +
            "same release (the @fsbox/<platform> package bundles one), or regenerate the SDK with `fsbox gen`.",
        );
      }
      return new Client(transport, session, closeTimeoutMs);
    } catch (err) {
      await transport.close(closeTimeoutMs);
      throw err;
    }
  }

  /** The server's process id. */
  get pid(): number | undefined {
    return this.transport.pid;
  }

  /** The tools the server enabled for this session, as initialize reported them. */
  tools(): ToolDescriptor[] {
    return this.session.tools;
  }

  /** listTools asks the server for its enabled tools again. */
  async listTools(): Promise<ToolDescriptor[]> {
    const result: ToolsListResult = await this.transport.request("tools/list", undefined);
    return result.tools;
  }

  /** schema fetches the server's JSON Schema bundle. */
  schema(): Promise<unknown> {
    return this.transport.request("schema", undefined);
  }

  // The host's checkpoint methods (docs/protocol.md §4.7). They need the session's journal: start
  // with config { journal: {} }. They are the host's, never tools the model calls.

  /** createCheckpoint marks the present moment; its id is for diffCheckpoint and restoreCheckpoint. */
  createCheckpoint(label = ""): Promise<Checkpoint> {
    return this.transport.request("checkpoint/create", { label });
  }

  /** listCheckpoints lists the checkpoints the journal keeps, oldest first. */
  listCheckpoints(): Promise<CheckpointListResult> {
    return this.transport.request("checkpoint/list", undefined);
  }

  /** diffCheckpoint is the unified diff of everything changed since the checkpoint id. */
  diffCheckpoint(id: string): Promise<CheckpointDiffResult> {
    return this.transport.request("checkpoint/diff", { id });
  }

  /**
   * restoreCheckpoint puts every path changed since the checkpoint id back. A path someone else
   * changed since fsbox last wrote it is left alone and listed in not_restored, unless force.
   */
  restoreCheckpoint(id: string, options: { force?: boolean } = {}): Promise<CheckpointRestoreResult> {
    return this.transport.request("checkpoint/restore", options.force ? { id, force: true } : { id });
  }

  /**
   * call calls a tool by name. Known names are typed like the generated methods; any other name is
   * sent as is, so the server's unknown_tool error comes back as a ToolRetryError.
   */
  call<N extends ToolName>(name: N, args: ToolArguments[N], options?: CallOptions): Promise<ToolResults[N]>;
  call(name: string, args?: Record<string, unknown>, options?: CallOptions): Promise<UnknownToolResult>;
  async call(name: string, args: object = {}, options?: CallOptions): Promise<unknown> {
    const type = (TOOL_RESULT_TYPES as Record<string, string | undefined>)[name];
    const shape = this.session.result_shape;
    if (shape === "text" && type !== undefined) {
      throw new ResultShapeError(
        `fsbox: ${name}: the client was started with resultShape "text", so results carry only their text ` +
          `and there is nothing to decode into a typed result; use client.text(${JSON.stringify(name)}, args), ` +
          'or start the client without resultShape "text".',
      );
    }
    let result: unknown = await this.transport.request("tools/call", { name, arguments: args as Record<string, unknown> }, options);
    if (shape === "typed" && typeof result === "object" && result !== null && !("text" in result)) {
      result = { ...(result as Record<string, unknown>), text: "" };
    }
    return type === undefined ? result : decodeBytes(type, result);
  }

  /**
   * raw calls a tool by name and resolves to its result exactly as the server sent it, in any
   * result shape: nothing decoded, nothing filled in.
   */
  raw(name: string, args: object = {}, options?: CallOptions): Promise<unknown> {
    return this.transport.request("tools/call", { name, arguments: args as Record<string, unknown> }, options);
  }

  /**
   * text calls a tool by name and resolves to the text of its result, what the model should see,
   * in the "both" and "text" result shapes (in "typed" results carry no text: it rejects).
   */
  async text(name: string, args: object = {}, options?: CallOptions): Promise<string> {
    const result = await this.raw(name, args, options);
    const text = typeof result === "object" && result !== null ? (result as { text?: unknown }).text : undefined;
    if (typeof text !== "string") {
      throw new ResultShapeError(
        `fsbox: ${name}: the result has no text (the session's result shape is ${JSON.stringify(this.session.result_shape)})`,
      );
    }
    return text;
  }

  protected callTool<N extends ToolName>(
    name: N,
    args: ToolArguments[N],
    options?: CallOptions,
  ): Promise<ToolResults[N]> {
    return this.call(name, args, options);
  }

  /**
   * close shuts the server down (shutdown, then EOF on its stdin, then a kill if it lingers) and
   * resolves once the process is gone. Pending calls reject. Calling it again is harmless.
   */
  close(): Promise<void> {
    return this.transport.close(this.closeTimeoutMs);
  }
}

/**
 * decodeBytes turns the base64 strings of value's bytes fields (BYTES_FIELDS) into Uint8Array, in
 * place, nested types and arrays included; anything that is not shaped as the schema says is left
 * as it came.
 */
export function decodeBytes(type: string, value: unknown): unknown {
  const fields = BYTES_FIELDS[type];
  if (fields === undefined || value === null || typeof value !== "object") {
    return value;
  }
  const obj = value as Record<string, unknown>;
  for (const [field, kind] of Object.entries(fields)) {
    const v = obj[field];
    if (v === undefined || v === null) {
      continue;
    }
    if (kind === "bytes") {
      if (typeof v === "string") {
        obj[field] = new Uint8Array(Buffer.from(v, "base64"));
      }
    } else if (kind.endsWith("[]")) {
      if (Array.isArray(v)) {
        for (const item of v) {
          decodeBytes(kind.slice(0, -2), item);
        }
      }
    } else {
      decodeBytes(kind, v);
    }
  }
  return value;
}

function deliverEvent(onEvent: ClientOptions["onEvent"], event: Event): void {
  if (onEvent === undefined) {
    return;
  }
  const report = (err: unknown): void => {
    process.stderr.write(`fsbox: onEvent threw: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  };
  try {
    const done = onEvent(event);
    if (done instanceof Promise) {
      done.catch(report);
    }
  } catch (err) {
    report(err);
  }
}

async function answerServerRequest(
  onChangeRequest: ClientOptions["onChangeRequest"],
  method: string,
  params: unknown,
): Promise<ChangeRequestResult> {
  if (method !== "change_request" || onChangeRequest === undefined) {
    throw new RpcError(-32601, `the client does not handle ${method}`);
  }
  let answer: ChangeRequestResult = { approve: true };
  const request = { ...(params as FileChangeRequest) } as ChangeRequest;
  // Not enumerable, so the request serialises as its wire form.
  Object.defineProperty(request, "cancel", {
    value: (reason?: string): void => {
      answer = reason === undefined ? { approve: false } : { approve: false, reason };
    },
  });
  // approve false: a server that predates edits refuses the change instead of applying the
  // model's unedited one.
  Object.defineProperty(request, "approveWith", {
    value: (content: string): void => {
      if (typeof content !== "string") {
        throw new TypeError("approveWith takes the file's whole new content, a string");
      }
      answer = { approve: false, decision: "edit", content };
    },
  });
  Object.defineProperty(request, "edit", {
    value: (replacement: ChangeRequestEdit): void => {
      if (typeof replacement?.arguments !== "object" || replacement.arguments === null || "content" in replacement) {
        throw new TypeError("edit takes { arguments }, the call's replacement arguments; approveWith takes content");
      }
      answer = { approve: false, decision: "edit", arguments: { ...replacement.arguments } as Record<string, unknown> };
    },
  });
  await onChangeRequest(request);
  return answer;
}

/** The npm package that carries the fsbox binary for each supported `${platform}-${arch}`. */
export const PLATFORM_PACKAGES: Readonly<Record<string, string>> = {
  "linux-x64": "@fsbox/linux-x64",
  "linux-arm64": "@fsbox/linux-arm64",
  "darwin-x64": "@fsbox/darwin-x64",
  "darwin-arm64": "@fsbox/darwin-arm64",
  "win32-x64": "@fsbox/win32-x64",
};

/**
 * locateBinary finds fsbox. Precedence:
 *
 *  1. the explicit path (ClientOptions.binary);
 *  2. the FSBOX_BIN environment variable;
 *  3. the binary of this platform's optional dependency (`@fsbox/linux-x64`, …), via require.resolve;
 *  4. `fsbox` on PATH.
 *
 * The error when none is found names the platform package that is missing.
 */
export function locateBinary(explicit?: string): string {
  if (explicit !== undefined && explicit !== "") {
    return explicit;
  }
  const fromEnv = process.env["FSBOX_BIN"];
  if (fromEnv !== undefined && fromEnv !== "") {
    return fromEnv;
  }
  const exe = process.platform === "win32" ? "fsbox.exe" : "fsbox";
  const platform = `${process.platform}-${process.arch}`;
  const pkg = PLATFORM_PACKAGES[platform];
  if (pkg !== undefined) {
    try {
      return createRequire(import.meta.url).resolve(`${pkg}/bin/${exe}`);
    } catch {
      // not installed (--omit=optional, or a source checkout): fall through to PATH
    }
  }
  for (const dir of (process.env["PATH"] ?? "").split(delimiter)) {
    if (dir !== "" && isExecutable(join(dir, exe))) {
      return join(dir, exe);
    }
  }
  const missing =
    pkg !== undefined
      ? `the platform package ${pkg} is not installed (reinstall @fsbox/sdk without --omit=optional / --no-optional, or \`npm install ${pkg}\`)`
      : `fsbox ships no binary for ${platform}`;
  throw new BinaryNotFoundError(
    `cannot find the fsbox binary: ${missing}; binary was not given, FSBOX_BIN is unset and fsbox is not on PATH. ` +
      "Or build it from a checkout of the fsbox repository with `go build -o bin/fsbox ./cmd/fsbox` and set FSBOX_BIN.",
  );
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
