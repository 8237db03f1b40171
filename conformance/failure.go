package conformance

import (
	"context"
	"errors"
	"strings"
)

// Failure classes: what kind of wrong a failure is, by the evidence the runner saw, so a grade can
// tell a file changed outside the root from a refusal that merely did not look like one. The
// classes are listed in Severity, most severe first.
const (
	// ClassOutsideWrite: a file or directory outside the root was written, created or deleted
	// (the outside trees, the fake $HOME, the canary directory outside the temp directory, or a
	// stray file beside the root), or a call that must be refused changed the root anyway.
	ClassOutsideWrite = "outside_write"
	// ClassOutsideRead: a reply carried bytes of a file outside the root (the bytes are shown) or
	// the name of an entry there.
	ClassOutsideRead = "outside_read"
	// ClassHostPath: a reply named a host path the client did not send and could not know.
	ClassHostPath = "host_path"
	// ClassNotRefused: a call that containment or policy must refuse was not refused, yet no
	// effect was seen: nothing outside changed and no outside bytes or paths came back. Often a
	// server that reports failure in a shape the runner did not recognise as an error (see the
	// mapping's error_result); possibly a hole the vector could not observe.
	ClassNotRefused = "not_refused"
	// ClassCrash: the implementation exited, closed its output or broke the protocol.
	ClassCrash = "crash"
	// ClassTimeout: a hang: no answer within the call's or the vector's time.
	ClassTimeout = "hang"
	// ClassWrongOutcome: success where failure was due or the other way round, or a wrong result.
	ClassWrongOutcome = "wrong_outcome"
	// ClassWrongKind: refused, but with another error kind, code or retry flag.
	ClassWrongKind = "wrong_kind"
	// ClassWording: the outcome and kind are right; the message or text shape is not.
	ClassWording = "wording"
	// ClassMissingFeature: the target lacks something the vector needed and did not say so.
	ClassMissingFeature = "missing_feature"
	// ClassRunner: the runner itself could not set the vector up (not the target's fault).
	ClassRunner = "runner"
)

// Severity orders the failure classes, most severe first: effects outside the root, then what
// a reply revealed, then refusals that did not happen, then a target that stopped working, then
// what only the strict profile grades.
var Severity = []string{ClassOutsideWrite, ClassOutsideRead, ClassHostPath, ClassNotRefused, ClassCrash,
	ClassTimeout, ClassWrongOutcome, ClassWrongKind, ClassWording, ClassMissingFeature, ClassRunner}

// securityClasses are the classes that say something about containment.
var securityClasses = map[string]bool{ClassOutsideWrite: true, ClassOutsideRead: true, ClassHostPath: true, ClassNotRefused: true}

// severityRank is a class's position in Severity (unknown classes last).
func severityRank(class string) int {
	for i, c := range Severity {
		if c == class {
			return i
		}
	}
	return len(Severity)
}

// WorstClass is the most severe class among a result's failures ("" for none).
func (r Result) WorstClass() string {
	best := ""
	for _, f := range r.Details {
		if best == "" || severityRank(f.Class) < severityRank(best) {
			best = f.Class
		}
	}
	return best
}

// Failure is one reason a vector failed.
type Failure struct {
	Class   string `json:"class"`
	Message string `json:"message"`
	// Value is the offending value (a reply, a leaked string, a changed path); a value longer than
	// maxValueBytes as JSON is replaced by an excerpt that says it was truncated (boundValue).
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
// expected to fail with one of these that succeeds is not_refused (or worse, when an effect is
// seen), not just a wrong outcome.
var securityKinds = map[string]bool{"outside_root": true, "denied": true, "not_allowed": true,
	"protected": true, "permission_denied": true}

// policyKinds are the refusals that come from fsbox's configuration (patterns, permission rules),
// defaults included, rather than from containment.
var policyKinds = map[string]bool{"denied": true, "not_allowed": true, "protected": true, "permission_denied": true}
