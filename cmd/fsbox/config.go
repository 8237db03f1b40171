package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/fsbox/fsbox/engine/hostpolicy"
	"github.com/fsbox/fsbox/schema"
	"github.com/fsbox/fsbox/server"
)

// configFlags are the flags serve and call share. Precedence, lowest first:
//
//  1. the built-in defaults;
//  2. the --config file (YAML or JSON; unknown fields are an error);
//  3. flags given on the command line;
//  4. for serve, the config a client sends in initialize: it may only narrow 1–3 when any of
//     --root, --config, --cwd, --tools or --read-only is given (fixed), and configures
//     everything otherwise (a bare `fsbox serve`, as the SDKs start it).
type configFlags struct {
	root, file, cwd string
	tools           string
	readOnly        bool
}

func (c *configFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.root, "root", "", "root `DIR` every tool is confined to (default: the working directory)")
	fs.StringVar(&c.file, "config", "", "read the configuration from `FILE` (YAML or JSON)")
	fs.StringVar(&c.cwd, "cwd", "", "working directory for relative paths, relative to the root")
	fs.StringVar(&c.tools, "tools", "", "comma-separated `NAMES` of the tools to enable")
	fs.BoolVar(&c.readOnly, "read-only", false, "enable only the reading tools")
}

// fixed reports whether the host fixed the policy: any policy flag makes the configuration
// built from the defaults, the file and the flags the ceiling of every session. --root alone
// fixes everything, not only the root: a host that confines a client to a directory must not
// find the client switching the default denied and protected patterns off inside it.
func (c *configFlags) fixed() bool {
	return c.root != "" || c.file != "" || c.cwd != "" || c.tools != "" || c.readOnly
}

// load builds the configuration from the file and flags.
func (c *configFlags) load() (schema.Config, error) {
	var cfg schema.Config
	if c.file != "" {
		var err error
		if cfg, err = readConfigFile(c.file); err != nil {
			return cfg, err
		}
		if cfg.RootDir != "" {
			// "~", "~/…" and $VAR expand in the host's own paths, never in a client's or the
			// model's (server.ExpandHostPath).
			if cfg.RootDir, err = server.ExpandHostPath(cfg.RootDir); err != nil {
				return cfg, fmt.Errorf("config %s: root_dir: %w", c.file, err)
			}
		}
		if cfg.RootDir != "" && !filepath.IsAbs(cfg.RootDir) {
			// A root in a config file is relative to the file, not to wherever fsbox was started.
			cfg.RootDir = filepath.Join(filepath.Dir(c.file), cfg.RootDir)
		}
		for i := range cfg.Mounts {
			// Mounted directories too: expanded, and relative to the file.
			m := &cfg.Mounts[i]
			if m.Dir, err = server.ExpandHostPath(m.Dir); err != nil {
				return cfg, fmt.Errorf("config %s: mounts[%d].dir: %w", c.file, i, err)
			}
			if m.Dir != "" && !filepath.IsAbs(m.Dir) {
				m.Dir = filepath.Join(filepath.Dir(c.file), m.Dir)
			}
		}
		if j := cfg.Journal; j != nil && j.Dir != "" {
			// The journal's directory too: expanded, and relative to the file.
			if j.Dir, err = server.ExpandHostPath(j.Dir); err != nil {
				return cfg, fmt.Errorf("config %s: journal.dir: %w", c.file, err)
			}
			if !filepath.IsAbs(j.Dir) {
				j.Dir = filepath.Join(filepath.Dir(c.file), j.Dir)
			}
		}
	}
	var flags schema.Config
	flags.RootDir, flags.Cwd, flags.ReadOnly = c.root, c.cwd, c.readOnly
	if flags.RootDir != "" {
		var err error
		if flags.RootDir, err = server.ExpandHostPath(flags.RootDir); err != nil {
			return cfg, fmt.Errorf("--root: %w", err)
		}
		c.root = flags.RootDir // also the engine's DefaultRoot
	}
	if c.tools != "" {
		flags.Tools = strings.Split(c.tools, ",")
	}
	return hostpolicy.Merge(cfg, flags), nil
}

