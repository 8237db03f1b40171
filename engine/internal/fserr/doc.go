// Package fserr is the engine's error: the Error type every tool call fails with, its kinds (the
// schema package's ErrorKind constants, the one source), the mapping of operating-system errors to
// kinds (FromOS), the hints for paths written for another system (ForeignPath), and the wording
// of model-facing messages (PyRepr quotes names the way Python's repr does, Shorten cuts long
// spellings).
//
// It protects against host details reaching the model: Msg is built from the model's own
// spelling or a root-relative path, the underlying cause (which may name host paths) stays in Err
// and out of Error's text, and OutsidePlaceholder stands for any host path outside the root. It
// does not decide which path a message may show; the caller passes it, and the engine's
// resolution decides what is root-relative.
package fserr
