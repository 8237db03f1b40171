package fserr

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

// OutsidePlaceholder replaces every host path outside the root in model-facing text.
const OutsidePlaceholder = "<outside-workspace>"

// Errorf builds an *Error with a formatted model-facing message.
func Errorf(op, path string, kind schema.ErrorKind, format string, args ...any) *Error {
	return &Error{Op: op, Path: path, Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// FromOS turns an operating-system error into an *Error. name is what the message may show for
// the file (the model's spelling or a root-relative path, never an absolute host path); path is
// the root-relative path for Error.Path. The errno decides the kind; the message follows the
// pydantic-ai-harness's "[Errno N] Strerror: 'name'" form for the kinds without a dedicated text, and the
// path-free texts for ENAMETOOLONG, ELOOP and EILSEQ.
func FromOS(op, path, name string, err error) *Error {
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
		case IsRootEscape(err):
			e.Kind = schema.KindChangedDuringRequest
			e.Msg = fmt.Sprintf("Path %s changed while it was used. Retry.", PyRepr(name))
			return e
		default:
			e.Kind = schema.KindIOError
			e.Msg = fmt.Sprintf("I/O error on %s.", PyRepr(name))
			return e
		}
	}
	switch errno {
	case syscall.ENAMETOOLONG:
		e.Kind, e.Msg = schema.KindNameTooLong, "The path name is too long."
		return e
	case syscall.ELOOP:
		e.Kind, e.Msg = schema.KindSymlinkLoop, "The path resolves through a symlink loop."
		return e
	case syscall.EILSEQ:
		e.Kind, e.Msg = schema.KindInvalidPath, "The path name contains a byte sequence the filesystem cannot represent."
		return e
	default:
		kind, ok := errnoKinds[errno]
		if !ok {
			kind = schema.KindIOError
		}
		e.Kind = kind
	}
	e.Msg = fmt.Sprintf("[Errno %d] %s: %s", int(errno), strerror(errno), PyRepr(name))
	return e
}

// errnoKinds maps the errnos whose message is "[Errno N] Strerror: 'name'" to their kinds; any
// errno not listed (and not one FromOS words itself) is io_error.
var errnoKinds = map[syscall.Errno]schema.ErrorKind{
	syscall.ENOENT:    schema.KindNotFound,
	syscall.ENOTDIR:   schema.KindParentNotDirectory,
	syscall.EISDIR:    schema.KindNotAFile,
	syscall.EEXIST:    schema.KindAlreadyExists,
	syscall.ENOTEMPTY: schema.KindDirectoryNotEmpty,
	syscall.EACCES:    schema.KindPermissionDenied,
	syscall.EPERM:     schema.KindPermissionDenied,
	syscall.ENXIO:     schema.KindNotRegularFile,
	syscall.ENODEV:    schema.KindNotRegularFile,
	syscall.ENOSPC:    schema.KindNoSpace,
	syscall.EDQUOT:    schema.KindNoSpace,
	syscall.EROFS:     schema.KindReadOnlyFilesystem,
	syscall.EINVAL:    schema.KindInvalidPath,
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

// IsRootEscape reports whether err is os.Root's refusal of a path that leaves the root. It only
// happens when a component was swapped after resolution, so callers report
// changed_during_request.
func IsRootEscape(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

// PyRepr quotes s the way Python's repr() quotes a str: single quotes unless s contains a single
// quote and no double quote, backslash escapes for the quote, backslash and control characters,
// \x, \u or \U escapes for other non-printable characters. Bytes that are not UTF-8 are shown as
// Python shows surrogate-escaped file names (\udcXX).
func PyRepr(s string) string {
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

// Config is the *Error of a bad configuration: op "new", kind invalid_arguments, the message
// naming the field.
func Config(format string, args ...any) *Error {
	return Errorf("new", "", schema.KindInvalidArguments, format, args...)
}
