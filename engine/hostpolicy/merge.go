package hostpolicy

import (
	"github.com/fsbox/fsbox/schema"
)

// Merge returns base with every field that over sets replacing base's. A field is set when it is
// non-nil, non-empty or true; so over cannot switch read_only back off, which keeps a host's
// read-only server read-only whatever a client asks.
//
// The layers of a session's configuration, lowest first (docs/protocol.md §3 has the same list):
//
//  1. the built-in defaults (schema.Limits, schema.DefaultDeniedPatterns,
//     schema.DefaultProtectedPatterns, the default tools);
//  2. the --config file, merged over them with Merge;
//  3. the command-line flags (--root, --cwd, --tools, --read-only), merged over that with Merge;
//  4. the config of initialize: when the host fixed the policy (server.Options.FixedPolicy: fsbox serve
//     was given --root, --config or another policy flag), it may only narrow 1–3, see [Narrow];
//     otherwise it is merged over them with Merge, so a bare fsbox serve lets its client
//     configure everything.
func Merge(base, over schema.Config) schema.Config {
	out := base
	setString(&out.RootDir, over.RootDir)
	setString(&out.Cwd, over.Cwd)
	setSlice(&out.AllowedPatterns, over.AllowedPatterns)
	setSlice(&out.Tools, over.Tools)
	setPtr(&out.DeniedPatterns, over.DeniedPatterns)
	setPtr(&out.ProtectedPatterns, over.ProtectedPatterns)
	for _, l := range schema.Limits {
		setPtr(l.Field(&out), *l.Field(&over))
	}
	setPtr(&out.ContentHashes, over.ContentHashes)
	setPtr(&out.IgnoreVCS, over.IgnoreVCS)
	setPtr(&out.AllowGitDirs, over.AllowGitDirs)
	setPtr(&out.ShowDotEntries, over.ShowDotEntries)
	setSlice(&out.PostEdit, over.PostEdit)
	setPtr(&out.PostEditTimeout, over.PostEditTimeout)
	setSlice(&out.Mounts, over.Mounts)
	if over.Journal != nil {
		// The directory is the host's (RefuseHostOnly refuses a client's): a client's journal
		// config turns the journal on or bounds it, in the host's directory.
		j := *over.Journal
		if base.Journal != nil && j.Dir == "" {
			j.Dir = base.Journal.Dir
		}
		out.Journal = &j
	}
	out.ReadOnly = base.ReadOnly || over.ReadOnly
	setSlice(&out.Permissions, over.Permissions)
	return out
}

func setString(dst *string, src string) {
	if src != "" {
		*dst = src
	}
}

func setSlice[T any](dst *[]T, src []T) {
	if src != nil {
		*dst = src
	}
}

func setPtr[T any](dst **T, src *T) {
	if src != nil {
		*dst = src
	}
}
