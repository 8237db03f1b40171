package engine

import "github.com/fsbox/fsbox/engine/internal/fserr"

// Error is the error every Engine method returns: the fserr package's type (fields, Is, Retry and
// the message rules are documented there). Messages are built with fserr.Errorf, fserr.FromOS
// and fserr.PyRepr; kinds are the schema package's constants (schema.Kind*), the one source.
type Error = fserr.Error
