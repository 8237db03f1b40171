package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolMapping maps the suite's tool calls onto an MCP server's tool names and argument shapes
// (conformance/mcp/*.json; docs/conformance.md describes the format).
type ToolMapping struct {
	Description string `json:"description,omitempty"`
	// PathArgs are argument names made absolute against the root (lexically) before the call.
	PathArgs []string `json:"path_args,omitempty"`
	// Tools lists, per suite tool, candidate server tools in order of preference.
	Tools map[string][]ToolCandidate `json:"tools"`
	// ErrorResult describes what the server's error results look like when it does not set
	// isError: a result (structuredContent, or the text content parsed as a JSON object) that
	// holds every field of one of these objects, with the same values, is an error. E.g.
	// [{"success": false}].
	ErrorResult []map[string]any `json:"error_result,omitempty"`
	// ErrorText is a regular expression (RE2) a text result matches when it is an error, for
	// servers that answer "Error: …" as an ordinary result.
	ErrorText string `json:"error_text,omitempty"`
	errorText *regexp.Regexp
}

// ToolCandidate is one server tool a suite tool can become.
type ToolCandidate struct {
	Tool string `json:"tool"`
	// Args is the server's argument object; a string "$name" stands for the suite argument name.
	Args map[string]any `json:"args"`
	// Defaults supply suite arguments a vector leaves out.
	Defaults map[string]any `json:"defaults,omitempty"`
}

// LoadToolMapping reads a mapping: "reference" (the shipped one for the reference server), "none"
// (tools by their suite names and arguments), or a file.
func LoadToolMapping(nameOrPath string) (*ToolMapping, error) {
	var data []byte
	var err error
	switch nameOrPath {
	case "", "none":
		return &ToolMapping{Tools: map[string][]ToolCandidate{}}, nil
	case "reference":
		data, err = embedded.ReadFile("mcp/reference.json")
	default:
		data, err = os.ReadFile(nameOrPath)
	}
	if err != nil {
		return nil, err
	}
	var m ToolMapping
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("tool mapping %s: %w", nameOrPath, err)
	}
	if m.Tools == nil {
		return nil, fmt.Errorf("tool mapping %s: no \"tools\" object", nameOrPath)
	}
	for suite, cands := range m.Tools {
		for i, c := range cands {
			if c.Tool == "" {
				return nil, fmt.Errorf("tool mapping %s: tools.%s[%d]: no \"tool\"", nameOrPath, suite, i)
			}
		}
	}
	for i, e := range m.ErrorResult {
		if len(e) == 0 {
			return nil, fmt.Errorf("tool mapping %s: error_result[%d] is empty (it would make every result an error)", nameOrPath, i)
		}
	}
	if m.ErrorText != "" {
		if m.errorText, err = regexp.Compile(m.ErrorText); err != nil {
			return nil, fmt.Errorf("tool mapping %s: error_text: %w", nameOrPath, err)
		}
	}
	return &m, nil
}

// isErrorResult reports whether a result without isError is an error by the mapping's
// error_result or error_text.
func (m *ToolMapping) isErrorResult(structured map[string]any, text string) bool {
	if m.errorText != nil && m.errorText.MatchString(text) {
		return true
	}
	if len(m.ErrorResult) == 0 {
		return false
	}
	objs := []map[string]any{}
	if structured != nil {
		objs = append(objs, structured)
	}
	if parsed, ok := normalizeJSON(decodeJSONText(text)).(map[string]any); ok {
		objs = append(objs, parsed)
	}
	for _, want := range m.ErrorResult {
		for _, o := range objs {
			if subsetOf(normalizeJSON(want), o) {
				return true
			}
		}
	}
	return false
}

// decodeJSONText decodes text as one JSON value (nil when it is not JSON).
func decodeJSONText(text string) any {
	var v any
	if json.Unmarshal([]byte(strings.TrimSpace(text)), &v) != nil {
		return nil
	}
	return v
}

// subsetOf reports whether got holds everything want holds: objects field by field, the rest equal.
func subsetOf(want, got any) bool {
	if w, ok := want.(map[string]any); ok {
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			gv, present := g[k]
			if !present || !subsetOf(wv, gv) {
				return false
			}
		}
		return true
	}
	return show(want) == show(got)
}

