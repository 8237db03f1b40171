package engine

import (
	"context"
	"strconv"
	"strings"

	"github.com/fsbox/fsbox/engine/internal/ignore"
)

// The work budget. The output budget (budget.go) and the entry caps bound what a walker shows,
// not what it does to find it: a find_files pattern whose "**" and alternatives multiply the
// walk, a walk over a huge tree that matches nothing, or an entry checked against thousands of
// ignore patterns can run for minutes. So every walker (list_directory, directory_tree,
// find_files, list_files, search_files, grep) counts its work in units against maxWalkWork:
//
//  1. one unit per directory listed, per entry looked at, per lookup of a path by name
//     (find_files: doublestar's Stat and Open) and per ignore pattern an entry is checked against
//     (engine/internal/ignore); a glob match (find_files' pattern against each entry listed and
//     each match, list_files' and grep's glob, search_files' include_glob) counts matchUnits,
//     which grow with the glob's expansion and the name's length (budget_pattern.go);
//  2. when the units run out the walk stops where it is; the result so far is returned, marked
//     truncated, and its text ends with "[... walk cut short after N units of work (lookups and
//     matches); <how to narrow>]", naming arguments of the same tool;
//  3. the same counter notices cancellation ($/cancel_request, the connection closing, a
//     deadline): it looks at the call's context every workTick units, so a walk stops within
//     microseconds of a cancel even where no other check runs (doublestar's expansion of
//     alternatives collects matches before the callback sees one). A cancelled call is answered
//     with its cancellation, not a partial result.
//
// It does not bound the content scan of search_files and grep (each file is bounded by
// maxSearchFileBytes, and the scan checks the context per line) nor the work of a single
// glob match (pattern bounds, budget_pattern.go, do that).

// maxWalkWork is the units one call may spend (rule 1): a walk over a tree of a million entries
// fits, with its matches. A variable so tests can lower it.
var maxWalkWork = 4_000_000

// workTick is how many units pass between two looks at the call's context (rule 3).
const workTick = 256

// workBudget counts one call's units. It is used by one goroutine, the walk's.
type workBudget struct {
	ctx   context.Context
	left  int
	tick  int
	over  bool // the units ran out (rule 2)
	ended bool // the call's context ended (rule 3)
}

func newWorkBudget(ctx context.Context) *workBudget {
	return &workBudget{ctx: ctx, left: maxWalkWork}
}

// Spend counts n units and reports whether the walk may go on.
func (w *workBudget) Spend(n int) bool {
	if w.over || w.ended {
		return false
	}
	if w.left -= n; w.left < 0 {
		w.over = true
		return false
	}
	if w.tick += n; w.tick >= workTick {
		w.tick = 0
		if w.ctx.Err() != nil {
			w.ended = true
			return false
		}
	}
	return true
}

// live reports whether the walk may go on: the units are not spent and the context had not
// ended when spend last looked (every workTick units).
func (w *workBudget) live() bool { return !w.over && !w.ended }

// workLine is rule 2's notice; narrow names the arguments that ask for less.
func workLine(narrow string) string {
	return "[... walk cut short after " + strconv.Itoa(maxWalkWork) + " units of work (lookups and matches); " + narrow + "]"
}

// endWork appends the notices of a walk's work budget and of its ignore rules (ignore.go) to
// b, and reports whether the walk was cut short, which marks the result truncated.
func endWork(b *strings.Builder, w *workBudget, load *ignore.Load, narrow string) bool {
	if w.over {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(workLine(narrow))
	}
	if line := load.Notice(); line != "" {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(line)
	}
	return w.over
}
