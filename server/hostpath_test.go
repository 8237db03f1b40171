package server

import (
	"os/user"
	"path/filepath"
	"strings"
	"testing"
)

// TestExpandHostPath covers "~", "~/x", "~user/x", $VAR, ${VAR}, "$$", and that an unset
// variable or unknown user is an error rather than an empty expansion.
func TestExpandHostPath(t *testing.T) {
	t.Setenv("HOME", "/home/tester")
	t.Setenv("FSBOX_WS", "/srv/ws")
	t.Setenv("FSBOX_EMPTY", "")
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{"~", "/home/tester"},
		{"~/", "/home/tester"},
		{"~/proj/a", "/home/tester/proj/a"},
		{"~" + me.Username + "/x", filepath.Join(me.HomeDir, "x")},
		{"$FSBOX_WS/src", "/srv/ws/src"},
		{"${FSBOX_WS}x", "/srv/wsx"},
		{"a$${FSBOX_WS}", "a${FSBOX_WS}"},
		{"/p/$FSBOX_EMPTY/q", "/p//q"},
		{"~/$FSBOX_WS", "/home/tester//srv/ws"},
		{"/plain/path", "/plain/path"},
		{"rel/a~b", "rel/a~b"},
	} {
		got, err := ExpandHostPath(c.in)
		if err != nil || got != c.want {
			t.Errorf("ExpandHostPath(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"$FSBOX_UNSET_VAR/x", "FSBOX_UNSET_VAR is not set"},
		{"${FSBOX_UNSET_VAR}", "FSBOX_UNSET_VAR is not set"},
		{"~no-such-user-fsbox/x", `no user "no-such-user-fsbox"`},
	} {
		got, err := ExpandHostPath(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ExpandHostPath(%q) = %q, %v; want an error saying %q", c.in, got, err, c.want)
		}
	}
	t.Setenv("HOME", "")
	if got, err := ExpandHostPath("~/x"); err == nil {
		t.Errorf("ExpandHostPath(~/x) with HOME empty = %q; want an error", got)
	}
}
