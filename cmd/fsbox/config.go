package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

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
	return server.Merge(cfg, flags), nil
}

func readConfigFile(name string) (schema.Config, error) {
	var cfg schema.Config
	data, err := os.ReadFile(name)
	if err != nil {
		return cfg, fmt.Errorf("reading config: %w", err)
	}
	if ext := strings.ToLower(filepath.Ext(name)); ext == ".yaml" || ext == ".yml" {
		var v any
		if err := yaml.Unmarshal(data, &v); err != nil {
			return cfg, fmt.Errorf("config %s: %w", name, err)
		}
		if data, err = json.Marshal(v); err != nil {
			return cfg, fmt.Errorf("config %s: %w", name, err)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return cfg, fmt.Errorf("config %s: %w", name, err)
	}
	return cfg, nil
}
