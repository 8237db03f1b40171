package server

import "github.com/fsbox/fsbox/schema"

// Merge returns base with every field that over sets replacing base's. A field is set when it is
// non-nil, non-empty or true; so over cannot switch read_only back off, which keeps a host's
// read-only server read-only whatever a client asks.
func Merge(base, over schema.Config) schema.Config {
	out := base
	setString(&out.RootDir, over.RootDir)
	setString(&out.Cwd, over.Cwd)
	setSlice(&out.AllowedPatterns, over.AllowedPatterns)
	setSlice(&out.DeniedPatterns, over.DeniedPatterns)
	setSlice(&out.Tools, over.Tools)
	if over.ProtectedPatterns != nil {
		out.ProtectedPatterns = over.ProtectedPatterns
	}
	for _, p := range []struct{ dst, src **int }{
		{&out.MaxReadLines, &over.MaxReadLines}, {&out.MaxReadChars, &over.MaxReadChars},
		{&out.MaxListResults, &over.MaxListResults}, {&out.MaxSearchResults, &over.MaxSearchResults},
		{&out.MaxFindResults, &over.MaxFindResults}, {&out.MaxOutputChars, &over.MaxOutputChars},
	} {
		if *p.src != nil {
			*p.dst = *p.src
		}
	}
	if over.ContentHashes != nil {
		out.ContentHashes = over.ContentHashes
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