// coverage says which server tool a suite tool becomes, given the tools the server lists, or
// why its calls skip. Arguments are not considered: a call may still skip for an argument the
// candidate has no counterpart for.
func (m *ToolMapping) coverage(tool string, have map[string]bool) string {
	cands, ok := m.Tools[tool]
	if !ok {
		if have[tool] {
			return tool + " (same name, same arguments)"
		}
		return "skipped: the server lists no tool " + tool
	}
	if len(cands) == 0 {
		return "skipped: the mapping gives " + tool + " no counterpart"
	}
	var names []string
	for _, c := range cands {
		if have[c.Tool] {
			return c.Tool
		}
		names = append(names, c.Tool)
	}
	return "skipped: the server lists none of " + strings.Join(names, ", ")
}

// reaches lists, per server tool, the suite tools the mapping can send to it: every candidate,
// and every suite tool without an entry (called by its own name).
func (m *ToolMapping) reaches(suiteTools []string) map[string][]string {
	out := map[string][]string{}
	for suite, cands := range m.Tools {
		for _, c := range cands {
			out[c.Tool] = append(out[c.Tool], suite)
		}
	}
	for _, suite := range suiteTools {
		if _, ok := m.Tools[suite]; !ok {
			out[suite] = append(out[suite], suite)
		}
	}
	for k := range out {
		sort.Strings(out[k])
	}
	return out
}

// errNoMapping explains why a call cannot be made on the server: the vector is skipped.
type errNoMapping struct{ reason string }

func (e *errNoMapping) Error() string { return e.reason }

// translate turns a suite call into a server call given the tools the server lists.
func (m *ToolMapping) translate(tool string, args map[string]any, have map[string]bool, root string) (string, map[string]any, error) {
	cands, ok := m.Tools[tool]
	if !ok {
		// Unmapped: the server may offer the tool under the suite's own name and arguments.
		if !have[tool] {
			return "", nil, &errNoMapping{fmt.Sprintf("the server lists no tool %s", tool)}
		}
		return tool, m.absolute(args, root), nil
	}
	if len(cands) == 0 {
		return "", nil, &errNoMapping{fmt.Sprintf("the mapping gives %s no counterpart on this server", tool)}
	}
	var names []string
	for _, c := range cands {
		names = append(names, c.Tool)
		if !have[c.Tool] {
			continue
		}
		in := map[string]any{}
		for k, v := range c.Defaults {
			in[k] = v
		}
		for k, v := range args {
			in[k] = v
		}
		used := map[string]bool{}
		out, missing := fillArgs(c.Args, in, used)
		if missing != "" {
			return "", nil, &errNoMapping{fmt.Sprintf("%s needs argument %s, which this call of %s lacks", c.Tool, missing, tool)}
		}
		var extra []string
		for k := range args {
			if !used[k] {
				extra = append(extra, k)
			}
		}
		if len(extra) > 0 {
			sort.Strings(extra)
			return "", nil, &errNoMapping{fmt.Sprintf("%s has no counterpart for argument %s of %s", c.Tool, strings.Join(extra, ", "), tool)}
		}
		return c.Tool, m.absolute(out.(map[string]any), root), nil
	}
	return "", nil, &errNoMapping{fmt.Sprintf("the server lists none of %s (for %s)", strings.Join(names, ", "), tool)}
}

// fillArgs replaces "$name" strings of tmpl by in[name], recording what it used; it returns the
// first name in lacks.
func fillArgs(tmpl any, in map[string]any, used map[string]bool) (any, string) {
	switch t := tmpl.(type) {
	case string:
		if name, ok := strings.CutPrefix(t, "$"); ok {
			v, present := in[name]
			if !present {
				return nil, name
			}
			used[name] = true
			return v, ""
		}
		return t, ""
	case map[string]any:
		out := map[string]any{}
		// In key order, so the argument a skip names is the same on every run.
		for _, k := range slices.Sorted(maps.Keys(t)) {
			v := t[k]
			f, missing := fillArgs(v, in, used)
			if missing != "" {
				return nil, missing
			}
			out[k] = f
		}
		return out, ""
	case []any:
		out := make([]any, len(t))
		for i, v := range t {
			f, missing := fillArgs(v, in, used)
			if missing != "" {
				return nil, missing
			}
			out[i] = f
		}
		return out, ""
	}
	return tmpl, ""
}

