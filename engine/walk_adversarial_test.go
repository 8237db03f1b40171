package engine

import (
	"testing"

	"github.com/fsbox/fsbox/schema"
)

// The walkers join the core's adversarial path table (adversarial_test.go) as path-taking tools:
// a hostile walk root must fail with the same kind a read fails with, a file root is
// not_a_directory (search_files searches it instead), and "." and the empty (= omitted) path
// walk the working directory.
func init() {
	adversarialTools = append(adversarialTools,
		pathTool{name: "list_directory", args: pathArg(nil), expect: walkRootKind(false)},
		pathTool{name: "find_files", args: pathArg(map[string]any{"pattern": "**"}), expect: walkRootKind(false)},
		pathTool{name: "search_files", args: pathArg(map[string]any{"pattern": "secret"}), expect: walkRootKind(true)},
	)
}

// pathArg returns an args function adding "path" to extra.
func pathArg(extra map[string]any) func(p string) map[string]any {
	return func(p string) map[string]any {
		args := map[string]any{"path": p}
		for k, v := range extra {
			args[k] = v
		}
		return args
	}
}

// walkRootKind is the kind a walk rooted at case c's path fails with (ok: succeeds).
func walkRootKind(filesOK bool) func(c adversarialCase, _ schema.ErrorKind) schema.ErrorKind {
	return func(c adversarialCase, _ schema.ErrorKind) schema.ErrorKind {
		switch {
		case c.name == "root itself" || c.name == "empty":
			return ok
		case c.kind == ok && filesOK:
			return ok
		case c.kind == ok:
			return schema.KindNotADirectory
		}
		return c.kind
	}
}

// TestAdversarialPaths_OptInWalkers runs the table through the opt-in walkers, which the core
// table's default configuration does not enable: directory_tree like list_directory, and
// read_multiple_files reporting in its item exactly what read_file would fail with.
func TestAdversarialPaths_OptInWalkers(t *testing.T) {
	for _, c := range adversarialCases {
		t.Run(c.name, func(t *testing.T) {
			fx := makeFixture(t, adversarialFixture...)
			e := fx.engine(allWalkers(schema.Config{}))
			before := snapshot(t, fx.outside)
			p := fx.expand(c.path)

			want := walkRootKind(false)(c, "")
			res, err := tryCall(t, e, "directory_tree", map[string]any{"path": p}, Hooks{})
			checkKind(t, "directory_tree", c.path, want, err)
			assertNoHostPath(t, fx, resultText(res), p)
			if err != nil {
				assertNoHostPath(t, fx, err.Msg, p)
			}

			want = c.kind
			if k, has := c.per["read_file"]; has {
				want = k
			}
			var rec recorder
			res, err = tryCall(t, e, "read_multiple_files", map[string]any{"paths": []string{p, "hello.txt"}}, rec.hooks(false))
			if err != nil {
				t.Fatalf("read_multiple_files failed as a whole: %v", err)
			}
			items := res.(*schema.ReadMultipleFilesResult).Files
			var got *Error
			if items[0].Error != nil {
				got = &Error{Kind: items[0].Error.Kind, Msg: items[0].Error.Message}
			}
			checkKind(t, "read_multiple_files", c.path, want, got)
			if items[1].Result == nil {
				t.Errorf("read_multiple_files: the second, good path failed: %+v", items[1].Error)
			}
			assertNoHostPath(t, fx, resultText(res), p)
			if after := snapshot(t, fx.outside); after != before {
				t.Errorf("the outside directory changed")
			}
		})
	}
}

func checkKind(t *testing.T, tool, path string, want schema.ErrorKind, err *Error) {
	t.Helper()
	switch {
	case want == ok && err != nil:
		t.Errorf("%s(%q) = %s (%q); want success", tool, path, err.Kind, err.Msg)
	case want != ok && err == nil:
		t.Errorf("%s(%q) = success; want %s", tool, path, want)
	case want != ok && err.Kind != want:
		t.Errorf("%s(%q) = %s (%q); want %s", tool, path, err.Kind, err.Msg, want)
	}
}
