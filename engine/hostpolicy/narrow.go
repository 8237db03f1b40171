package hostpolicy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fsbox/fsbox/schema"
)

// Error is a client configuration that would widen the host's policy. Field is the JSON
// name of the offending field; Msg, for the client, says what the host allows and never names
// the host's root.
type Error struct {
	Field string
	Msg   string
}

func (e *Error) Error() string { return e.Msg }

// Narrow returns the configuration of a session whose host fixed the policy to host (layers 1–3
// of [Merge]) and whose client asked for client in initialize, or an *Error for the first
// field that would widen host. The result is the session's layer, to be passed to engine.New
// with Options.Host set to host, which keeps host's patterns and rules in force underneath it.
// Field by field:
//
//   - root_dir: passed on; engine.New requires it to resolve inside the host's root (taken from
//     it when relative) and opens it through the host's root;
//   - cwd: the client's when set; else the host's, unless the client moved the root (the host's
//     cwd is relative to the host's root), in which case the new root itself;
//   - allowed_patterns, denied_patterns, protected_patterns, permissions: the client's, as a
//     layer of their own over the host's (so client allow rules cannot shadow a host deny, and a
//     client allow list is ANDed with the host's); an empty denied or protected list, which would
//     clear the host's, is refused while the host's list is non-empty;
//   - every limit of schema.Limits: at most the host's (its default when the host set none);
//   - tools: a subset of the tools the host enables (read_only applied); omitted, the host's;
//   - read_only: on when either is on;
//   - content_hashes: either way; hashes guard the client's own edits and widen no access;
//   - ignore_vcs: either way; ignore rules hide clutter, not secrets (read_file reaches an
//     ignored path anyway), so turning them off widens no access;
//   - allow_git_dirs: false always; true only when the host set it true (it lets the model
//     plant what git runs);
//   - show_dot_entries: off when either is off (a client may hide dot entries, not show what
//     the host hides);
//   - journal: the host's; a client may turn it on ({} or max_bytes) and lower max_bytes, never
//     choose its directory (journal.dir is refused);
//   - post_edit, post_edit_timeout, mounts: refused (RefuseHostOnly); the engine takes the hooks
//     and the mounts from the host's layer (mounts below a narrowed root appear at their paths
//     relative to it).
//
// Narrow protects the fields above; it does not stop a client from choosing a narrower policy
// that the host then finds too narrow.
func Narrow(host, client schema.Config) (schema.Config, error) {
	if err := RefuseHostOnly(client); err != nil {
		return schema.Config{}, err
	}
	if client.Journal != nil && client.Journal.Dir != "" {
		// The engine writes its journal there, outside the root: a client of a host that fixed
		// the policy must not choose where. (A client that configures everything, the SDK that
		// spawned fsbox, is the host and may.)
		return schema.Config{}, &Error{"journal.dir", "journal.dir: the journal's directory is a host path and comes only from the host's " +
			"configuration (fsbox serve --journal-dir or --config FILE); a client may set journal: {} or journal.max_bytes."}
	}
	out := schema.Config{
		RootDir:         client.RootDir,
		Cwd:             client.Cwd,
		AllowedPatterns: client.AllowedPatterns,
		DeniedPatterns:  client.DeniedPatterns,
		Tools:           host.Tools,
		ReadOnly:        host.ReadOnly || client.ReadOnly,
		ContentHashes:   host.ContentHashes,
		IgnoreVCS:       host.IgnoreVCS,
		ShowDotEntries:  host.ShowDotEntries,
		Permissions:     client.Permissions,
	}
	if client.ShowDotEntries != nil {
		if *client.ShowDotEntries && (host.ShowDotEntries == nil || !*host.ShowDotEntries) {
			return out, &Error{"show_dot_entries", "show_dot_entries: the host hides entries whose names start " +
				"with \".\". The host fixed the policy: a client may only hide more, not show them."}
		}
		out.ShowDotEntries = client.ShowDotEntries
	}
	if client.IgnoreVCS != nil {
		out.IgnoreVCS = client.IgnoreVCS
	}
	out.ProtectedPatterns = client.ProtectedPatterns
	out.AllowGitDirs = host.AllowGitDirs
	if client.AllowGitDirs != nil {
		if *client.AllowGitDirs && (host.AllowGitDirs == nil || !*host.AllowGitDirs) {
			return out, &Error{"allow_git_dirs", "allow_git_dirs: the host does not allow git directories. " +
				"The host fixed the policy: a client may only leave it off (false or omitted)."}
		}
		out.AllowGitDirs = client.AllowGitDirs
	}
	if out.Cwd == "" && client.RootDir == "" {
		out.Cwd = host.Cwd
	}
	if client.ContentHashes != nil {
		out.ContentHashes = client.ContentHashes
	}
	for _, l := range []struct {
		field         string
		client, host  *[]string
		defaultsEmpty bool
	}{
		{"denied_patterns", client.DeniedPatterns, host.DeniedPatterns, len(schema.DefaultDeniedPatterns) == 0},
		{"protected_patterns", client.ProtectedPatterns, host.ProtectedPatterns, len(schema.DefaultProtectedPatterns) == 0},
	} {
		hostEmpty := l.defaultsEmpty
		if l.host != nil {
			hostEmpty = len(*l.host) == 0
		}
		if l.client != nil && len(*l.client) == 0 && !hostEmpty {
			return out, &Error{l.field, fmt.Sprintf("%s: an empty list would clear the host's patterns. "+
				"The host fixed the policy: a client may only add patterns to the host's (omit the field to keep them).", l.field)}
		}
	}
	for _, l := range schema.Limits {
		ceiling := l.Default
		if v := *l.Field(&host); v != nil {
			ceiling = *v
		}
		v := *l.Field(&client)
		if v != nil && *v > ceiling {
			return out, &Error{l.Name, fmt.Sprintf("%s: %d is above the host's limit of %d. "+
				"The host fixed the policy: a client may only lower a limit.", l.Name, *v, ceiling)}
		}
		*l.Field(&out) = *l.Field(&host)
		if v != nil {
			*l.Field(&out) = v
		}
	}
	out.Journal = host.Journal
	if client.Journal != nil {
		// Turning the journal on widens no access; its bound may only come down.
		j := *client.Journal
		if host.Journal != nil {
			j.Dir = host.Journal.Dir
			if host.Journal.MaxBytes != nil {
				if j.MaxBytes != nil && *j.MaxBytes > *host.Journal.MaxBytes {
					return out, &Error{"journal.max_bytes", fmt.Sprintf("journal.max_bytes: %d is above the host's bound of %d. "+
						"The host fixed the policy: a client may only lower it.", *j.MaxBytes, *host.Journal.MaxBytes)}
				}
				if j.MaxBytes == nil {
					j.MaxBytes = host.Journal.MaxBytes
				}
			}
		}
		out.Journal = &j
	}
	if client.Tools != nil {
		allowed := hostTools(&host)
		var wider []string
		for _, n := range client.Tools {
			if known(n) && !slices.Contains(allowed, n) {
				wider = append(wider, n)
			}
		}
		if len(wider) > 0 {
			slices.Sort(wider)
			return out, &Error{"tools", fmt.Sprintf("tools: the host does not enable %s. "+
				"The host fixed the policy: a client may only choose among %s.", strings.Join(slices.Compact(wider), ", "), strings.Join(allowed, ", "))}
		}
		out.Tools = client.Tools
	}
	return out, nil
}