// absolute joins relative path arguments onto root without cleaning them: "../x" stays an
// attempt to leave the root, now spelled "<root>/../x".
func (m *ToolMapping) absolute(args map[string]any, root string) map[string]any {
	abs := func(v any) any {
		s, ok := v.(string)
		if !ok || s == "" || filepath.IsAbs(s) {
			return v
		}
		if s == "." {
			return root
		}
		return root + string(filepath.Separator) + s
	}
	for _, k := range m.PathArgs {
		switch v := args[k].(type) {
		case string:
			args[k] = abs(v)
		case []any:
			out := make([]any, len(v))
			for i := range v {
				out[i] = abs(v[i])
			}
			args[k] = out
		}
	}
	return args
}

type mcpTarget struct {
	cmdline string
	argv    []string
	mapping *ToolMapping
	// protocol is the MCP generation the client asks for (mcp_protocol.go): "" for auto.
	protocol string
	seen     protocolsSeen
	legacy   atomic.Bool // auto: the server left server/discover unanswered once (mcp_protocol.go)
	// listed is the server's tool list as the preflight saw it (nil before): vectors whose calls
	// cannot be translated are skipped without starting a server.
	listed map[string]bool
}

// MCPTarget grades an MCP server on stdio, started once per vector. In argv, {root} becomes the
// vector's root and {config} a file holding the vector's configuration in fsbox's format; without
// {root} the root is offered as the client's MCP root, without {config} vectors that need a
// configuration are skipped.
func MCPTarget(cmdline string, mapping *ToolMapping) (Target, error) {
	argv, err := splitCommand(cmdline)
	if err != nil {
		return nil, err
	}
	if mapping == nil {
		mapping = &ToolMapping{Tools: map[string][]ToolCandidate{}}
	}
	// The server runs in the vector's root, so relative paths of the command that name files
	// here are made absolute first: "node bin/x/index.js {root}" works from the checkout.
	for i, a := range argv {
		if strings.Contains(a, "{") || filepath.IsAbs(a) || (i == 0 && !strings.Contains(a, "/")) {
			continue
		}
		if _, err := os.Stat(a); err == nil {
			if abs, err := filepath.Abs(a); err == nil {
				argv[i] = abs
			}
		}
	}
	return &mcpTarget{cmdline: cmdline, argv: argv, mapping: mapping}, nil
}

func (t *mcpTarget) Name() string { return "mcp:" + t.cmdline }

// Capabilities: tool calls, and MCP resources methods (mcp_resources.go). No fsbox initialize to
// check, no events or change requests, no raw lines; a configuration only when the command takes
// {config}.
func (t *mcpTarget) Capabilities() map[string]bool {
	return map[string]bool{"config": strings.Contains(t.cmdline, "{config}"), "mcp_resources": true}
}

func (t *mcpTarget) Open(ctx context.Context) (Session, error) { return &mcpSession{t: t}, nil }

// Preflight starts the server once on fx, lists its tools and asks for its allowed directories
// when it has a tool for that; a command that does not start fails here, once.
func (t *mcpTarget) Preflight(ctx context.Context, fx *Fixture) (*Inspection, error) {
	if err := lookCommand(t.argv); err != nil {
		return nil, err
	}
	s := &mcpSession{t: t}
	_, _, err := s.Start(ctx, StartParams{RootDir: fx.Root, Config: map[string]any{"root_dir": fx.Root}})
	var allowed []string
	allowedTool := ""
	if err == nil {
		for _, name := range []string{"list_allowed_directories", "list_roots", "get_allowed_directories"} {
			if s.tools[name] {
				allowedTool = name
				res, cerr := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
				if cerr == nil {
					allowed = append(allowed, absPaths(mcpOutcome(res, nil).text())...)
				}
				break
			}
		}
	}
	stderr := s.Close()
	if err != nil {
		return nil, fmt.Errorf("%w: %v%s", errPreflight, err, stderrNote(stderr))
	}
	in := &Inspection{Target: t.Name(), Tools: s.infos, Coverage: map[string]string{}}
	in.StrayLines, in.StrayExcerpt = s.stray.get()
	t.listed = s.tools
	suite := suiteTools()
	reach := t.mapping.reaches(suite)
	for i := range in.Tools {
		in.Tools[i].From = reach[in.Tools[i].Name]
		if in.Tools[i].Name == allowedTool {
			in.Tools[i].From = []string{"(the allowed-directory check)"}
		}
		if len(in.Tools[i].From) == 0 {
			in.NotGraded = append(in.NotGraded, in.Tools[i])
		}
	}
	sortNotGraded(in.NotGraded)
	for _, tool := range suite {
		in.Coverage[tool] = t.mapping.coverage(tool, s.tools)
	}
	in.AllowedDirs, in.Warnings = fx.allowedWarnings(allowed)
	return in, nil
}

