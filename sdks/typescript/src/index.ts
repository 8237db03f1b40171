/**
 * fsbox: sandboxed file tools for agents, served by the fsbox binary over JSON-RPC on stdio.
 *
 * @packageDocumentation
 */
export { Client, decodeBytes, PLATFORM_PACKAGES, locateBinary } from "./client.js";
export { VERSION } from "./version.js";
export type { AuditLog, ChangeRequest, ChangeRequestEdit, ClientOptions, ResultShape, UnknownToolResult } from "./client.js";
export {
  BinaryNotFoundError,
  ConnectionError,
  ConnectionLostError,
  FsboxError,
  ResultShapeError,
  RpcError,
  SchemaMismatchError,
  ToolCallError,
  ToolFatalError,
  ToolRetryError,
} from "./errors.js";
export type { CallOptions } from "./transport.js";
export { BYTES_FIELDS, ERROR_CODES, ERROR_KIND_RETRY, PROTOCOL_VERSION, SCHEMA_HASH, TOOL_RESULT_TYPES, TOOLS } from "./types.gen.js";
export type * from "./types.gen.js";
