package engine

import (
	"fmt"
	"strings"

	"github.com/fsbox/fsbox/engine/internal/fserr"
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
			return fserr.Errorf(name, "", schema.KindUnknownTool, "Tool %s is not available: this session is read-only. Available: %s.", fserr.PyRepr(name), available)
		}
		how := "the host enables it by adding it to the config's tools (tools: [..., " + fmt.Sprintf("%q", name) + "])"
		kind := "is not enabled in this session"
		if !t.Default {
			kind = "is opt-in and not enabled in this session"
		}
		return fserr.Errorf(name, "", schema.KindUnknownTool, "Tool %s %s; %s. Available: %s.", fserr.PyRepr(name), kind, how, available)
	}
	best := schema.Suggest(name, e.tools) // the one "did you mean" of fsbox, as for argument names
	if best != "" {
		return fserr.Errorf(name, "", schema.KindUnknownTool, "Unknown tool %s. Did you mean %s? Available: %s.", fserr.PyRepr(name), fserr.PyRepr(best), available)
	}
	return fserr.Errorf(name, "", schema.KindUnknownTool, "Unknown tool %s. Available: %s.", fserr.PyRepr(name), available)
}
