package conformance

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// applyUnifiedDiff applies a unified diff to old and returns the new text. It is as strict as
// git apply about what matters here: a/ and b/ headers, hunk counts that match their bodies,
// context and removed lines that match old exactly, and "\ No newline at end of file" markers.
// An empty diff means "no change"; any other diff must end with a newline, as both tools require.
func applyUnifiedDiff(old, diff string) (string, error) {
	if diff == "" {
		return old, nil
	}
	if !strings.HasSuffix(diff, "\n") {
		return "", fmt.Errorf("the last line has no newline, so patch and git apply reject the diff")
	}
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	i := 0
	for i < len(lines) && !strings.HasPrefix(lines[i], "--- ") {
		i++
	}
	if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "+++ ") {
		return "", fmt.Errorf("no ---/+++ header pair")
	}
	i += 2
	if i >= len(lines) {
		return "", fmt.Errorf("headers only: the diff does not show the change")
	}
	src := splitKeep(old)
	var out strings.Builder
	pos := 0 // next line of src to copy
	for i < len(lines) {
		h := lines[i]
		if !strings.HasPrefix(h, "@@ ") {
			return "", fmt.Errorf("line %d: want a hunk header, got %q", i+1, h)
		}
		oStart, oCount, nCount, err := parseHunk(h)
		if err != nil {
			return "", fmt.Errorf("line %d: %v", i+1, err)
		}
		i++
		start := oStart - 1
		if oCount == 0 {
			start = oStart
		}
		if start < pos || start > len(src) {
			return "", fmt.Errorf("hunk %q starts at line %d, outside the old text (%d lines)", h, oStart, len(src))
		}
		for ; pos < start; pos++ {
			out.WriteString(src[pos])
		}
		var seenOld, seenNew int
		for i < len(lines) && !strings.HasPrefix(lines[i], "@@ ") {
			l := lines[i]
			i++
			text := ""
			if len(l) > 0 {
				text = l[1:]
			}
			noEOL := i < len(lines) && strings.HasPrefix(lines[i], `\ `)
			if noEOL {
				i++
			} else {
				text += "\n"
			}
			kind := byte(' ')
			if len(l) > 0 {
				kind = l[0]
			}
			switch kind {
			case ' ', '-':
				if pos >= len(src) || src[pos] != text {
					have := "end of file"
					if pos < len(src) {
						have = strconv.Quote(src[pos])
					}
					return "", fmt.Errorf("line %d of the old text is %s, the diff says %q", pos+1, have, text)
				}
				pos++
				seenOld++
				if kind == ' ' {
					out.WriteString(text)
					seenNew++
				}
			case '+':
				out.WriteString(text)
				seenNew++
			default:
				return "", fmt.Errorf("line %d: unexpected diff line %q", i, l)
			}
		}
		if seenOld != oCount || seenNew != nCount {
			return "", fmt.Errorf("hunk %q has %d old and %d new lines", h, seenOld, seenNew)
		}
	}
	for ; pos < len(src); pos++ {
		out.WriteString(src[pos])
	}
	return out.String(), nil
}

// splitKeep splits on "\n", keeping terminators; a final fragment without one is a line.
func splitKeep(s string) []string {
	var out []string
	for s != "" {
		j := strings.IndexByte(s, '\n')
		if j < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:j+1])
		s = s[j+1:]
	}
	return out
}

func parseHunk(h string) (oStart, oCount, nCount int, err error) {
	f := strings.Fields(h)
	if len(f) < 4 || f[3] != "@@" || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0, 0, fmt.Errorf("malformed hunk header %q", h)
	}
	rng := func(s string) (int, int, error) {
		a, b, found := strings.Cut(s, ",")
		start, err := strconv.Atoi(a)
		if err != nil {
			return 0, 0, err
		}
		count := 1
		if found {
			if count, err = strconv.Atoi(b); err != nil {
				return 0, 0, err
			}
		}
		return start, count, nil
	}
	oStart, oCount, err = rng(f[1][1:])
	if err != nil {
		return 0, 0, 0, fmt.Errorf("malformed hunk header %q", h)
	}
	_, nCount, err = rng(f[2][1:])
	if err != nil {
		return 0, 0, 0, fmt.Errorf("malformed hunk header %q", h)
	}
	return oStart, oCount, nCount, nil
}

// gitApply applies diff to before with git apply in a scratch directory, as a second opinion on
// applyUnifiedDiff: docs/protocol.md promises that every diff applies with git apply. ok is false when
// git is not installed (the in-Go applier then decides alone).
func gitApply(before, diff string) (after string, ok bool, err error) {
	gitOnce.Do(func() { gitPath, _ = exec.LookPath("git") })
	if gitPath == "" || diff == "" {
		return "", false, nil
	}
	name := ""
	for _, l := range strings.Split(diff, "\n") {
		if strings.HasPrefix(l, "--- a/") {
			name = strings.TrimPrefix(l, "--- a/")
			break
		}
	}
	if name == "" || strings.ContainsAny(name, "\"\\\t") || strings.Contains(name, "..") {
		return "", false, nil // quoted or unusual names: the in-Go applier decides
	}
	dir, err := os.MkdirTemp("", "fsconf-diff-")
	if err != nil {
		return "", false, err
	}
	defer os.RemoveAll(dir)
	target := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return "", false, err
	}
	if err := os.WriteFile(target, []byte(before), 0o644); err != nil {
		return "", false, err
	}
	patch := filepath.Join(dir, ".diff")
	if err := os.WriteFile(patch, []byte(diff), 0o644); err != nil {
		return "", false, err
	}
	cmd := exec.Command(gitPath, "apply", "--whitespace=nowarn", patch)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", true, fmt.Errorf("git apply rejects it: %s", strings.TrimSpace(string(out)))
	}
	b, err := os.ReadFile(target)
	return string(b), true, err
}

var (
	gitOnce sync.Once
	gitPath string
)
