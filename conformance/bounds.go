package conformance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// Bounds on what the runner prints and writes: one run once printed a 300 KB value and wrote an
// 11 MB report. Every cut says so and how long the whole was.
const (
	// maxMessageBytes bounds one failure message (console and report).
	maxMessageBytes = 2000
	// maxValueBytes bounds one failure's value as JSON in the report.
	maxValueBytes = 4096
)

// boundValue returns v, or, when v is longer than maxValueBytes as JSON, an excerpt of it that says
// it was truncated: {"truncated": true, "bytes": N, "excerpt": "…"}. A leaked string is cut
// around the part that matters by the caller (around) before it gets here.
func boundValue(v any) any {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil || len(b) <= maxValueBytes {
		return v
	}
	return map[string]any{"truncated": true, "bytes": len(b), "excerpt": excerpt(string(b), maxValueBytes)}
}

// around returns about n bytes of s centred on needle, marking what was cut on either side.
func around(s, needle string, n int) string {
	if len(s) <= n {
		return s
	}
	i := strings.Index(s, needle)
	if i < 0 {
		return excerpt(s, n)
	}
	lo := max(0, i-n/2)
	hi := min(len(s), lo+n)
	for lo > 0 && !utf8RuneStart(s[lo]) {
		lo--
	}
	for hi < len(s) && !utf8RuneStart(s[hi]) {
		hi++
	}
	out := s[lo:hi]
	if lo > 0 {
		out = "…" + out
	}
	if hi < len(s) {
		out += "…"
	}
	return out + " (excerpt of " + itoa10(len(s)) + " bytes)"
}

func itoa10(n int) string { b, _ := json.Marshal(n); return string(b) }

// homeEnv is the environment a server the runner starts gets: the fixture's fake $HOME. The
// tool caches a launcher keeps under $HOME (npm's, Go's, uv's, cargo's) are pointed at the real
// ones when the environment does not already say where they are, so `npx`, `uvx` or `go run`
// still find their packages instead of downloading them into the fake home, which would count as
// a change outside the root.
func (f *Fixture) homeEnv() []string {
	env := []string{"HOME=" + f.Home}
	real, err := os.UserHomeDir()
	if err != nil || real == "" {
		return env
	}
	for _, kv := range [][2]string{{"npm_config_cache", ".npm"}, {"XDG_CACHE_HOME", ".cache"}, {"XDG_DATA_HOME", ".local/share"},
		{"XDG_CONFIG_HOME", ".config"}, {"GOPATH", "go"}, {"CARGO_HOME", ".cargo"}, {"RUSTUP_HOME", ".rustup"}} {
		if _, set := os.LookupEnv(kv[0]); !set {
			env = append(env, kv[0]+"="+filepath.Join(real, kv[1]))
		}
	}
	return env
}
