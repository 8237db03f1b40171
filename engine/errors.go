package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/fsbox/fsbox/schema"
)

// Error is the error every Engine method returns. Msg is written for the model and never contains
// an absolute host path; Err keeps the underlying cause for logs and errors.Is, and is not part of
// Error's text (it may name host paths).
type Error struct {
	Op   string           // the tool (or "new" for configuration errors)
	Path string           // root-relative path the failure is about, or the model's spelling; may be empty
	Kind schema.ErrorKind // what clients compare
	Msg  string           // model-facing message
	Err  error            // underlying cause, if any
}

// Error returns "op path: msg", or "op: msg" without a path.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	if e.Path != "" {
		b.WriteString(" ")
		b.WriteString(e.Path)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error of the same Kind, so errors.Is(err, &Error{Kind: k})
// compares kinds.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Kind == e.Kind
}

// Retry reports whether the model can fix the call (the kind is a retry kind).
func (e *Error) Retry() bool { return isRetryKind(e.Kind) }

// isRetryKind reports whether kind is a retry kind; unknown kinds count as fatal.
func isRetryKind(kind schema.ErrorKind) bool {
	retry, _ := schema.LookupErrorKind(kind)
	return retry
}

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

// outsidePlaceholder replaces every host path outside the root in model-facing text.
const outsidePlaceholder = "<outside-workspace>"

// errorf builds an *Error with a formatted model-facing message.
func errorf(op, path string, kind schema.ErrorKind, format string, args ...any) *Error {
	return &Error{Op: op, Path: path, Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// osError turns an operating-system error into an *Error. name is what the message may show for
// the file (the model's spelling or a root-relative path, never an absolute host path); path is
// the root-relative path for Error.Path. The errno decides the kind; the message follows the
// pydantic-ai-harness's "[Errno N] Strerror: 'name'" form for the kinds without a dedicated text, and the
// path-free texts for ENAMETOOLONG, ELOOP and EILSEQ.
func osError(op, path, name string, err error) *Error {
	e := &Error{Op: op, Path: path, Err: err}
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			errno = syscall.ENOENT
		case errors.Is(err, fs.ErrPermission):
			errno = syscall.EACCES
		case errors.Is(err, fs.ErrExist):
			errno = syscall.EEXIST
		case isRootEscape(err):
			e.Kind = kindChanged
			e.Msg = fmt.Sprintf("Path %s changed while it was used. Retry.", pyRepr(name))
			return e
		default:
			e.Kind = kindIOError
			e.Msg = fmt.Sprintf("I/O error on %s.", pyRepr(name))
			return e
		}
	}
	switch errno {
	case syscall.ENAMETOOLONG:
		e.Kind, e.Msg = kindNameTooLong, "The path name is too long."
		return e
	case syscall.ELOOP:
		e.Kind, e.Msg = kindSymlinkLoop, "The path resolves through a symlink loop."
		return e
	case syscall.EILSEQ:
		e.Kind, e.Msg = kindInvalidPath, "The path name contains a byte sequence the filesystem cannot represent."
		return e
	case syscall.ENOENT:
		e.Kind = kindNotFound
	case syscall.ENOTDIR:
		e.Kind = kindParentNotDirectory
	case syscall.EISDIR:
		e.Kind = kindNotAFile
	case syscall.EEXIST:
		e.Kind = kindAlreadyExists
	case syscall.ENOTEMPTY:
		e.Kind = kindDirectoryNotEmpty
	case syscall.EACCES, syscall.EPERM:
		e.Kind = kindPermissionDenied
	case syscall.ENXIO, syscall.ENODEV:
		e.Kind = kindNotRegularFile
	case syscall.ENOSPC, syscall.EDQUOT:
		e.Kind = kindNoSpace
	case syscall.EROFS:
		e.Kind = kindReadOnlyFilesystem
	case syscall.EINVAL:
		e.Kind = kindInvalidPath
	default:
		e.Kind = kindIOError
	}
	e.Msg = fmt.Sprintf("[Errno %d] %s: %s", int(errno), strerror(errno), pyRepr(name))
	return e
}

// strerror returns the C library's spelling of errno ("Permission denied"): Go's text with its
// first letter upper-cased.
func strerror(errno syscall.Errno) string {
	s := errno.Error()
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return strings.ToUpper(string(r)) + s[n:]
}

// isRootEscape reports whether err is os.Root's refusal of a path that leaves the root. It only
// happens when a component was swapped after resolution, so callers report
// changed_during_request.
func isRootEscape(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

// pyRepr quotes s the way Python's repr() quotes a str: single quotes unless s contains a single
// quote and no double quote, backslash escapes for the quote, backslash and control characters,
// \x, \u or \U escapes for other non-printable characters. Bytes that are not UTF-8 are shown as
// Python shows surrogate-escaped file names (\udcXX).
func pyRepr(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.WriteByte(quote)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			fmt.Fprintf(&b, `\udc%02x`, s[i])
			i++
			continue
		}
		i += n
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(quote):
			b.WriteByte('\\')
			b.WriteByte(quote)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case isPyPrintable(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte(quote)
	return b.String()
}

// isPyPrintable reports whether Python's str.isprintable holds for r: letters, marks, numbers,
// punctuation, symbols and the ASCII space (strconv.IsPrint uses the same categories).
func isPyPrintable(r rune) bool { return strconv.IsPrint(r) }
