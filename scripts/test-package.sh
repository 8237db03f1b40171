#!/usr/bin/env bash
# Tests the release artifacts as a user meets them, for the platform of this machine (linux/amd64):
#
#  1. scripts/package twice gives the same bytes (wheel, npm tarballs, binary, SHA256SUMS);
#  2. the wheel's WHEEL/RECORD are right, and pip's own platform selection takes the wheel for
#     manylinux and musllinux x86_64 and refuses it for macOS and Windows;
#  3. in a fresh venv with Go NOT on PATH, `pip install` of the wheel gives a working `fsbox`
#     command and an SDK that spawns the bundled binary, reads and edits a file;
#  4. the npm tarballs install into an empty project outside the repository; an ESM script spawns
#     fsbox and reads a file, and tsc type-checks a TypeScript snippet against the installed types;
#  5. a fresh Go module uses the Go SDK through a `replace` to this checkout (docs/install.md).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PLATFORMS=linux/amd64
version=$(sed -n 's/^var version = "\(.*\)"$/\1/p' cmd/fsbox/main.go)
step() { printf '\n== package: %s\n' "$*"; }

step "reproducible: build twice, compare bytes"
scripts/package >/dev/null
cp -r dist "$tmp/first"
scripts/package
cmp "$tmp/first/SHA256SUMS" dist/SHA256SUMS || { diff "$tmp/first/SHA256SUMS" dist/SHA256SUMS; echo "package: two builds differ" >&2; exit 1; }
echo "two builds: identical ($(wc -l < dist/SHA256SUMS) artifacts)"
(cd dist && sha256sum -c --quiet SHA256SUMS)

step "wheel metadata and pip's platform selection"
whl=$(ls dist/fsbox-"$version"-py3-none-*x86_64*.whl)
python3 packaging/python/check_wheels.py dist/*.whl
for plat in manylinux2014_x86_64 manylinux_2_17_x86_64 musllinux_1_2_x86_64; do
	python3 -m pip install --quiet --disable-pip-version-check --dry-run --no-deps --no-index --find-links dist \
		--only-binary :all: --platform "$plat" --python-version 3.11 --target "$tmp/t-$plat" "fsbox==$version"
	echo "pip --platform $plat: picks the wheel"
done
for plat in macosx_11_0_arm64 win_amd64 manylinux2014_aarch64; do
	if python3 -m pip install --quiet --disable-pip-version-check --dry-run --no-deps --no-index --find-links dist \
		--only-binary :all: --platform "$plat" --python-version 3.11 --target "$tmp/t-$plat" "fsbox==$version" 2>/dev/null; then
		echo "package: pip took the linux x86_64 wheel for $plat" >&2; exit 1
	fi
	echo "pip --platform $plat: refuses it"
done

# The sdist is what pip falls back to elsewhere: its build fails, saying that it needs Go.
python3 -m venv "$tmp/sdist-venv"
if out=$("$tmp/sdist-venv/bin/pip" install --disable-pip-version-check --no-index "dist/fsbox-$version.tar.gz" 2>&1); then
	echo "package: the sdist installed" >&2; exit 1
fi
grep -q "needs Go >= 1.26" <<<"$out" || { printf '%s\n' "$out"; echo "package: the sdist's failure does not say it needs Go" >&2; exit 1; }
echo "sdist: refuses to build, saying it needs Go >= 1.26"

step "fresh venv, Go not on PATH: pip install the wheel"
scripts/test-wheel-install.sh "$whl"

step "npm: install the tarballs into an empty project outside the repository"
proj=$tmp/npm-project
mkdir -p "$proj" && cd "$proj"
npm init -y >/dev/null
npm install --no-audit --no-fund "$repo/dist/fsbox-sdk-$version.tgz" "$repo/dist/fsbox-linux-x64-$version.tgz" 2>&1 | tail -3
mkdir ws && printf 'hello\nworld\n' > ws/notes.txt
cat > smoke.mjs <<'JS'
import { Client, locateBinary } from "@fsbox/sdk";
const fs = await Client.start({ rootDir: "ws" });
const r = await fs.readFile({ path: "notes.txt" });
console.log(locateBinary());
console.log(r.text);
await fs.close();
JS
out=$(env -u FSBOX_BIN PATH=/usr/bin:/bin node smoke.mjs)
printf '%s\n' "$out"
grep -q "node_modules/@fsbox/linux-x64/bin/fsbox" <<<"$out" || { echo "package: the binary did not come from @fsbox/linux-x64" >&2; exit 1; }
grep -q "2	world" <<<"$out" || { echo "package: read_file through the npm package failed" >&2; exit 1; }
cat > check.mts <<'TS'
import { Client, ToolRetryError, type ReadFileResult } from "@fsbox/sdk";
const fs: Client = await Client.start({ rootDir: "ws" });
const r: ReadFileResult = await fs.readFile({ path: "notes.txt" });
const n: number = r.total_lines;
try { await fs.readFile({ path: "../x" }); } catch (e) { if (e instanceof ToolRetryError) console.log(e.kind, n); }
await fs.close();
TS
"$repo/sdks/typescript/node_modules/.bin/tsc" --noEmit --strict --target es2022 --module nodenext --moduleResolution nodenext \
	--types node --typeRoots "$repo/sdks/typescript/node_modules/@types" check.mts
echo "tsc: check.mts type-checks against the installed @fsbox/sdk"
# The AI SDK example, as its user runs it: @fsbox/sdk/ai next to the ai package, the binary
# from the platform package (done-when of issue 9: generateText with the mock model calls read_file).
ai_version=$(node -p 'require(process.argv[1]).devDependencies.ai' "$repo/sdks/typescript/package.json")
npm install --no-audit --no-fund "ai@$ai_version" 2>&1 | tail -1
mkdir ai-ws
cp "$repo/examples/ai_sdk_agent.mjs" .
out=$(env -u FSBOX_BIN PATH=/usr/bin:/bin node ai_sdk_agent.mjs ai-ws)
printf '%s\n' "$out"
grep -q "^hello world$" <<<"$out" || { echo "package: the AI SDK example did not edit through fsbox" >&2; exit 1; }
# The provider edit tools (@fsbox/sdk/editor): openai.tools.applyPatch and
# anthropic.tools.textEditor_20250728 executed by fsbox, the providers at the pinned versions.
for p in @ai-sdk/openai @ai-sdk/anthropic; do
	v=$(node -p 'require(process.argv[1]).devDependencies[process.argv[2]]' "$repo/sdks/typescript/package.json" "$p")
	npm install --no-audit --no-fund "$p@$v" 2>&1 | tail -1
done
mkdir editor-ws
cp "$repo/examples/ai_sdk_editor_tools.mjs" .
out=$(env -u FSBOX_BIN PATH=/usr/bin:/bin node ai_sdk_editor_tools.mjs editor-ws)
printf '%s\n' "$out"
grep -q "^export const port = 8080;$" <<<"$out" || { echo "package: the editor-tools example did not edit through fsbox" >&2; exit 1; }
cd "$repo"

step "Go: a fresh module uses the SDK through a replace to this checkout"
scripts/test-go-module.sh