// readConfigFile reads the host's configuration file, YAML (.yaml, .yml) or JSON. It is decoded
// with schema.Decode, the decoder of everything a client sends, after two steps of its own:
//
//  1. the file is parsed into plain JSON values, noting the line of every member (a member given
//     twice is refused here, as YAML and JSON parsers disagree on which one wins);
//  2. a post_edit command written as one string ("gofmt -w ${file}", as other agents' configs
//     write it) is split into its argument vector (see splitCommand), never handed to a shell.
//
// Every error names the file, the line, the member by its path (post_edit[0].cmd) and what was
// expected, in JSON terms: never a Go type.
func readConfigFile(name string) (schema.Config, error) {
	var cfg schema.Config
	data, err := os.ReadFile(name)
	if err != nil {
		return cfg, fmt.Errorf("reading config: %w", err)
	}
	fail := func(line int, format string, args ...any) error {
		if line > 0 {
			return fmt.Errorf("config %s: line %d: %s", name, line, fmt.Sprintf(format, args...))
		}
		return fmt.Errorf("config %s: %s", name, fmt.Sprintf(format, args...))
	}
	lines := map[string]int{}
	var tree any
	if ext := strings.ToLower(filepath.Ext(name)); ext == ".yaml" || ext == ".yml" {
		tree, err = parseYAML(data, lines)
	} else {
		tree, err = parseJSON(data, lines)
	}
	if err != nil {
		var pe *parseError
		if errors.As(err, &pe) {
			return cfg, fail(pe.line, "%s", pe.msg)
		}
		return cfg, fail(0, "%v", err)
	}
	if obj, ok := tree.(map[string]any); ok {
		if hooks, ok := obj["post_edit"].([]any); ok {
			for i, h := range hooks {
				hook, ok := h.(map[string]any)
				if !ok {
					continue
				}
				if cmd, ok := hook["cmd"].(string); ok {
					path := fmt.Sprintf("post_edit[%d].cmd", i)
					argv, err := splitCommand(cmd)
					if err != nil {
						return cfg, fail(lineOf(lines, path), "`%s`: %v", path, err)
					}
					hook["cmd"] = argv
				}
			}
		}
	}
	canonical, err := json.Marshal(tree)
	if err != nil {
		return cfg, fail(0, "%v", err)
	}
	if err := schema.Decode(canonical, &cfg); err != nil {
		var de *schema.DecodeError
		if errors.As(err, &de) {
			if de.Path == "" {
				return cfg, fail(0, "the configuration must be a mapping of fields (%s)", err)
			}
			return cfg, fail(lineOf(lines, de.Path), "%s", err)
		}
		return cfg, fail(0, "%v", err)
	}
	return cfg, nil
}

