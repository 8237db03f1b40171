#!/usr/bin/env bash
# The full replay corpus: the last N commits (default 400) of this repository's own history, each
# turned into one V4A patch (apply_patch) and into a sequence of text-editor calls
# (str_replace_based_edit_tool), applied through the engine on the parent's files and compared byte
# for byte with the child's. Prints the counts per format (replayed exactly, what the format cannot
# express and why, fsbox misses, each miss named); exits non-zero on any miss. With a second
# argument, each updated file's old content, V4A diff and new content are also written to that
# directory, and the OpenAI Agents SDK's reference applier (bench/replay_reference.py) replays them
# when the SDK is installed in sdks/python/.venv.
#
#   scripts/replay-corpus.sh [N] [DUMP_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
dump=${2:-}
go test ./engine -run '^TestReplayCorpus$' -count=1 -v -timeout 60m -replay.commits "${1:-400}" ${dump:+-replay.dump "$dump"} | grep -E 'replay corpus|miss:|^(ok|FAIL|---)'
if [ -n "$dump" ] && [ -x sdks/python/.venv/bin/python ]; then
	sdks/python/.venv/bin/python bench/replay_reference.py "$dump"
fi
