package engine

import (
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// unknown_tool says what to do next: an opt-in tool names how to enable it, a read-only session
// says why a writing tool is off, and a near miss gets "Did you mean".
func TestUnknownToolSaysWhatToDo(t *testing.T) {
	fx := makeFixture(t, "a.txt: x")
	e := fx.engine(schema.Config{})
	ro := fx.engine(schema.Config{ReadOnly: true})
	for _, c := range []struct {
		e          *Engine
		name, want string
	}{
		{e, "directory_tree", `Tool 'directory_tree' is opt-in and not enabled in this session; the host enables it by adding it to the config's tools (tools: [..., "directory_tree"]).`},
		{e, "read_multiple_files", `is opt-in and not enabled`},
		{ro, "write_file", `Tool 'write_file' is not available: this session is read-only.`},
		{e, "read_files", `Unknown tool 'read_files'. Did you mean 'read_file'?`},
		{e, "edit_fille", `Did you mean 'edit_file'?`},
		{e, "ReadFile", `Did you mean 'read_file'?`},
		{e, "rm_rf", `Unknown tool 'rm_rf'. Available: read_file,`},
		{e, strings.Repeat("x", 10000), `Unknown tool 'xxx`},
	} {
		_, err := tryCall(t, c.e, c.name, map[string]any{}, Hooks{})
		wantKind(t, c.name, err, schema.KindUnknownTool)
		if err != nil && !strings.Contains(err.Msg, c.want) {
			t.Errorf("%.20s: message %q lacks %q", c.name, err.Msg, c.want)
		}
		if err != nil && c.name == "rm_rf" && strings.Contains(err.Msg, "Did you mean") {
			t.Errorf("rm_rf: a far name got a suggestion: %q", err.Msg)
		}
	}
}
