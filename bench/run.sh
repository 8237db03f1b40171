#!/usr/bin/env bash
# Runs the shared side-by-side kit (run_peers.sh) with fsbox's scenarios.json.
#
# The kit reads scenarios.json from its own folder and is read-only to this repo, so this copies
# it to a temporary folder, puts bench/scenarios.json in, and runs it there. Everything else is
# the kit's own: its environment knobs (ROUNDS, BENCH_SCALE, FSBOX_CMD, SCENARIOS, ...) pass
# through unchanged. See bench/README.md.
#
#   FSBENCH_KIT   the shared kit's folder  [required: where run_peers.sh lives]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
kit="${FSBENCH_KIT:?set FSBENCH_KIT to the folder holding the shared run_peers.sh}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cp -R "$kit"/. "$tmp"/
cp "$here/scenarios.json" "$tmp/scenarios.json"
export SCENARIOS="${SCENARIOS:-read_small list_dir glob_tests tree_http edit_1000 grep_reader grep_literal}"
"$tmp/run_peers.sh"
