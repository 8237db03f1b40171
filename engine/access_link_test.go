package engine

import (
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// TestRefusalViaLinkHidesTarget reads a denied file through an in-root symlink (final and
// intermediate) with every policy kind: the error names only the spelled path, never the
// target's name or the host's pattern; a direct spelling still names path and pattern.
func TestRefusalViaLinkHidesTarget(t *testing.T) {
	fx := makeFixture(t, "private/payroll.xlsx: SALARIES\n", "report => private/payroll.xlsx", "docs => private", "ok.txt: ok\n")
	configs := []schema.Config{
		{DeniedPatterns: &[]string{"private/**"}},
		{AllowedPatterns: []string{"report", "docs", "docs/*", "ok.txt"}},
	}
	for _, cfg := range configs {
		e := fx.engine(cfg)
		for _, p := range []string{"report", "docs/payroll.xlsx"} {
			_, err := tryCall(t, e, "read_file", map[string]any{"path": p}, Hooks{})
			if err == nil {
				t.Fatalf("%+v: read_file %s succeeded", cfg, p)
			}
			for _, bad := range []string{"payroll", "private", "pattern", "SALARIES"} {
				if strings.Contains(err.Msg, bad) && !strings.Contains(p, bad) || strings.Contains(err.Path, "private") {
					t.Errorf("%+v: read_file %s: %q (path %q) reveals %q", cfg, p, err.Msg, err.Path, bad)
				}
			}
			if err.Path != p {
				t.Errorf("read_file %s: data.path = %q, want the spelled path", p, err.Path)
			}
		}
	}
	e := fx.engine(configs[0])
	_, err := tryCall(t, e, "read_file", map[string]any{"path": "private/payroll.xlsx"}, Hooks{})
	if err == nil || err.Msg != "Path 'private/payroll.xlsx' is denied by pattern 'private/**'." {
		t.Errorf("direct spelling: %v, want the path and pattern named", err)
	}
}
