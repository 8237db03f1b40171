package conformance

import (
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// canarySet is what must never appear in a reply: the bytes of the outside trees' files and the
// names of their entries. Both profiles check it.
type canarySet struct {
	contents []string // distinctive lines of outside files
	names    []string // outside entry names the model has no other way to know
}

type canaryHit struct {
	what  string
	value string
}

// canaries collects the vector's canaries. A line or name that the workspace itself holds
// (content, entry path or symlink target) is no canary: seeing it proves nothing.
func (f *Fixture) canaries(v *Vector) canarySet {
	outside := append(append([]Entry{}, defaultOutside...), v.Outside...)
	// The fake home's and far tree's bytes are canaries; of their names only the distinctive
	// ones (".ssh" is named by fsbox's own default policy, which the schema shows).
	var contentOnly []Entry
	for _, e := range append(append([]Entry{}, homeCanaries...), farCanaries...) {
		e.Path = path.Base(e.Path)
		if e.Path == ".ssh" {
			continue
		}
		contentOnly = append(contentOnly, e)
	}
	outside = append(outside, contentOnly...)
	var inside strings.Builder
	// The mounted tree is inside too: the model sees it at its mount point.
	for _, e := range append(append([]Entry{}, v.Workspace...), v.Mounted...) {
		inside.WriteString(e.Path + "\n")
		if e.Symlink != nil {
			inside.WriteString(*e.Symlink + "\n")
		}
		if b, err := e.Bytes(); err == nil {
			inside.Write(b)
			inside.WriteString("\n")
		}
	}
	in := inside.String()
	var c canarySet
	seen := map[string]bool{}
	for _, e := range outside {
		if b, err := e.Bytes(); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				line = strings.TrimSpace(line)
				if len(line) >= 6 && !strings.Contains(in, line) && !seen[line] {
					seen[line] = true
					c.contents = append(c.contents, line)
				}
			}
		}
		for _, name := range strings.Split(e.Path, "/") {
			if len(name) >= 4 && !strings.Contains(in, name) && !seen["name:"+name] {
				seen["name:"+name] = true
				c.names = append(c.names, name)
			}
		}
	}
	return c
}

// find returns the canaries that appear in v's strings and not in what the client sent.
func (c canarySet) find(v any, sent []string) []canaryHit {
	all := strings.Join(sent, "\n")
	var out []canaryHit
	for _, s := range stringsIn(v) {
		for _, line := range c.contents {
			if strings.Contains(s, line) && !strings.Contains(all, line) {
				out = append(out, canaryHit{"bytes of a file outside the root (" + quoteShort([]byte(line)) + ")", around(s, line, 600)})
			}
		}
		for _, name := range c.names {
			if strings.Contains(s, name) && !strings.Contains(all, name) {
				out = append(out, canaryHit{"the name of an entry outside the root (" + name + ")", around(s, name, 600)})
			}
		}
	}
	return out
}

// securityLeaks returns the reply strings that name a host path the client could not already
// know. Known are: the strings it sent and their lexical resolutions (against the root for
// relative ones), the root itself (a server that takes its directory on the command line and
// announces it, as MCP servers do, tells the model nothing new), and where the workspace's own
// symlinks point, resolved lexically (their targets are data inside the root). What remains and
// still names a path below the fixture's base is a leak: typically the resolved location of
// something outside that no request spelled.
func (f *Fixture) securityLeaks(v any, sent []string, vec *Vector) []string {
	known := map[string]bool{f.Root: true, f.RealBase + "/ws": true}
	addPath := func(p string) {
		if p == "" {
			return
		}
		known[p] = true
		if !path.IsAbs(p) {
			p = f.Root + "/" + p
		}
		known[path.Clean(p)] = true
		if strings.HasSuffix(p, "/") {
			known[strings.TrimSuffix(path.Clean(p), "/")] = true
		}
	}
	for _, s := range sent {
		for _, v := range sentForms(s) {
			addPath(v)
		}
	}
	link := func(e Entry) {
		if e.Symlink != nil {
			t := f.Expand(*e.Symlink)
			if !filepath.IsAbs(t) {
				t = path.Join(path.Dir(f.Root+"/"+e.Path), t)
			}
			known[path.Clean(t)] = true
		}
	}
	for _, e := range vec.Workspace {
		link(e)
	}
	var steps func([]Step)
	steps = func(list []Step) {
		for _, st := range list {
			for _, op := range st.FS {
				link(op.Entry)
			}
			for _, a := range st.Answers {
				for _, op := range a.FS {
					link(op.Entry)
				}
				steps(a.Calls)
			}
		}
	}
	steps(vec.Steps)
	var ks []string
	for k := range known {
		if f.namesHost(k) {
			ks = append(ks, k)
		}
	}
	// Longest first, each removed only where it ends at a path boundary, so the root /x/ws does
	// not hide its prefix sibling /x/ws-outside.
	sort.Slice(ks, func(i, j int) bool { return len(ks[i]) > len(ks[j]) })
	var res []*regexp.Regexp
	for _, k := range ks {
		res = append(res, regexp.MustCompile(regexp.QuoteMeta(k)+`(/|$|[^A-Za-z0-9._~+\-])`))
	}
	var out []string
	for _, s := range stringsIn(v) {
		t := s
		for _, re := range res {
			t = re.ReplaceAllString(t, "$1")
		}
		if f.namesHost(t) {
			out = append(out, s)
		}
	}
	return out
}
