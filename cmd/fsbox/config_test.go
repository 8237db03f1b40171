package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// goSpeak is what used to reach users from encoding/json and must not any more.
var goSpeak = []string{"Go struct", "[]string", "json:", "unmarshal", "of type", "schema.", "*int"}

// TestConfigErrorsNameFileLineAndField: a bad --config file is refused naming the file, the line,
// the field by its path and what was expected, in JSON terms. Today's messages were
// "json: cannot unmarshal string into Go struct field Config.read_only of type bool" and, for
// YAML, "json: unknown field" without a line.
func TestConfigErrorsNameFileLineAndField(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		file, content string
		want          []string
	}{
		{"typo.yaml", "root_dir: .\ndenid:\n  - secret.txt\n",
			[]string{"typo.yaml: line 2: unknown member `denid`; did you mean `denied_patterns`?"}},
		{"bool.json", "{\n  \"read_only\": \"true\"\n}\n",
			[]string{"bool.json: line 2: `read_only`: expected a boolean, got a string"}},
		{"bool.yaml", "read_only: yes\n",
			[]string{"bool.yaml: line 1: `read_only`: expected a boolean, got a string"}},
		{"cmd.yaml", "post_edit:\n  - path: \"*.go\"\n    cmd: [gofmt, -w, \"${file}\"]\n  - path: \"*.js\"\n    cmd: 5\n",
			[]string{"cmd.yaml: line 5: `post_edit[1].cmd`: expected an array of strings, got a number"}},
		{"nested.yaml", "post_edit:\n  - path: \"*.go\"\n    cmd: [gofmt]\n    timeout: 1.5\n",
			[]string{"line 4: `post_edit[0].timeout`: expected an integer, got a fractional number"}},
		{"missing.json", "{\"permissions\": [\n  {\"operations\": [\"read\"], \"paths\": [\"/x\"]}\n]}",
			[]string{"missing.json: line 2: missing member `permissions[0].mode`"}},
		{"case.json", "{\"ROOT_DIR\": \".\"}", []string{"unknown member `ROOT_DIR`; did you mean `root_dir`?"}},
		{"dup.yaml", "read_only: true\nread_only: false\n", []string{"dup.yaml: line 2: member `read_only` is given twice"}},
		{"dup.json", "{\"cwd\": \"a\",\n \"cwd\": \"b\"}", []string{"dup.json: line 2: member `cwd` is given twice"}},
		{"syntax.json", "{\n  \"cwd\": \"a\",\n}", []string{"syntax.json: line 3:"}},
		{"syntax.yaml", "cwd: [a\n", []string{"syntax.yaml: line"}},
		{"list.yaml", "- a\n- b\n", []string{"list.yaml: the configuration must be a mapping of fields"}},
		{"shell.yaml", "post_edit:\n  - path: \"*.go\"\n    cmd: gofmt -l ${file} | head\n",
			[]string{"shell.yaml: line 3: `post_edit[0].cmd`:", `["gofmt", "-l", "${file}"]`, `["sh", "-c", "gofmt -l \"$1\" | head", "sh", "${file}"]`}},
	} {
		name := filepath.Join(dir, c.file)
		if err := os.WriteFile(name, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := readConfigFile(name)
		if err == nil {
			t.Errorf("%s: accepted", c.file)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "config "+name+": ") {
			t.Errorf("%s: %q does not start by naming the file", c.file, msg)
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q\nwant it to contain %q", c.file, msg, w)
			}
		}
		for _, g := range goSpeak {
			if strings.Contains(strings.ReplaceAll(msg, name, "FILE"), g) {
				t.Errorf("%s: %q speaks Go (%q)", c.file, msg, g)
			}
		}
	}
}

// TestPostEditCmdAsString: cmd written as one string, as cagent users write it, is split into its
// argument vector without a shell, in YAML and JSON alike.
func TestPostEditCmdAsString(t *testing.T) {
	dir := t.TempDir()
	for file, content := range map[string]string{
		"hooks.yaml": "post_edit:\n  - path: \"*.go\"\n    cmd: gofmt -w ${file}\n  - path: \"*.py\"\n    cmd: black -q \"${file}\"\n",
		"hooks.json": `{"post_edit": [{"path": "*.go", "cmd": "gofmt -w ${file}"}, {"path": "*.py", "cmd": ["black", "-q", "${file}"]}]}`,
	} {
		name := filepath.Join(dir, file)
		os.WriteFile(name, []byte(content), 0o644)
		cfg, err := readConfigFile(name)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if len(cfg.PostEdit) != 2 || !slices.Equal(cfg.PostEdit[0].Cmd, []string{"gofmt", "-w", "${file}"}) ||
			!slices.Equal(cfg.PostEdit[1].Cmd, []string{"black", "-q", "${file}"}) {
			t.Errorf("%s: hooks %+v", file, cfg.PostEdit)
		}
	}
}

// TestSplitCommand: what a shell would read differently is refused with the argument-vector
// form; nothing is ever passed to a shell, so no word can run another command.
func TestSplitCommand(t *testing.T) {
	for in, want := range map[string][]string{
		"gofmt -w ${file}":              {"gofmt", "-w", "${file}"},
		"  prettier\t--write  ${file} ": {"prettier", "--write", "${file}"},
		`black -q "${file}"`:            {"black", "-q", "${file}"},
		`sed -i 's/a|b/c/' ${file}`:     {"sed", "-i", "s/a|b/c/", "${file}"},
		`echo a\;b "x y" ''`:            {"echo", "a;b", "x y", ""},
		`fmt --out=./${file}.bak`:       {"fmt", "--out=./${file}.bak"},
		`fmt "price \$5"`:               {"fmt", "price $5"},
	} {
		got, err := splitCommand(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("splitCommand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, what := range map[string]string{
		"gofmt -l ${file} | head":    "'|'",
		"gofmt -w ${file}; rm -rf ~": "';'",
		"fmt ${file} && touch x":     "'&'",
		"fmt ${file} > /tmp/out":     "'>'",
		"fmt < ${file}":              "'<'",
		"fmt $(cat /etc/passwd)":     "$",
		"fmt \"$(id)\" ${file}":      "$",
		"fmt `id` ${file}":           "`",
		"fmt $HOME/${file}":          "$",
		"fmt *.go":                   "'*'",
		"~/bin/fmt ${file}":          "a leading ~",
		"fmt ${file} &":              "'&'",
		"fmt 'unclosed ${file}":      "an unclosed '",
		"fmt (x)":                    "'('",
		"fmt ${file}\nrm x":          "'\\n'",
		"fmt {a,b}":                  "'{'",
	} {
		_, err := splitCommand(in)
		if err == nil || !strings.Contains(err.Error(), "contains "+what) || !strings.Contains(err.Error(), `["sh", "-c", `) {
			t.Errorf("splitCommand(%q) = %v; want a refusal naming %s with the argv forms", in, err, what)
		}
	}
	if _, err := splitCommand("   "); err == nil {
		t.Error("an empty command was accepted")
	}
}
