package conformance

import (
	"context"
	"errors"
	"strings"
)

// Failure classes: what kind of wrong a failure is, so a grade can tell a security hole from a
// different error text.
const (
	// ClassEscape: something changed outside the root or in a denied/protected place, or a call
	// that must be refused for containment went through.
	ClassEscape = "escape"
	// ClassLeak: a reply carried bytes of an outside file, a name from outside or a denied name,
	// or a host path.
	ClassLeak = "leak"
	// ClassWrongOutcome: success where failure was due or the other way round, or a wrong result.
	ClassWrongOutcome = "wrong_outcome"
	// ClassWrongKind: refused, but with another error kind, code or retry flag.
	ClassWrongKind = "wrong_kind"
	// ClassWording: the outcome and kind are right; the message or text shape is not.
	ClassWording = "wording"
	// ClassMissingFeature: the target lacks something the vector needed and did not say so.
	ClassMissingFeature = "missing_feature"
	// ClassCrash: the implementation exited, closed its output or spoke garbage.
	ClassCrash = "crash"
	// ClassTimeout: no answer within the call's or the vector's time.
	ClassTimeout = "timeout"
	// ClassRunner: the runner itself could not set the vector up (not the target's fault).
	ClassRunner = "runner"
)

// Failure is one reason a vector failed.
type Failure struct {
	Class   string `json:"class"`
	Message string `json:"message"`
	// Value is the whole offending value (a reply, a leaked string, a changed path), never a
	// truncated prefix; absent when the message says it all.
	Value any `json:"value,omitempty"`
}

// errorClass classifies an error a session returned for a call.
func errorClass(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded), strings.Contains(err.Error(), "deadline exceeded"):
		return ClassTimeout
	default:
		return ClassCrash
	}
}

// mismatchClass classifies one mismatch line of the matcher on an error or result: a kind, code
// or retry mismatch is wrong_kind, a message or text mismatch wording, anything else wrong_outcome.
func mismatchClass(line string) string {
	at, _, _ := strings.Cut(line, ": got")
	at, _, _ = strings.Cut(at, ": present")
	at, _, _ = strings.Cut(at, ": missing")
	for _, k := range []string{".kind", ".code", ".retry"} {
		if strings.HasSuffix(at, k) {
			return ClassWrongKind
		}
	}
	for _, k := range []string{".message", ".text", ".hint"} {
		if strings.HasSuffix(at, k) || strings.Contains(at, k+"[") {
			return ClassWording
		}
	}
	return ClassWrongOutcome
}

// securityKinds are the error kinds that refuse a call for containment or policy: a call
// expected to fail with one of these that succeeds is an escape, not just a wrong outcome.
var securityKinds = map[string]bool{"outside_root": true, "denied": true, "not_allowed": true,
	"protected": true, "permission_denied": true}

// policyKinds are the refusals that come from fsbox's configuration (patterns, permission rules),
// defaults included, rather than from containment.
var policyKinds = map[string]bool{"denied": true, "not_allowed": true, "protected": true, "permission_denied": true}
