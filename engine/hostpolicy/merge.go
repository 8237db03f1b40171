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
	if over.DeniedPatterns != nil {
		out.DeniedPatterns = over.DeniedPatterns
	}
	if over.ProtectedPatterns != nil {
		out.ProtectedPatterns = over.ProtectedPatterns
	}
	for _, l := range schema.Limits {
		if v := *l.Field(&over); v != nil {
			*l.Field(&out) = v
		}
	}
	if over.ContentHashes != nil {
		out.ContentHashes = over.ContentHashes
	}
	if over.IgnoreVCS != nil {
		out.IgnoreVCS = over.IgnoreVCS
	}
	if over.AllowGitDirs != nil {
		out.AllowGitDirs = over.AllowGitDirs
	}
	if over.ShowDotEntries != nil {
		out.ShowDotEntries = over.ShowDotEntries
	}
	if over.PostEdit != nil {
		out.PostEdit = over.PostEdit
	}
	if over.PostEditTimeout != nil {
		out.PostEditTimeout = over.PostEditTimeout
	}
	if over.Mounts != nil {
		out.Mounts = over.Mounts
	}
	out.ReadOnly = base.ReadOnly || over.ReadOnly
	if over.Permissions != nil {
		out.Permissions = over.Permissions
	}
	return out
}

func setString(dst *string, src string) {
	if src != "" {
		*dst = src
	}
}

func setSlice(dst *[]string, src []string) {
	if src != nil {
		*dst = src
	}
}