// RefuseHostOnly returns an *Error when a client's config sets a field only the host may
// set: post_edit and post_edit_timeout, whose commands run with the server's rights, and mounts,
// which would reach host directories outside the root. It applies
// whether or not the host fixed the policy: even an SDK that spawned fsbox configures hooks in
// the --config file, never over the wire, so nothing a client relays can start a process.
func RefuseHostOnly(client schema.Config) *Error {
	switch {
	case client.PostEdit != nil:
		return &Error{"post_edit", "post_edit: hooks run commands on the host and come only from the host's configuration " +
			"(fsbox serve --config FILE); a client cannot set them in initialize."}
	case client.PostEditTimeout != nil:
		return &Error{"post_edit_timeout", "post_edit_timeout: hooks come only from the host's configuration " +
			"(fsbox serve --config FILE); a client cannot set their timeout in initialize."}
	case client.Mounts != nil:
		return &Error{"mounts", "mounts: extra directories come only from the host's configuration " +
			"(fsbox serve --config FILE); a client cannot mount anything in initialize."}
	}
	return nil
}

// hostTools returns the tools a host configuration enables, in registration order.
func hostTools(host *schema.Config) []string {
	var out []string
	for _, t := range schema.Tools {
		on := t.Default
		if host.Tools != nil {
			on = slices.Contains(host.Tools, t.Name)
		}
		if on && (!host.ReadOnly || t.ReadOnly) {
			out = append(out, t.Name)
		}
	}
	return out
}

// known reports whether name is a tool of this server; unknown names are left to engine.New,
// which refuses them with the list of tools.
func known(name string) bool {
	return slices.ContainsFunc(schema.Tools, func(t schema.ToolSpec) bool { return t.Name == name })
}
