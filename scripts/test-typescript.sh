#!/usr/bin/env bash
# Builds and tests the TypeScript SDK and its conformance adapter against the real fsbox binary.
#
#   scripts/test-typescript.sh          uses FSBOX_BIN, or builds cmd/fsbox into a temporary directory
#
# It installs the pinned dev dependencies (npm ci) when node_modules does not match package-lock.json, compiles src/,
# test/ and the adapter with tsc, and runs the tests with node --test. Then it runs the AI SDK adapter's
# tests and examples/ai_sdk_agent.mjs against both ai majors the peer range admits: ai@7 (the
# devDependency) and ai@6 (pinned in test/ai6; the one npm installs on Node 20, as ai@7 needs Node >= 22).
# Exits non-zero on failure.
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
# The package `fsbox gen --lang typescript --out DIR` writes from the binary alone, outside the
# checkout, compiles (cmd/fsbox's TestGenPackageFromTheBinary builds the other languages' packages).
genpkg=$(mktemp -d)
"$FSBOX_BIN" gen --lang typescript --out "$genpkg" >/dev/null
ln -s "$PWD/node_modules" "$genpkg/node_modules"
npx tsc -p "$genpkg/tsconfig.json"
test -f "$genpkg/dist/index.js"
rm -rf "$genpkg"
echo "fsbox gen --lang typescript --out DIR: compiles"
npm test

# The example as a user runs it, against ai@7: "@fsbox/sdk" resolves to this package (self-reference).
ws=$(mktemp -d)
mkdir -p "$ws/ai7" "$ws/ai6"
cp "$root/examples/ai_sdk_agent.mjs" dist-test/
out=$(node dist-test/ai_sdk_agent.mjs "$ws/ai7")
grep -q "^hello world$" <<<"$out" || { printf '%s\n' "$out"; echo "ai@7: the AI SDK example did not edit through fsbox" >&2; exit 1; }
echo "ai@$(node -p 'require("ai/package.json").version'): examples/ai_sdk_agent.mjs ok"

# The same compiled tests and example against ai@6, resolved from test/ai6/node_modules.
ai6=$root/sdks/typescript/test/ai6
(cd "$ai6" && "$root/scripts/npm-ci-if-stale")
run=$ai6/run
rm -rf "$run" && mkdir -p "$run/node_modules/@fsbox/sdk"
cp -r dist dist-test "$run/"
cp package.json "$run/node_modules/@fsbox/sdk/" && cp -r dist "$run/node_modules/@fsbox/sdk/"
cp "$root/examples/ai_sdk_agent.mjs" "$root/examples/ai_sdk_editor_tools.mjs" "$run/"
(cd "$run" && node --test --test-timeout=60000 --test-reporter=spec dist-test/ai.test.js dist-test/editor.test.js)
out=$(cd "$run" && node ai_sdk_agent.mjs "$ws/ai6")
grep -q "^hello world$" <<<"$out" || { printf '%s\n' "$out"; echo "ai@6: the AI SDK example did not edit through fsbox" >&2; exit 1; }
mkdir -p "$ws/ai6-editor"
(cd "$run" && node ai_sdk_editor_tools.mjs "$ws/ai6-editor" | grep -q "^export const port = 8080;$") || { echo "ai@6: examples/ai_sdk_editor_tools.mjs failed" >&2; exit 1; }
echo "ai@$(cd "$ai6" && node -p 'require("ai/package.json").version') with @ai-sdk/openai@3 and @ai-sdk/anthropic@3: the AI SDK and editor tests and both examples ok"
rm -rf "$ws" "$run"
