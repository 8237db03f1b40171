// Package sdks carries the hand-written sources of the SDKs (the transports, clients and error
// types beside each SDK's generated files) inside the fsbox binary, so `fsbox gen --lang L --out
// DIR` can write a complete, buildable package from the released binary alone, with no checkout.
//
// It holds bytes only and imports nothing of ours (layout rule 21); cmd/fsbox is its one importer.
// It does not protect against an SDK whose hand-written part imports a file left out here: the
// test in cmd/fsbox builds every package gen writes, from a built binary in an empty directory.
package sdks

import (
	"embed"
	"io/fs"
	"sort"
)

//go:embed go/fsboxclient/client.go go/fsboxclient/transport.go
//go:embed python/src/fsbox/__init__.py python/src/fsbox/client.py python/src/fsbox/_transport.py
//go:embed python/src/fsbox/_wire.py python/src/fsbox/errors.py python/src/fsbox/py.typed
//go:embed typescript/src/client.ts typescript/src/transport.ts typescript/src/errors.ts
//go:embed typescript/src/index.ts typescript/src/version.ts
//go:embed rust/Cargo.toml rust/README.md rust/src/lib.rs rust/src/client.rs rust/src/error.rs rust/src/base64.rs
var files embed.FS

// HandWritten returns the embedded hand-written files of lang ("go", "python", "typescript",
// "rust"), keyed by their slash-separated path under sdks/, sorted by path.
func HandWritten(lang string) (map[string][]byte, []string) {
	dir := map[string]string{"go": "go", "python": "python", "typescript": "typescript", "rust": "rust"}[lang]
	out := map[string][]byte{}
	var paths []string
	if dir == "" {
		return out, nil
	}
	_ = fs.WalkDir(files, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		out[p] = b
		paths = append(paths, p)
		return nil
	})
	sort.Strings(paths)
	return out, paths
}