// stderrNote is a bounded tail of a server's stderr for an error message.
func stderrNote(stderr string) string {
	stderr = strings.TrimSpace(stderr)
	if stderr == "" {
		return ""
	}
	return "; its stderr ends: " + excerpt(tail(stderr, 600), 700)
}

// suiteTools are the tools the suite calls (the bundle's tools), sorted.
func suiteTools() []string {
	return slices.Sorted(maps.Keys(loadContract().results))
}

// preSkip says why a vector would skip on this server (a call the mapping cannot translate),
// from the tool list the preflight saw; "" when it may run.
func (t *mcpTarget) preSkip(v *Vector) string {
	if t.listed == nil {
		return ""
	}
	for _, st := range v.Steps {
		if st.Call == "" {
			continue
		}
		args, _ := st.Args.(map[string]any)
		keys := map[string]any{}
		for k := range args {
			keys[k] = "x"
		}
		if _, _, err := t.mapping.translate(st.Call, keys, t.listed, "/r"); err != nil {
			var nm *errNoMapping
			if errors.As(err, &nm) {
				return nm.reason
			}
		}
	}
	return ""
}

type mcpSession struct {
	t       *mcpTarget
	p       *process
	cs      *mcp.ClientSession
	tools   map[string]bool
	infos   []ToolInfo
	root    string
	tempDir string
	stray   strayLines
}

func (s *mcpSession) strayLines() *strayLines { return &s.stray }

func (s *mcpSession) Start(ctx context.Context, p StartParams) (any, map[string]any, error) {
	s.root = p.RootDir
	argv := make([]string, len(s.t.argv))
	for i, a := range s.t.argv {
		if strings.Contains(a, "{config}") {
			if s.tempDir == "" {
				d, err := os.MkdirTemp("", "fsconf-config-")
				if err != nil {
					return nil, nil, err
				}
				s.tempDir = d
				b, _ := json.MarshalIndent(p.Config, "", "  ")
				if err := os.WriteFile(filepath.Join(d, "config.json"), b, 0o644); err != nil {
					return nil, nil, err
				}
			}
			a = strings.ReplaceAll(a, "{config}", filepath.Join(s.tempDir, "config.json"))
		}
		argv[i] = strings.ReplaceAll(a, "{root}", p.RootDir)
	}
	proc, err := startProcessGrace(argv, p.RootDir, 2*time.Second, sessionEnv(ctx))
	if err != nil {
		return nil, nil, err
	}
	s.p = proc
	client := mcp.NewClient(&mcp.Implementation{Name: "fsbox-conformance", Version: "1"}, nil)
	if !strings.Contains(s.t.cmdline, "{root}") {
		client.AddRoots(&mcp.Root{URI: "file://" + filepath.ToSlash(p.RootDir), Name: "root"})
	}
	// Lines that are not JSON (a banner, a log line) are counted and skipped, not fatal (the
	// transport of connect, mcp_protocol.go, reads through the stray filter).
	cs, err := s.t.connect(ctx, s, client, func() (*process, error) {
		return startProcessGrace(argv, p.RootDir, 2*time.Second, sessionEnv(ctx))
	})
	if err != nil {
		return nil, nil, s.explain("connecting", err)
	}
	s.cs = cs
	if err := s.t.negotiated(cs); err != nil {
		return nil, nil, err
	}
	s.tools = map[string]bool{}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, nil, s.explain("tools/list", err)
		}
		s.tools[tool.Name] = true
		info := ToolInfo{Name: tool.Name, Description: excerpt(strings.TrimSpace(strings.SplitN(tool.Description, "\n", 2)[0]), 120)}
		var destructive, readOnly *bool
		if a := tool.Annotations; a != nil {
			destructive = a.DestructiveHint
			if a.ReadOnlyHint {
				readOnly = &a.ReadOnlyHint
			}
		}
		info.Destructive = destructiveReason(tool.Name, destructive, readOnly)
		s.infos = append(s.infos, info)
	}
	return nil, nil, nil
}