// lineOf returns the line of the member at path, or of the nearest enclosing member noted.
func lineOf(lines map[string]int, path string) int {
	for path != "" {
		if l, ok := lines[path]; ok {
			return l
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return 0
}

// parseError is a config file that is not well-formed, at a line.
type parseError struct {
	line int
	msg  string
}

func (e *parseError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// maxConfigNodes bounds the values a config file may expand to (YAML aliases can multiply them).
const maxConfigNodes = 100_000

// parseYAML parses a YAML document into plain JSON values (maps, slices, strings, numbers,
// booleans, nil), noting in lines the line of every member and element.
func parseYAML(data []byte, lines map[string]int) (any, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		line := 0
		if rest, ok := strings.CutPrefix(msg, "line "); ok {
			if n, after, ok := strings.Cut(rest, ": "); ok {
				if l, err := strconv.Atoi(n); err == nil {
					line, msg = l, after
				}
			}
		}
		return nil, &parseError{line, msg}
	}
	budget := maxConfigNodes
	return yamlValue(&doc, "", lines, &budget)
}

func yamlValue(n *yaml.Node, path string, lines map[string]int, budget *int) (any, error) {
	if *budget--; *budget < 0 {
		return nil, &parseError{n.Line, "the document expands to too many values (aliases?)"}
	}
	switch n.Kind {
	case 0:
		return nil, nil
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return map[string]any{}, nil // an empty file: every field at its default
		}
		return yamlValue(n.Content[0], path, lines, budget)
	case yaml.AliasNode:
		return yamlValue(n.Alias, path, lines, budget)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for i, item := range n.Content {
			child := fmt.Sprintf("%s[%d]", path, i)
			lines[child] = item.Line
			v, err := yamlValue(item, child, lines, budget)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return nil, &parseError{k.Line, "a key must be a plain name"}
			}
			if k.Value == "<<" && k.Tag == "!!merge" {
				return nil, &parseError{k.Line, "merge keys (<<) are not supported; write the fields out"}
			}
			child := k.Value
			if path != "" {
				child = path + "." + k.Value
			}
			if _, dup := out[k.Value]; dup {
				return nil, &parseError{k.Line, fmt.Sprintf("member `%s` is given twice", child)}
			}
			lines[child] = k.Line
			val, err := yamlValue(v, child, lines, budget)
			if err != nil {
				return nil, err
			}
			out[k.Value] = val
		}
		return out, nil
	case yaml.ScalarNode:
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, &parseError{n.Line, fmt.Sprintf("%s: %s", displayPath(path), strings.TrimPrefix(err.Error(), "yaml: "))}
		}
		switch x := v.(type) {
		case float64:
			if math.IsInf(x, 0) || math.IsNaN(x) {
				return nil, &parseError{n.Line, fmt.Sprintf("%s: %s is not a finite number", displayPath(path), n.Value)}
			}
		case time.Time:
			return n.Value, nil // a date-like string stays the string written
		}
		return v, nil
	}
	return nil, &parseError{n.Line, "unsupported YAML node"}
}

func displayPath(path string) string {
	if path == "" {
		return "the document"
	}
	return "`" + path + "`"
}

// parseJSON parses a JSON document into plain JSON values (numbers kept as written), noting in
// lines the line of every member and element, and refusing a member given twice.
func parseJSON(data []byte, lines map[string]int) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	lineAt := func(off int64) int {
		off = min(max(off, 0), int64(len(data)))
		// Skip to the next token: the offset is just past the previous one.
		for off < int64(len(data)) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
			off++
		}
		return bytes.Count(data[:off], []byte("\n")) + 1
	}
	wrap := func(err error) error {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return &parseError{bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n")) + 1, se.Error()}
		}
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			return &parseError{bytes.Count(data, []byte("\n")) + 1, "unexpected end of the document"}
		}
		return err
	}
	var value func(path string) (any, error)
	value = func(path string) (any, error) {
		tok, err := dec.Token()
		if err != nil {
			return nil, wrap(err)
		}
		switch tok {
		case json.Delim('{'):
			out := map[string]any{}
			for dec.More() {
				line := lineAt(dec.InputOffset())
				kt, err := dec.Token()
				if err != nil {
					return nil, wrap(err)
				}
				key, _ := kt.(string)
				child := key
				if path != "" {
					child = path + "." + key
				}
				if _, dup := out[key]; dup {
					return nil, &parseError{line, fmt.Sprintf("member `%s` is given twice", child)}
				}
				lines[child] = line
				if out[key], err = value(child); err != nil {
					return nil, err
				}
			}
			if _, err := dec.Token(); err != nil {
				return nil, wrap(err)
			}
			return out, nil
		case json.Delim('['):
			out := []any{}
			for i := 0; dec.More(); i++ {
				child := fmt.Sprintf("%s[%d]", path, i)
				lines[child] = lineAt(dec.InputOffset())
				v, err := value(child)
				if err != nil {
					return nil, err
				}
				out = append(out, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, wrap(err)
			}
			return out, nil
		}
		return tok, nil
	}
	v, err := value("")
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &parseError{lineAt(dec.InputOffset()), "more than one JSON value in the file"}
	}
	return v, nil
}
