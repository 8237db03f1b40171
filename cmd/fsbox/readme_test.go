package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README's transcript is replayed against the binary: every `>` line is sent to `fsbox serve`
// and every `<` line must match what came back, in order. "…" in a `<` line stands for any text
// (the README elides the tool descriptors and the middle of the schema_hash), so the transcript
// cannot drift from the server again: a stale hash or version fails here.
func TestReadmeTranscript(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var sent, want []string
	inBlock := false
	for _, line := range strings.Split(string(readme), "\n") {
		switch {
		case line == "```" && !inBlock && len(sent) == 0:
			inBlock = true
		case line == "```" && inBlock:
			inBlock = false
		case inBlock && strings.HasPrefix(line, "> "):
			sent = append(sent, line[2:])
		case inBlock && strings.HasPrefix(line, "< "):
			want = append(want, line[2:])
		}
		if !inBlock && len(sent) > 0 {
			break
		}
	}
	if len(sent) < 3 || len(want) < 3 {
		t.Fatalf("README.md: no transcript found (%d requests, %d replies)", len(sent), len(want))
	}
	demo := t.TempDir()
	os.WriteFile(filepath.Join(demo, "notes.txt"), []byte("hello\nworld\n"), 0o644)
	// One request at a time, as a person at the terminal would: write a line, read up to its
	// reply (events come before it), then the next.
	cmd := exec.Command(fsboxBin, "serve", "--root", demo)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	var got []string
	for _, req := range sent {
		req = strings.ReplaceAll(req, "/tmp/demo", demo)
		if _, err := io.WriteString(stdin, req+"\n"); err != nil {
			t.Fatal(err)
		}
		id := regexp.MustCompile(`"id":[0-9]+`).FindString(req)
		for sc.Scan() {
			got = append(got, sc.Text())
			if strings.HasPrefix(sc.Text(), `{"jsonrpc":"2.0",`+id+`,`) {
				break
			}
		}
	}
	if len(got) != len(want) {
		t.Fatalf("README shows %d replies, the server sent %d:\n%s", len(want), len(got), strings.Join(got, "\n"))
	}
	for i, w := range want {
		w = strings.ReplaceAll(w, "/tmp/demo", demo)
		parts := strings.Split(w, "…")
		for j := range parts {
			parts[j] = regexp.QuoteMeta(parts[j])
		}
		if !regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(got[i]) {
			t.Errorf("README reply %d does not match the server's:\nREADME: %s\nserver: %s", i+1, w, got[i])
		}
	}
}
