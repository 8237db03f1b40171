package engine

import (
	"github.com/fsbox/fsbox/engine/internal/fserr"
	"github.com/fsbox/fsbox/schema"
)

// Error is the error every Engine method returns: the fserr package's type (fields, Is, Retry and
// the message rules are documented there).
type Error = fserr.Error

// errorf, osError and pyRepr are the engine's short names for fserr.Errorf, fserr.FromOS and
// fserr.PyRepr, which build every model-facing message.
func errorf(op, path string, kind schema.ErrorKind, format string, args ...any) *Error {
	return fserr.Errorf(op, path, kind, format, args...)
}

func osError(op, path, name string, err error) *Error { return fserr.FromOS(op, path, name, err) }

func pyRepr(s string) string { return fserr.PyRepr(s) }

// configError is the *Error New returns for a bad configuration (fserr.Config).
func configError(format string, args ...any) *Error { return fserr.Config(format, args...) }

// Error kinds used by the engine: short names for the schema package's constants, the one source.
const (
	kindInvalidArguments    = schema.KindInvalidArguments
	kindUnknownTool         = schema.KindUnknownTool
	kindNotFound            = schema.KindNotFound
	kindNotAFile            = schema.KindNotAFile
	kindNotADirectory       = schema.KindNotADirectory
	kindNotRegularFile      = schema.KindNotRegularFile
	kindAlreadyExists       = schema.KindAlreadyExists
	kindParentMissing       = schema.KindParentMissing
	kindParentNotDirectory  = schema.KindParentNotDirectory
	kindOutsideRoot         = schema.KindOutsideRoot
	kindDenied              = schema.KindDenied
	kindNotAllowed          = schema.KindNotAllowed
	kindProtected           = schema.KindProtected
	kindPermissionDenied    = schema.KindPermissionDenied
	kindStaleHash           = schema.KindStaleHash
	kindNoMatch             = schema.KindNoMatch
	kindMultipleMatches     = schema.KindMultipleMatches
	kindEmptyOldText        = schema.KindEmptyOldText
	kindBinaryFile          = schema.KindBinaryFile
	kindInvalidEncoding     = schema.KindInvalidEncoding
	kindOffsetOutOfRange    = schema.KindOffsetOutOfRange
	kindInvalidPattern      = schema.KindInvalidPattern
	kindPatternTooComplex   = schema.KindPatternTooComplex
	kindInvalidPath         = schema.KindInvalidPath
	kindNameTooLong         = schema.KindNameTooLong
	kindSymlinkLoop         = schema.KindSymlinkLoop
	kindPathTooLong         = schema.KindPathTooLong
	kindChanged             = schema.KindChangedDuringRequest
	kindDirectoryNotEmpty   = schema.KindDirectoryNotEmpty
	kindTooManyEntries      = schema.KindTooManyEntries
	kindCrossDevice         = schema.KindCrossDevice
	kindToolUnavailable     = schema.KindToolUnavailable
	kindNoSpace             = schema.KindNoSpace
	kindReadOnlyFilesystem  = schema.KindReadOnlyFilesystem
	kindIOError             = schema.KindIOError
	kindChangeRequestFailed = schema.KindChangeRequestFailed
	kindInternal            = schema.KindInternal
)
