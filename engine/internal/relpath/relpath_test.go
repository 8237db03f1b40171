package relpath

import (
	"slices"
	"testing"
)

// TestAlgebra pins the path algebra the engine's resolution relies on: "." is the root, "" and
// "." components vanish while ".." is kept for the resolver, Clean refuses to leave the root
// (""), and Parent, Ancestors and Child agree with each other.
func TestAlgebra(t *testing.T) {
	if got := Split("/a//./b/../c/"); !slices.Equal(got, []string{"a", "b", "..", "c"}) {
		t.Errorf("Split = %q", got)
	}
	if Join(nil) != "." || Join([]string{"a", "b"}) != "a/b" {
		t.Errorf("Join: %q %q", Join(nil), Join([]string{"a", "b"}))
	}
	for in, want := range map[string]string{"a/b/../c": "a/c", "a/..": ".", "..": "", "a/../../b": "", "./a/./b": "a/b"} {
		if got := Clean(Split(in)); got != want {
			t.Errorf("Clean(%q) = %q; want %q", in, got, want)
		}
	}
	for in, want := range map[string][2]string{".": {".", "."}, "a": {".", "a"}, "a/b/c": {"a/b", "c"}} {
		if d, n := Parent(in); d != want[0] || n != want[1] {
			t.Errorf("Parent(%q) = %q %q; want %q", in, d, n, want)
		}
	}
	if got := Ancestors("a/b/c"); !slices.Equal(got, []string{"a", "a/b"}) || Ancestors(".") != nil {
		t.Errorf("Ancestors = %q, %q", got, Ancestors("."))
	}
	if Child(".", "x") != "x" || Child("a/b", "x") != "a/b/x" {
		t.Errorf("Child: %q %q", Child(".", "x"), Child("a/b", "x"))
	}
	if rest, ok := CutPrefix([]string{"r", "o", "a"}, []string{"r", "o"}); !ok || !slices.Equal(rest, []string{"a"}) {
		t.Errorf("CutPrefix = %q %v", rest, ok)
	}
	if _, ok := CutPrefix([]string{"r"}, []string{"r", "o"}); ok {
		t.Errorf("CutPrefix of a shorter path succeeded")
	}
	if HasMore([]string{"", "."}) || !HasMore([]string{".", "x"}) {
		t.Errorf("HasMore")
	}
	if MaxComponents*2 != MaxBytes {
		t.Errorf("MaxComponents (%d) is not the most a MaxBytes (%d) path holds", MaxComponents, MaxBytes)
	}
}
