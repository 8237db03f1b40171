package codegen

// This file holds every place where an emitter departs from the literal schema, each entry with
// its reason. TestGoTablesUsed fails on an entry the real schema no longer needs, so the tables
// cannot rot into dead weight.

// goInitialisms spells snake_case words the Go way when they become part of an identifier.
var goInitialisms = map[string]string{
	"id": "ID", // Go spells initialisms in one case (CancelParams.ID, not Id)
	"io": "IO", // KindIOError, not KindIoError, for the same reason
}

// goTypeSuffixes renames $defs entries by suffix.
var goTypeSuffixes = []struct{ from, to, reason string }{
	{"Args", "Params", "tool arguments are the params of a typed method: c.ReadFile(ctx, ReadFileParams{Path: …})"},
}

// goEnumPrefixes names the constants of a named enum: prefix + CamelCase(value). Without an entry
// the prefix is the enum's Go type name.
var goEnumPrefixes = map[string]string{
	"ErrorKind": "Kind", // err.Kind == KindStaleHash reads better than ErrorKindStaleHash
}

// goHandWritten are the exported package-level names the hand-written files of package
// fsboxclient declare; a generated name that collides with one is refused with a clear error
// instead of a compile error in the SDK. TestGoHandWrittenNames keeps the list in step.
var goHandWritten = []string{
	"AuditLog", "ChangeRequest", "Client", "EditedError", "ErrBinaryNotFound", "ErrClosed", "ErrConnectionLost", "ErrResultShape", "ErrSchemaMismatch",
	"ErrServerExited", "ErrTextShape", "Error", "Options", "RefusedError",
	"ResultShapeBoth", "ResultShapeText", "ResultShapeTyped", "Start", "Version",
}

// goClientMethods are the hand-written methods of fsboxclient.Client; a tool whose method name
// collides with one is refused (also checked by TestGoHandWrittenNames).
var goClientMethods = []string{"Call", "Close", "CreateCheckpoint", "DiffCheckpoint", "ListCheckpoints", "ListTools", "RestoreCheckpoint", "Schema", "Session", "Text", "Tools"}
