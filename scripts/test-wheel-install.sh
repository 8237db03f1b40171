#!/usr/bin/env bash
# The done-when of issue 9 §1 for Python: in a fresh venv with Go NOT on PATH, install the platform
# wheel, then the `fsbox` command works and a script spawns fsbox through the SDK (no binary=,
# no FSBOX_BIN) and reads and edits a file.
#
#   scripts/test-wheel-install.sh dist/fsbox-<ver>-py3-none-manylinux_2_17_x86_64....whl
set -euo pipefail
whl=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python=$(PATH=/usr/bin:/bin command -v python3)
export PATH=/usr/bin:/bin
unset FSBOX_BIN
if command -v go >/dev/null; then echo "test-wheel-install: go is on PATH ($(command -v go)); the test needs it absent" >&2; exit 1; fi
"$python" -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install --quiet --disable-pip-version-check --no-index "$whl"
echo "installed: $(basename "$whl")"
"$tmp/venv/bin/fsbox" --version
mkdir "$tmp/ws" && printf 'hello\nworld\n' > "$tmp/ws/notes.txt"
cd "$tmp"
"$tmp/venv/bin/python" - <<'PY'
import fsbox, fsbox._transport as t
with fsbox.Client("ws") as fs:
    print("binary:", t.find_binary(None))
    r = fs.read_file(path="notes.txt")
    print(r.text, end="")
    fs.edit_file(path="notes.txt", old_text="world", new_text="there", expected_hash=r.hash)
    try:
        fs.read_file(path="../../etc/passwd")
    except fsbox.ToolRetry as e:
        print("refused:", e.kind)
assert open("ws/notes.txt").read() == "hello\nthere\n"
assert "/site-packages/fsbox/bin/fsbox" in t.find_binary(None)
print("edit: ok")
PY
