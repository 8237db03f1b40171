#!/usr/bin/env bash
# Tests `fsbox mcp` with the official MCP clients over a real stdio process (and streamable HTTP on
# loopback): the Python SDK (mcp, pinned in mcpserver/clients/python/requirements.txt, installed
# into mcpserver/clients/python/.venv, created if missing) under pytest, and the TypeScript SDK
# (@modelcontextprotocol/sdk, pinned in mcpserver/clients/typescript/package-lock.json, installed
# with npm ci when node_modules does not match package-lock.json) under node --test.
#
# Both protocol generations run: the Python client in its default mode (MCP 2026-07-28: the
# server/discover probe, per-request _meta, multi-round-trip approvals) and in legacy mode (the
# initialize handshake), on stdio and over HTTP; the TypeScript SDK, whose newest version knows
# protocols up to 2025-11-25, over initialize. Each asserts the version it negotiated, reads
# files as resources (file://{+path}) including traversal attempts through resource URIs, and calls
# every tool of both presentations (all enabled), letting the SDK validate structuredContent
# against the listed outputSchema; the text is the content block, never in structuredContent.
#
#   scripts/test-mcp.sh          uses FSBOX_BIN, or builds cmd/fsbox into a temporary directory
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
clients=$repo/mcpserver/clients

if [ -z "${FSBOX_BIN:-}" ]; then
  bindir=$(mktemp -d)
  trap 'rm -rf "$bindir"' EXIT
  (cd "$repo" && go build -o "$bindir/fsbox" ./cmd/fsbox)
  export FSBOX_BIN=$bindir/fsbox
fi

py=$clients/python/.venv/bin/python
if [ ! -x "$py" ]; then
  "${PYTHON:-python3}" -m venv "$clients/python/.venv"
fi
"$py" -m pip install --quiet --disable-pip-version-check -r "$clients/python/requirements.txt"
echo "mcp (Python SDK) client tests"
"$py" -m pytest -q -p no:cacheprovider "$clients/python"

cd "$clients/typescript"
"$repo/scripts/npm-ci-if-stale"
echo "@modelcontextprotocol/sdk (TypeScript SDK) client tests"
npm test
