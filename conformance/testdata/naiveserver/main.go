// Command naiveserver is a deliberately naive fsbox server: the honest first draft the
// conformance suite must catch. It speaks the protocol well enough to be graded, and gets the
// security model wrong in the ways first drafts do: paths are joined as strings with no containment
// check, symlinks are followed anywhere, expected_hash is ignored, reads return whole files with no
// character cap, walkers have no result caps, and writes go straight into the file.
//
// With -prefix-check it gets one thing half right, the way @modelcontextprotocol/server-filesystem
// before 2025.7.1 did (CVE-2025-53110): it resolves the path (symlinks too) and refuses it unless
// the result starts with the root's path as a string, so <root>_sibling passes for <root>.
//
// It is test data for TestNaiveServerFails and TestPrefixBugFailsOnlyPrefixVectors; never ship
// anything like it.
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

type server struct {
	out    *bufio.Writer
	root   string
	events bool
}

var prefixCheck = len(os.Args) > 1 && os.Args[1] == "-prefix-check"

func main() {
	s := &server{out: bufio.NewWriter(os.Stdout)}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := in.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			s.handle(line)
		}
		if err != nil {
			return
		}
	}
}

func (s *server) send(v any) {
	b, _ := json.Marshal(v)
	s.out.Write(append(b, '\n'))
	s.out.Flush()
}

func (s *server) reply(id json.RawMessage, result any, err *rpcErr) {
	msg := map[string]any{"jsonrpc": "2.0", "id": id}
	if err != nil {
		msg["error"] = err
	} else {
		msg["result"] = result
	}
	s.send(msg)
}

type rpcErr struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data,omitempty"`
}

func toolErr(kind, msg string) *rpcErr {
	return &rpcErr{Code: -32001, Message: msg, Data: map[string]any{"kind": kind, "retry": true}}
}

func (s *server) handle(line []byte) {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		s.reply(json.RawMessage("null"), nil, &rpcErr{Code: -32700, Message: "parse error"})
		return
	}
	switch req.Method {
	case "initialize":
		var p struct {
			Config       map[string]any `json:"config"`
			Capabilities struct {
				Events bool `json:"events"`
			} `json:"capabilities"`
		}
		json.Unmarshal(req.Params, &p)
		s.root, _ = p.Config["root_dir"].(string)
		s.root, _ = filepath.EvalSymlinks(s.root)
		s.events = p.Capabilities.Events
		var tools []map[string]any
		for _, n := range []string{"read_file", "write_file", "edit_file", "list_directory", "search_files", "find_files", "create_directory", "file_info"} {
			tools = append(tools, map[string]any{"name": n, "description": n, "input_schema": map[string]any{"type": "object"}, "output_schema": map[string]any{"type": "object"}})
		}
		s.reply(req.ID, map[string]any{"protocol_version": "1", "server_info": map[string]any{"name": "naive", "version": "0"},
			"root_dir": s.root, "cwd": ".", "tools": tools, "schema_hash": "sha256:0", "result_shape": "both"}, nil)
	case "tools/list":
		s.reply(req.ID, map[string]any{"tools": []any{}}, nil)
	case "shutdown":
		s.reply(req.ID, nil, nil)
		os.Exit(0)
	case "tools/call":
		var p struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		}
		json.Unmarshal(req.Params, &p)
		res, err := s.call(p.Name, p.Arguments)
		s.reply(req.ID, res, err)
	default:
		if req.ID != nil {
			s.reply(req.ID, nil, &rpcErr{Code: -32601, Message: "method not found"})
		}
	}
}

func (s *server) event(tool, kind, path string, extra map[string]any) {
	if !s.events {
		return
	}
	ev := map[string]any{"kind": "file_system." + kind, "path": path, "root_dir": s.root, "tool": tool}
	for k, v := range extra {
		ev[k] = v
	}
	s.send(map[string]any{"jsonrpc": "2.0", "method": "event", "params": ev})
}

// resolve is the first draft's path handling: absolute paths are used as they are, relative ones
// are glued onto the root.
func (s *server) resolve(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return s.root + "/" + p
}

func hash(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:])[:12] }

func str(args map[string]any, k, def string) string {
	if v, ok := args[k].(string); ok {
		return v
	}
	return def
}

func num(args map[string]any, k string, def int) int {
	if v, ok := args[k].(float64); ok {
		return int(v)
	}
	return def
}

func osErr(err error) *rpcErr {
	if errors.Is(err, fs.ErrNotExist) {
		return toolErr("not_found", err.Error())
	}
	return &rpcErr{Code: -32002, Message: err.Error(), Data: map[string]any{"kind": "io_error", "retry": false}}
}

