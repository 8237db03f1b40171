package hostpolicy

import (
	"reflect"
	"strings"
	"testing"

	"github.com/fsbox/fsbox/schema"
)

func intp(v int) *int { return &v }

func boolp(v bool) *bool { return &v }

// Every *int field of schema.Config is a limit, and schema.Limits must list it: Merge and
// Narrow know the limits only from that table, so a limit missing from it could be raised by a
// client of a host that fixed the policy.
func TestLimitsTableCoversConfig(t *testing.T) {
	var cfg schema.Config
	listed := map[uintptr]string{}
	for _, l := range schema.Limits {
		listed[reflect.ValueOf(l.Field(&cfg)).Pointer()] = l.Name
	}
	v := reflect.ValueOf(&cfg).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		if f.Type != reflect.TypeOf((*int)(nil)) {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "post_edit_timeout" {
			continue // host-only, refused from clients (RefuseHostOnly), not a narrowable limit
		}
		got, ok := listed[v.Field(i).Addr().Pointer()]
		if !ok || got != name {
			t.Errorf("schema.Limits does not list %s (%s) under its JSON name; add it", f.Name, name)
		}
	}
}

// Narrow refuses every field that would widen the host's policy, naming it; before it existed a
// client could widen all of them.
func TestNarrowRefusesWidening(t *testing.T) {
	host := schema.Config{Tools: []string{"read_file", "list_directory", "write_file"}, MaxReadLines: intp(100)}
	for _, c := range []struct {
		name   string
		client schema.Config
		field  string
	}{
		{"limit above the host's", schema.Config{MaxReadLines: intp(101)}, "max_read_lines"},
		{"limit above the default", schema.Config{MaxReadChars: intp(schema.DefaultMaxReadChars + 1)}, "max_read_chars"},
		{"tool the host lacks", schema.Config{Tools: []string{"read_file", "edit_file"}}, "tools"},
		{"clear the default denied", schema.Config{DeniedPatterns: &[]string{}}, "denied_patterns"},
		{"clear the default protected", schema.Config{ProtectedPatterns: &[]string{}}, "protected_patterns"},
		{"allow git directories the host does not", schema.Config{AllowGitDirs: boolp(true)}, "allow_git_dirs"},
	} {
		_, err := Narrow(host, c.client)
		pe, ok := err.(*Error)
		if !ok || pe.Field != c.field || !strings.HasPrefix(pe.Msg, c.field+": ") || !strings.Contains(pe.Msg, "host") {
			t.Errorf("%s: Narrow = %v; want an *Error naming %s", c.name, err, c.field)
		}
	}
	ro := host
	ro.ReadOnly = true
	if _, err := Narrow(ro, schema.Config{Tools: []string{"write_file"}}); err == nil {
		t.Error("write_file from a read-only host accepted")
	} else if !strings.Contains(err.Error(), "read_file, list_directory") || strings.Contains(err.Error(), "among read_file, list_directory, write_file") {
		t.Errorf("read-only host: %v; want the read tools offered", err)
	}
	// Narrowing is accepted, and the result carries the host's values for what the client left out.
	got, err := Narrow(host, schema.Config{MaxReadLines: intp(10), Tools: []string{"read_file"}, ReadOnly: true,
		DeniedPatterns: &[]string{"x"}, ContentHashes: new(bool)})
	if err != nil {
		t.Fatal(err)
	}
	if *got.MaxReadLines != 10 || !reflect.DeepEqual(got.Tools, []string{"read_file"}) || !got.ReadOnly || *got.ContentHashes {
		t.Errorf("narrowed = %+v", got)
	}
	got, _ = Narrow(schema.Config{Cwd: "src", ReadOnly: true, MaxFindResults: intp(5)}, schema.Config{})
	if got.Cwd != "src" || !got.ReadOnly || *got.MaxFindResults != 5 {
		t.Errorf("empty client config = %+v; want the host's", got)
	}
	if got, _ = Narrow(schema.Config{Cwd: "src"}, schema.Config{RootDir: "sub"}); got.Cwd != "" {
		t.Errorf("cwd after a moved root = %q; want the new root", got.Cwd)
	}
	// A host that opted out of a default list lets a client send the empty list.
	if _, err := Narrow(schema.Config{DeniedPatterns: &[]string{}}, schema.Config{DeniedPatterns: &[]string{}}); err != nil {
		t.Errorf("empty over empty: %v", err)
	}
}

// allow_git_dirs lets the model plant what git runs: a client may keep it off or switch a
// host's on off, never switch it on over a host that left it off.
func TestNarrowAllowGitDirs(t *testing.T) {
	for _, c := range []struct {
		host, client *bool
		want         bool
		refused      bool
	}{
		{nil, nil, false, false},
		{nil, boolp(false), false, false},
		{nil, boolp(true), false, true},
		{boolp(false), boolp(true), false, true},
		{boolp(true), nil, true, false},
		{boolp(true), boolp(false), false, false},
		{boolp(true), boolp(true), true, false},
	} {
		got, err := Narrow(schema.Config{AllowGitDirs: c.host}, schema.Config{AllowGitDirs: c.client})
		if (err != nil) != c.refused {
			t.Errorf("host %v client %v: err %v; refused want %v", c.host, c.client, err, c.refused)
			continue
		}
		if err == nil && (got.AllowGitDirs != nil && *got.AllowGitDirs) != c.want {
			t.Errorf("host %v client %v: allow_git_dirs %v; want %v", c.host, c.client, got.AllowGitDirs, c.want)
		}
	}
	// Merge (a bare fsbox serve, or the --config file over the defaults) takes it either way.
	if m := Merge(schema.Config{AllowGitDirs: boolp(true)}, schema.Config{AllowGitDirs: boolp(false)}); *m.AllowGitDirs {
		t.Error("Merge did not take allow_git_dirs: false")
	}
}

// show_dot_entries is the host's to turn on: a client of a host that fixed the policy may hide
// dot entries, never show what the host hides.
func TestNarrowShowDotEntries(t *testing.T) {
	on, off := true, false
	for _, host := range []schema.Config{{}, {ShowDotEntries: &off}} {
		_, err := Narrow(host, schema.Config{ShowDotEntries: &on})
		if pe, ok := err.(*Error); !ok || pe.Field != "show_dot_entries" {
			t.Errorf("host %+v: client turning show_dot_entries on: %v; want an *Error naming it", host.ShowDotEntries, err)
		}
	}
	got, err := Narrow(schema.Config{ShowDotEntries: &on}, schema.Config{ShowDotEntries: &off})
	if err != nil || got.ShowDotEntries == nil || *got.ShowDotEntries {
		t.Errorf("client turning it off: %+v, %v", got.ShowDotEntries, err)
	}
	got, err = Narrow(schema.Config{ShowDotEntries: &on}, schema.Config{})
	if err != nil || got.ShowDotEntries == nil || !*got.ShowDotEntries {
		t.Errorf("host's value kept: %+v, %v", got.ShowDotEntries, err)
	}
}
