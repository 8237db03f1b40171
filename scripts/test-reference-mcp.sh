#!/usr/bin/env bash
# Grades the reference MCP filesystem server with the security profile, CVE-tagged vectors only:
# version 2025.3.28 must fail every CVE-2025-53110 / CVE-2025-53109 vector with a containment class
# (most with an outside read or write; policy vectors may pass), the latest version must pass
# them, and the strict profile must still fail the latest on error kinds and wording. Installs the servers into bin/reference-mcp/ first (npm). About a minute.
#
#   scripts/test-reference-mcp.sh      FSBOX_SKIP_REFERENCE_MCP=1 skips it (no npm registry)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${FSBOX_SKIP_REFERENCE_MCP:-}" = 1 ]; then
	echo "-- reference MCP server: skipped (FSBOX_SKIP_REFERENCE_MCP=1)"
	exit 0
fi
scripts/install-reference-mcp
echo "-- conformance: reference MCP server, security profile, CVE-* vectors"
go test ./conformance -run '^TestReferenceMCPServer$' -count=1 -timeout 5m
