// Command mcpfixture is a small MCP filesystem server for the grader's own tests. By default it
// contains its paths correctly (every path, symlinks resolved, must be the root or below it), so
// the suite's containment vectors pass; each flag plants one defect a real server had:
//
//	-banner         prints a banner and a log line per call on stdout, which is not JSON
//	-no-error-flag  answers refusals as {"success": false, "error": …} without isError (and
//	                refuses correctly: nothing is read or changed)
//	-allow-home     allows all of $HOME besides the root, whatever its arguments say
//	-beside-tmp     leaves a temporary file beside the root on every write (in the root's parent)
//
// -starts FILE appends a line to FILE each time the server starts, so a test can count them.
// Replies echo the path argument as the client sent it (absolute, through the mapping), as the
// reference server does: the grader must not count that as a host path.
//
// It lists run_command, copy_file and checksum_file too, which no mapping covers, so the grader must list them as
// not graded. It is test data for TestGraderFixtureServers; never ship anything like it.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	banner      = flag.Bool("banner", false, "print non-JSON lines on stdout")
	noErrorFlag = flag.Bool("no-error-flag", false, "refuse with {success: false} and no isError")
	allowHome   = flag.Bool("allow-home", false, "allow all of $HOME")
	besideTmp   = flag.Bool("beside-tmp", false, "leave a temporary file beside the root on writes")
	starts      = flag.String("starts", "", "append a line to this file at start")
	allowed     []string
)

func main() {
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: mcpfixture [flags] ROOT")
		os.Exit(2)
	}
	root, err := filepath.EvalSymlinks(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *starts != "" {
		if f, err := os.OpenFile(*starts, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintln(f, "start")
			f.Close()
		}
	}
	allowed = []string{root}
	if *allowHome {
		if h, err := filepath.EvalSymlinks(os.Getenv("HOME")); err == nil {
			allowed = append(allowed, h)
		}
	}
	if *banner {
		fmt.Println("Fixture MCP Filesystem Server running on stdio")
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "mcpfixture", Version: "0"}, nil)
	obj := json.RawMessage(`{"type": "object"}`)
	yes := true
	add := func(name string, destructive bool, h func(args map[string]any) (string, error)) {
		t := &mcp.Tool{Name: name, Description: name, InputSchema: obj}
		if destructive {
			t.Annotations = &mcp.ToolAnnotations{DestructiveHint: &yes}
		}
		s.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args map[string]any
			_ = json.Unmarshal(req.Params.Arguments, &args)
			if *banner {
				fmt.Printf("[log] %s called\n", name) // before the response is written
			}
			text, err := h(args)
			if err != nil {
				if *noErrorFlag {
					b, _ := json.Marshal(map[string]any{"success": false, "error": err.Error()})
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
				}
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "Error: " + err.Error()}}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	}
	add("read_text_file", false, func(a map[string]any) (string, error) {
		p, err := resolve(a["path"])
		if err != nil {
			return "", err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return "", fmt.Errorf("cannot read %v", a["path"])
		}
		return string(b), nil
	})
	add("write_file", true, func(a map[string]any) (string, error) {
		p, err := resolve(a["path"])
		if err != nil {
			return "", err
		}
		c, _ := a["content"].(string)
		if *besideTmp {
			_ = os.WriteFile(allowed[0]+".fixture.tmp", []byte(c), 0o644)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			return "", fmt.Errorf("cannot write")
		}
		return fmt.Sprintf("Successfully wrote to %v", a["path"]), nil
	})
	add("list_directory", false, func(a map[string]any) (string, error) {
		p, err := resolve(a["path"])
		if err != nil {
			return "", err
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return "", fmt.Errorf("cannot list")
		}
		var lines []string
		for _, e := range ents {
			lines = append(lines, e.Name())
		}
		return strings.Join(lines, "\n"), nil
	})
	add("create_directory", false, func(a map[string]any) (string, error) {
		p, err := resolve(a["path"])
		if err != nil {
			return "", err
		}
		if err := os.MkdirAll(p, 0o755); err != nil {
			return "", fmt.Errorf("cannot create")
		}
		return "created", nil
	})
	add("list_allowed_directories", false, func(map[string]any) (string, error) {
		return "Allowed directories:\n" + strings.Join(allowed, "\n"), nil
	})
	add("run_command", false, func(map[string]any) (string, error) { return "", fmt.Errorf("not here") })
	add("copy_file", false, func(map[string]any) (string, error) { return "", fmt.Errorf("not here") })
	add("checksum_file", false, func(map[string]any) (string, error) { return "", fmt.Errorf("not here") })
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
}

// resolve checks a path the correct way: made absolute, cleaned, symlinks resolved (the parent's
// for a name that does not exist yet), then compared with each allowed directory at a path
// boundary.
func resolve(v any) (string, error) {
	p, _ := v.(string)
	if p == "" {
		return "", fmt.Errorf("path required")
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(allowed[0], p)
	}
	p = filepath.Clean(p)
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		dir, err2 := filepath.EvalSymlinks(filepath.Dir(p))
		if err2 != nil {
			return "", fmt.Errorf("access denied: path outside allowed directories")
		}
		if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			return "", fmt.Errorf("access denied: dangling link")
		}
		real = filepath.Join(dir, filepath.Base(p))
	}
	for _, a := range allowed {
		if real == a || strings.HasPrefix(real, a+string(filepath.Separator)) {
			return real, nil
		}
	}
	return "", fmt.Errorf("access denied: path outside allowed directories")
}
