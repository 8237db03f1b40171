#!/usr/bin/env bash
# Uses the Go SDK from a fresh module outside the repository, exactly as docs/install.md says:
# `go mod edit -replace` to this checkout, `go build`, then run the program against a built fsbox.
# The SDK imports only the standard library, so GOFLAGS=-mod=mod resolves nothing from the network.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$repo" && go build -o "$tmp/fsbox" ./cmd/fsbox)
mkdir "$tmp/app" "$tmp/ws" && cd "$tmp/app"
printf 'hello\n' > "$tmp/ws/notes.txt"
go mod init example.com/app >/dev/null 2>&1
go mod edit -require=github.com/fsbox/fsbox@v0.0.0 -replace=github.com/fsbox/fsbox="$repo"
cat > main.go <<'GO'
package main

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/fsbox/fsbox/sdks/go/fsboxclient"
)

func main() {
	ctx := context.Background()
	c, err := fsboxclient.Start(ctx, fsboxclient.Options{RootDir: os.Args[1]})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	res, err := c.ReadFile(ctx, fsboxclient.ReadFileParams{Path: "notes.txt"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(res.Text)
}
GO
GOFLAGS=-mod=mod GOPROXY=off go build -o app .
out=$(FSBOX_BIN=$tmp/fsbox ./app "$tmp/ws")
printf '%s\n' "$out"
grep -q "1	hello" <<<"$out"
echo "go module: builds with a replace to the checkout and reads through fsbox"
