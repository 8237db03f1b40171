#!/usr/bin/env bash
# Runs the shared conformance suite against every implementation in this repository: the engine
# in-process, the built binary through the server: target (exactly as a third party's server is
# graded), and the Go, Python, TypeScript and Rust SDKs through their adapters. Each run must match its
# baseline in conformance/baselines exactly. JSON Lines reports land in bin/conformance-*.jsonl.
# Last, the reference MCP filesystem server is graded on the CVE-tagged vectors
# (scripts/test-reference-mcp.sh; FSBOX_SKIP_REFERENCE_MCP=1 skips it).
#
#   scripts/test-conformance.sh    needs the Python venv and the TypeScript build, so run it after
#                                  scripts/test-python.sh and scripts/test-typescript.sh (the Rust
#                                  adapter is built by the runner, with the crates scripts/test-rust.sh
#                                  fetched)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${FSBOX_BIN:-$PWD/bin/fsbox}
if [ ! -x "$bin" ]; then
	go build -o "$bin" ./cmd/fsbox
fi
mkdir -p bin
status=0
run() {
	local name=$1
	shift
	echo "-- conformance: $name"
	"$bin" conformance run --report "bin/conformance-$name.jsonl" "$@" || status=1
}
run inproc --target inproc
run server --target "server:$bin serve" --baseline server-fsbox
run go --target binding:go --binary "$bin"
run python --target binding:python --binary "$bin"
run typescript --target binding:typescript --binary "$bin"
run rust --target binding:rust --binary "$bin"
# fsbox's own MCP mode, through the runner's MCP client: strict, and outcome-only.
run mcp --profile strict --mapping none --target "mcp:$bin mcp --root {root} --config {config}"
run mcp-security --profile security --mapping none --target "mcp:$bin mcp --root {root} --config {config}"
scripts/test-reference-mcp.sh || status=1
exit $status