func (s *server) call(name string, args map[string]any) (any, *rpcErr) {
	p := str(args, "path", ".")
	full := s.resolve(p)
	if prefixCheck {
		real := filepath.Clean(full)
		if r, err := filepath.EvalSymlinks(real); err == nil {
			real = r
		} else if r, err := filepath.EvalSymlinks(filepath.Dir(real)); err == nil {
			real = filepath.Join(r, filepath.Base(real))
		}
		if !strings.HasPrefix(real, s.root) {
			return nil, toolErr("outside_root", "access denied: "+p+" is outside the root")
		}
	}
	switch name {
	case "read_file":
		data, err := os.ReadFile(full)
		if err != nil {
			return nil, osErr(err)
		}
		h := hash(data)
		lines := strings.SplitAfter(string(data), "\n")
		if len(lines) > 0 && lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		off, lim := num(args, "offset", 0), num(args, "limit", 2000)
		var b strings.Builder
		fmt.Fprintf(&b, "[%s | %d lines | hash:%s]\n", p, len(lines), h)
		shown := 0
		for i := off; i < len(lines) && i < off+lim; i++ {
			fmt.Fprintf(&b, "%6d\t%s", i+1, strings.TrimSuffix(lines[i], "\n")+"\n")
			shown++
		}
		s.event(name, "file_read", p, map[string]any{"content_hash": h})
		return map[string]any{"text": b.String(), "path": p, "binary": false, "size": len(data), "total_lines": len(lines),
			"offset": off, "lines_shown": shown, "hash": h}, nil
	case "write_file":
		content := str(args, "content", "")
		_, statErr := os.Stat(full)
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			return nil, osErr(err)
		}
		h := hash([]byte(content))
		s.event(name, "file_written", p, map[string]any{"content_hash": h})
		return map[string]any{"text": fmt.Sprintf("Wrote %d chars to %s. [hash:%s]", len(content), p, h), "path": p,
			"created": statErr != nil, "chars": len(content), "lines": strings.Count(content, "\n"), "hash": h}, nil
	case "edit_file":
		data, err := os.ReadFile(full)
		if err != nil {
			return nil, osErr(err)
		}
		old, nw := str(args, "old_text", ""), str(args, "new_text", "")
		if !strings.Contains(string(data), old) {
			return nil, toolErr("no_match", "old_text not found")
		}
		out := strings.Replace(string(data), old, nw, 1)
		if err := os.WriteFile(full, []byte(out), 0o644); err != nil {
			return nil, osErr(err)
		}
		h := hash([]byte(out))
		s.event(name, "file_edited", p, map[string]any{"content_hash": h, "diff": "", "truncated": true})
		return map[string]any{"text": "Edited " + p + ". [hash:" + h + "]", "path": p, "replacements": 1, "hash": h}, nil
	case "list_directory":
		ents, err := os.ReadDir(full)
		if err != nil {
			return nil, osErr(err)
		}
		var lines []string
		var entries []any
		for _, e := range ents {
			rel := strings.TrimPrefix(filepath.Join(p, e.Name()), "./")
			if e.IsDir() {
				lines = append(lines, rel+"/")
				entries = append(entries, map[string]any{"path": rel + "/", "type": "directory"})
			} else {
				fi, _ := os.Stat(filepath.Join(full, e.Name()))
				var size int64
				if fi != nil {
					size = fi.Size()
				}
				lines = append(lines, fmt.Sprintf("%s  (%d bytes)", rel, size))
				entries = append(entries, map[string]any{"path": rel, "type": "file", "size": size})
			}
		}
		s.event(name, "directory_listed", p, map[string]any{"entry_count": len(entries)})
		return map[string]any{"text": strings.Join(lines, "\n"), "path": p, "entries": entries, "truncated": false}, nil
	case "search_files":
		re, err := regexp.Compile(str(args, "pattern", ""))
		if err != nil {
			return nil, toolErr("invalid_pattern", err.Error())
		}
		var lines []string
		var matches []any
		filepath.WalkDir(full, func(fp string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			data, _ := os.ReadFile(fp)
			rel, _ := filepath.Rel(s.root, fp)
			for i, l := range strings.Split(string(data), "\n") {
				if re.MatchString(l) {
					lines = append(lines, fmt.Sprintf("%s:%d:%s", rel, i+1, l))
					matches = append(matches, map[string]any{"path": rel, "line": i + 1, "text": l})
				}
			}
			return nil
		})
		text := strings.Join(lines, "\n")
		if len(lines) == 0 {
			text = "No matches found."
		}
		s.event(name, "files_searched", p, map[string]any{"pattern": str(args, "pattern", ""), "search": "grep", "match_count": len(matches), "truncated": false})
		return map[string]any{"text": text, "matches": nonNil(matches), "truncated": false}, nil
	case "find_files":
		pat := str(args, "pattern", "*")
		var paths []string
		filepath.WalkDir(full, func(fp string, d fs.DirEntry, err error) error {
			if err != nil || fp == full {
				return nil
			}
			if ok, _ := filepath.Match(filepath.Base(pat), d.Name()); ok {
				rel, _ := filepath.Rel(s.root, fp)
				if d.IsDir() {
					rel += "/"
				}
				paths = append(paths, rel)
			}
			return nil
		})
		sort.Strings(paths)
		text := strings.Join(paths, "\n")
		if len(paths) == 0 {
			text = "No matches found."
		}
		s.event(name, "files_searched", p, map[string]any{"pattern": pat, "search": "find", "match_count": len(paths), "truncated": false})
		return map[string]any{"text": text, "paths": nonNilS(paths), "truncated": false}, nil
	case "create_directory":
		if err := os.MkdirAll(full, 0o755); err != nil {
			return nil, osErr(err)
		}
		s.event(name, "directory_created", p, nil)
		return map[string]any{"text": "Created directory: " + p, "path": p, "created": true}, nil
	case "file_info":
		fi, err := os.Stat(full)
		if err != nil {
			return nil, osErr(err)
		}
		typ := "file"
		if fi.IsDir() {
			typ = "directory"
		}
		return map[string]any{"text": fmt.Sprintf("path: %s\ntype: %s\nsize: %d bytes", p, typ, fi.Size()), "path": p, "type": typ, "size": fi.Size()}, nil
	}
	return nil, &rpcErr{Code: -32602, Message: "unknown tool " + name, Data: map[string]any{"kind": "unknown_tool", "retry": true}}
}

func nonNil(v []any) []any {
	if v == nil {
		return []any{}
	}
	return v
}

func nonNilS(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}