// explain adds what became of the process to a session error, so a crash reads as one.
func (s *mcpSession) explain(what string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: no answer: %w", what, err)
	}
	time.Sleep(50 * time.Millisecond) // let an exiting server be reaped
	if gone, xerr := s.p.gone(); gone {
		return fmt.Errorf("%s: the server exited (%v): %v", what, xerr, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

func (s *mcpSession) Call(ctx context.Context, tool string, args any, answer AnswerFunc) (*Outcome, error) {
	in, _ := args.(map[string]any)
	if in == nil {
		in = map[string]any{}
	}
	name, mapped, err := s.t.mapping.translate(tool, in, s.tools, s.root)
	var nm *errNoMapping
	if errors.As(err, &nm) {
		return &Outcome{Skipped: nm.reason}, nil
	}
	if err != nil {
		return nil, err
	}
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: mapped})
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return &Outcome{Error: map[string]any{"code": rpcErr.Code, "message": rpcErr.Message}}, nil
	}
	if err != nil {
		return nil, s.explain(name, err)
	}
	out := mcpOutcome(res, s.t.mapping)
	// What the client really sent (absolute paths made by the mapping included) is never a leak.
	out.Sent = []any{name, mapped}
	return out, nil
}

// text is the text of an outcome's result or error.
func (o *Outcome) text() string {
	if o.Error != nil {
		return asString(o.Error["message"])
	}
	m, _ := o.Result.(map[string]any)
	return asString(m["text"])
}

// mcpOutcome reads a tool result: structuredContent when the server sends an object, else the
// text content as {"text": …}; an isError result is an error whose message is the text, and so is
// a result the mapping's error_result or error_text recognises (m may be nil). The text content is
// every block joined, a non-text block as its JSON; a structuredContent without a text member gets
// its text blocks alone as text (what the model reads, as `fsbox mcp` sends it: the text block
// beside an image's) and its other blocks under mcpOtherContent, where leaks are still looked for.
func mcpOutcome(res *mcp.CallToolResult, m *ToolMapping) *Outcome {
	var text, textOnly, other []string
	for _, c := range res.Content {
		switch x := c.(type) {
		case *mcp.TextContent:
			text = append(text, x.Text)
			textOnly = append(textOnly, x.Text)
		default:
			b, _ := json.Marshal(x)
			text = append(text, string(b))
			other = append(other, string(b))
		}
	}
	joined := strings.Join(text, "\n")
	structured, _ := normalizeJSON(res.StructuredContent).(map[string]any)
	if res.IsError || m != nil && m.isErrorResult(structured, joined) {
		e := map[string]any{"message": joined}
		for k, v := range structured {
			e[k] = v
		}
		if data, ok := normalizeJSON(res.Meta[mcpErrorMetaKey]).(map[string]any); ok {
			e["data"] = data
			if _, has := e["code"]; !has {
				e["code"] = mcpErrorCode(data)
			}
		}
		return &Outcome{Error: flattenError(e)}
	}
	if structured != nil {
		if _, ok := structured["text"]; !ok {
			structured["text"] = strings.Join(textOnly, "\n")
			if _, taken := structured[mcpOtherContent]; len(other) > 0 && !taken {
				structured[mcpOtherContent] = other
			}
		}
		return &Outcome{Result: structured}
	}
	return &Outcome{Result: map[string]any{"text": joined}}
}

// mcpOtherContent is the result member holding the non-text content blocks (as JSON) of a result
// whose structuredContent has no text (see mcpOutcome).
const mcpOtherContent = "mcp_other_content"

// mcpErrorMetaKey is where a server may put fsbox's error data ({kind, retry, counts_as_retry,
// path}) on an isError result, as `fsbox mcp` does; a server that does, is graded on kinds too.
const mcpErrorMetaKey = "fsbox/error"

// mcpErrorCode is the JSON-RPC code fsbox's protocol pairs with an error's data (section 3), for an
// MCP result, which carries no code of its own.
func mcpErrorCode(data map[string]any) json.Number {
	switch kind, _ := data["kind"].(string); {
	case kind == "invalid_arguments" || kind == "unknown_tool":
		return "-32602"
	case data["retry"] == true:
		return "-32001"
	}
	return "-32002"
}

// normalizeJSON re-decodes a value with json.Number so the matcher compares numbers exactly.
func normalizeJSON(v any) any {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var out any
	_ = dec.Decode(&out)
	return out
}

func (s *mcpSession) Close() string {
	if s.cs != nil {
		_ = s.cs.Close()
	}
	if s.p != nil {
		_ = s.p.close()
	}
	if s.tempDir != "" {
		_ = os.RemoveAll(s.tempDir)
	}
	if s.p == nil {
		return ""
	}
	return s.p.stderr.String()
}
