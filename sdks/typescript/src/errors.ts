import { ERROR_CODES, ERROR_KIND_RETRY } from "./types.gen.js";
import type { ErrorData, ErrorKind } from "./types.gen.js";

/**
 * FsboxError is the base of every error this SDK throws. The classes are named as in the Python
 * SDK (`<What>Error`), with Go's counterparts (`Err<What>`, `*Error`) in docs/errors.md.
 */
export class FsboxError extends Error {
  override name = "FsboxError";
}

/**
 * ResultShapeError says a typed tool method (or call with a tool this SDK knows) was used on a
 * client started with resultShape "text": its results carry only their text, so there is nothing
 * to fill the typed result with, and nothing was sent. Use client.text(name, args). It is a
 * mistake in the program, never something to hand to the model.
 */
export class ResultShapeError extends FsboxError {
  override name = "ResultShapeError";
}

/** BinaryNotFoundError says the fsbox binary could not be located, and how to get it. */
export class BinaryNotFoundError extends FsboxError {
  override name = "BinaryNotFoundError";
}

/**
 * ConnectionLostError says the server is gone: it exited or was killed, could not be started, or
 * the client was closed. Every call pending at that moment rejects with it at once.
 */
export class ConnectionLostError extends FsboxError {
  override name = "ConnectionLostError";
  /** The server's exit code, when it exited on its own. */
  readonly exitCode: number | null;
  /** The signal that ended the server, when one did. */
  readonly signal: NodeJS.Signals | null;

  constructor(message: string, exitCode: number | null = null, signal: NodeJS.Signals | null = null) {
    super(message);
    this.exitCode = exitCode;
    this.signal = signal;
  }
}

/**
 * ConnectionError is ConnectionLostError's name from before the naming scheme the SDKs share
 * (docs/errors.md): the same class, so instanceof and catch clauses behave as before.
 * @deprecated Use ConnectionLostError.
 */
export const ConnectionError = ConnectionLostError;
/** @deprecated Use ConnectionLostError. */
export type ConnectionError = ConnectionLostError;

/** RpcError is a JSON-RPC error response that is not a tool failure, e.g. -32800 (cancelled). */
export class RpcError extends FsboxError {
  override name = "RpcError";
  /** The JSON-RPC error code. */
  readonly code: number;
  /** The error's data member, as sent. */
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

/**
 * ToolCallError is a tool failure: a JSON-RPC error whose data carries a kind. Compare kind, never
 * message; message is written for the model.
 */
export class ToolCallError extends RpcError {
  override name = "ToolCallError";
  /** What went wrong. A newer server may send a kind this SDK does not list. */
  readonly kind: ErrorKind;
  /** True when the model can fix the call and try again. */
  readonly retry: boolean;
  /**
   * Whether the failure should spend one of the model's retries: false for a lookup that found
   * nothing (not_found), an answer rather than a mistake. A server that does not say counts every retry.
   */
  readonly countsAsRetry: boolean;
  /** Root-relative path the failure is about, when there is one. */
  readonly path: string | undefined;
  override readonly data: ErrorData;

  constructor(code: number, message: string, data: ErrorData) {
    super(code, message, data);
    this.kind = data.kind;
    this.retry = data.retry;
    this.countsAsRetry = data.counts_as_retry;
    this.path = data.path;
    this.data = data;
  }
}

/** ToolRetryError is a failure the model can fix (retry: true): show it the message. */
export class ToolRetryError extends ToolCallError {
  override name = "ToolRetryError";
}

/** ToolFatalError is a failure that should stop the run (retry: false). */
export class ToolFatalError extends ToolCallError {
  override name = "ToolFatalError";
}

/** The error object of a JSON-RPC response, as it arrives. */
export interface WireError {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * errorFromWire turns a JSON-RPC error object into the SDK error for it: a ToolRetryError or
 * ToolFatalError when data names a kind, an RpcError otherwise.
 */
export function errorFromWire(err: WireError): RpcError {
  const data = err.data;
  if (typeof data !== "object" || data === null || typeof (data as { kind?: unknown }).kind !== "string") {
    return new RpcError(err.code, err.message, data);
  }
  const d = data as Partial<ErrorData> & { kind: ErrorKind };
  const known: boolean | undefined = Object.hasOwn(ERROR_KIND_RETRY, d.kind) ? ERROR_KIND_RETRY[d.kind] : undefined;
  const retry = typeof d.retry === "boolean" ? d.retry : (known ?? err.code !== ERROR_CODES.fatal);
  // A server that predates counts_as_retry counts every retry.
  const counts = typeof d.counts_as_retry === "boolean" ? d.counts_as_retry : retry;
  const full: ErrorData = { ...d, retry, counts_as_retry: counts };
  return retry ? new ToolRetryError(err.code, err.message, full) : new ToolFatalError(err.code, err.message, full);
}

/** SchemaMismatchError says the server speaks another schema than this SDK was generated from. */
export class SchemaMismatchError extends FsboxError {
  override name = "SchemaMismatchError";
}
