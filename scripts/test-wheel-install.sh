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
    except fsbox.ToolRetryError as e:
        print("refused:", e.kind)
assert open("ws/notes.txt").read() == "hello\nthere\n"
assert "/site-packages/fsbox/bin/fsbox" in t.find_binary(None)
print("edit: ok")
PY

# The pydantic-ai done-when: the wheel plus the framework (the version the adapter tests pin), and a
# short script runs an Agent driven by FunctionModel that reads, searches and edits through fsbox,
# where a hostile path is a retry for the model, not an escape.
pin=$(grep '^pydantic-ai-slim==' "$(dirname "$whl")/../sdks/python/requirements-integrations.txt" 2>/dev/null || echo pydantic-ai-slim)
"$tmp/venv/bin/pip" install --quiet --disable-pip-version-check "$pin"
printf 'hello\nworld\n' > "$tmp/ws/notes.txt"
"$tmp/venv/bin/python" - <<'PY'
from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import FunctionModel
from fsbox.integrations.pydantic_ai import FileSystem

calls = [ToolCallPart("read_file", {"path": "notes.txt"}), ToolCallPart("search_files", {"pattern": "wor"}),
         ToolCallPart("edit_file", {"path": "notes.txt", "old_text": "world", "new_text": "there"}),
         ToolCallPart("read_file", {"path": "../../etc/passwd"})]
seen = []
def model(messages, info):
    seen.extend(p for p in messages[-1].parts if isinstance(p, ToolReturnPart))
    n = sum(isinstance(m, ModelResponse) for m in messages)
    return ModelResponse(parts=[calls[n]] if n < len(calls) else [TextPart("done")])
Agent(FunctionModel(model), capabilities=[FileSystem(root_dir="ws", max_retries=2)]).run_sync("go")
assert [p.outcome for p in seen] == ["success", "success", "success", "retried"], [p.outcome for p in seen]
assert open("ws/notes.txt").read() == "hello\nthere\n" and "root:" not in str(seen[-1].content)
import fsbox.pydantic_ai  # the first import path still names the same class
assert fsbox.pydantic_ai.FileSystem is FileSystem
print("pydantic-ai agent through the wheel: read, search, edit ok; hostile path:", seen[-1].outcome)
PY
