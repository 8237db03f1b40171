#!/usr/bin/env bash
# Builds and tests the TypeScript SDK and its conformance adapter against the real fsbox binary.
#
#   scripts/test-typescript.sh          uses FSBOX_BIN, or builds cmd/fsbox into a temporary directory
#
# It installs the pinned dev dependencies (npm ci) when node_modules does not match package-lock.json, compiles src/,
# test/ and the adapter with tsc, and runs the tests with node --test. Exits non-zero on failure.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

if [ -z "${FSBOX_BIN:-}" ]; then
	bindir=$(mktemp -d)
	trap 'rm -rf "$bindir"' EXIT
	go build -o "$bindir/fsbox" ./cmd/fsbox
	export FSBOX_BIN="$bindir/fsbox"
fi

cd "$root/sdks/typescript"
"$root/scripts/npm-ci-if-stale"
rm -rf dist dist-test ../../conformance/adapters/typescript/dist
npm run build
npm run build:test
npx tsc -p ../../conformance/adapters/typescript/tsconfig.json   # the adapter is not part of the package
npm test
