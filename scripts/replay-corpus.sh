#!/usr/bin/env bash
# The full replay corpus of apply_patch: the last N commits (default 400) of this repository's own
# history, each turned into one V4A patch and applied through the engine on the parent's files,
# compared byte for byte with the child's. Prints the counts (replayed exactly, the format cannot
# express, fsbox misses, each miss named); exits non-zero on any miss.
#
#   scripts/replay-corpus.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
go test ./engine -run '^TestReplayCorpus$' -count=1 -v -timeout 60m -replay.commits "${1:-400}" | grep -E 'replay corpus|miss:|^(ok|FAIL|---)'
