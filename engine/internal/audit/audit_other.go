//go:build !unix

package audit

import "os"

// Open fails: the audit log needs O_APPEND descriptors and directory descriptors, which this
// platform does not offer fsbox.
func Open(o Options) (*Writer, error) { return nil, ErrUnsupported }

func writeOnce(fd int, b []byte) (int, error) { return 0, ErrUnsupported }
func syncData(fd int) error                   { return ErrUnsupported }
func (w *Writer) rotate() error               { return ErrUnsupported }
func (w *Writer) closeFDs() error             { return nil }

// IDOf returns false: this platform's file identities are not read here.
func IDOf(fi os.FileInfo) (FileID, bool) { return FileID{}, false }

func ancestorsOfFile(dir *os.File) map[FileID]bool { return nil }
