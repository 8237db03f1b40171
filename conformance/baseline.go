package conformance

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Baseline lists the vectors a target is known to fail, each with a reason. A listed vector that
// fails is "xfail" (the run still passes); one that passes is "xpass" and fails the run, so the
// list can only shrink; an entry that matches no vector at all is stale and fails the run too.
type Baseline struct {
	Name    string
	Entries []BaselineEntry
}

// BaselineEntry is one line: a vector id or a doublestar glob (at most 20 matches), then # reason.
// A reason that starts with "flaky:" marks a failure that does not happen on every run (a race in
// the implementation): the vector may then pass without failing the run. Use it only for races;
// everything else must be deterministic.
type BaselineEntry struct {
	Pattern string
	Reason  string
}

func (e BaselineEntry) flaky() bool { return strings.HasPrefix(e.Reason, "flaky:") }

// maxGlobMatches bounds what one glob entry may cover, so a baseline cannot hide a whole area.
const maxGlobMatches = 20

// ParseBaseline reads the baseline format: one entry per line, blank lines and lines starting with
// # ignored.
func ParseBaseline(name string, data []byte) (*Baseline, error) {
	b := &Baseline{Name: name}
	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		pat, reason, _ := strings.Cut(line, "#")
		pat = strings.TrimSpace(pat)
		if strings.ContainsAny(pat, " \t") {
			return nil, fmt.Errorf("%s:%d: one vector id or glob per line, then # reason", name, n)
		}
		if !doublestar.ValidatePattern(pat) {
			return nil, fmt.Errorf("%s:%d: bad glob %q", name, n, pat)
		}
		b.Entries = append(b.Entries, BaselineEntry{pat, strings.TrimSpace(reason)})
	}
	return b, sc.Err()
}

// LoadBaseline reads a baseline by embedded name ("inproc", "binding-python", …) or file path.
func LoadBaseline(nameOrPath string) (*Baseline, error) {
	if data, err := embedded.ReadFile("baselines/" + nameOrPath + ".txt"); err == nil {
		return ParseBaseline(nameOrPath, data)
	}
	data, err := os.ReadFile(nameOrPath)
	if err != nil {
		return nil, fmt.Errorf("baseline %q: neither an embedded baseline nor a readable file", nameOrPath)
	}
	return ParseBaseline(nameOrPath, data)
}

// apply marks results against the baseline and returns stale entries (see stale).
func (b *Baseline) apply(results []Result, all []*Vector) []string {
	for i := range results {
		b.mark(&results[i])
	}
	return b.stale(all)
}

// stale returns the entries matching no vector of the whole suite, and globs that match too many.
func (b *Baseline) stale(all []*Vector) []string {
	var stale []string
	for _, e := range b.Entries {
		n := 0
		for _, v := range all {
			if ok, _ := doublestar.Match(e.Pattern, v.ID); ok {
				n++
			}
		}
		switch {
		case n == 0:
			stale = append(stale, e.Pattern)
		case n > maxGlobMatches:
			stale = append(stale, fmt.Sprintf("%s (matches %d vectors, more than %d)", e.Pattern, n, maxGlobMatches))
		}
	}
	return stale
}

// mark turns a failure the baseline lists into xfail and a listed pass into xpass (unless flaky).
func (b *Baseline) mark(r *Result) {
	for _, e := range b.Entries {
		if ok, _ := doublestar.Match(e.Pattern, r.ID); !ok {
			continue
		}
		switch r.Status {
		case "fail":
			r.Status, r.Reason = "xfail", e.Reason
		case "pass":
			if !e.flaky() {
				r.Status, r.Reason = "xpass", e.Reason
			}
		}
		return
	}
}

// DefaultBaseline names the embedded baseline of a target spec: "inproc", "binding-<lang>", and
// for a server, "" (a third party's server brings its own, fsbox's is "server-fsbox").
func DefaultBaseline(target string) string {
	switch {
	case target == "inproc":
		return "inproc"
	case strings.HasPrefix(target, "binding:"):
		return "binding-" + strings.TrimPrefix(target, "binding:")
	}
	return ""
}
