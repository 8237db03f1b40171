package engine

import (
	"fmt"
	"strings"

	"github.com/fsbox/fsbox/schema"
)

// unknownTool is the unknown_tool error for a name that is not an enabled tool. The message says
// what to do next:
//
//  1. a tool that exists but is off because the session is read-only says so;
//  2. a tool that exists but is not enabled (opt-in, like directory_tree, or left out of tools)
//     says how the host enables it: by listing it in the config's tools;
//  3. a near miss of an enabled tool's name (edit distance 2 or less, e.g. read_files) gets
//     "Did you mean …?";
//
// and every message lists the enabled tools.
func (e *Engine) unknownTool(name string) *Error {
	available := strings.Join(e.tools, ", ")
	for _, t := range schema.Tools {
		if t.Name != name {
			continue
		}
		if e.cfg.ReadOnly && !t.ReadOnly {
			return errorf(name, "", kindUnknownTool, "Tool %s is not available: this session is read-only. Available: %s.", pyRepr(name), available)
		}
		how := "the host enables it by adding it to the config's tools (tools: [..., " + fmt.Sprintf("%q", name) + "])"
		kind := "is not enabled in this session"
		if !t.Default {
			kind = "is opt-in and not enabled in this session"
		}
		return errorf(name, "", kindUnknownTool, "Tool %s %s; %s. Available: %s.", pyRepr(name), kind, how, available)
	}
	best, bestDist := "", 3
	for _, t := range e.tools {
		if d := editDistance(name, t); d < bestDist {
			best, bestDist = t, d
		}
	}
	if best != "" {
		return errorf(name, "", kindUnknownTool, "Unknown tool %s. Did you mean %s? Available: %s.", pyRepr(name), pyRepr(best), available)
	}
	return errorf(name, "", kindUnknownTool, "Unknown tool %s. Available: %s.", pyRepr(name), available)
}

// editDistance is the Levenshtein distance between a and b, in bytes; names longer than 64 bytes
// are not compared (distance 64), which bounds the work for a hostile name.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
