#!/usr/bin/env bash
# One command for every number in bench/README.md: the shared side-by-side kit (run_peers.sh) with
# fsbox's scenarios, both sides of the pipe (sides.py), and the walkers over the 92k-file tree
# against fd and rg (scale.sh). Same run, same machine, so the ratios between rows are the point.
#
#   bench/run.sh                         everything: ROUNDS=3, about 10 minutes on 2 cores
#   BENCH_SCALE=0.2 HF_RUNS=5 ROUNDS=1 SIDES=0 SCALE=0 bench/run.sh     a quick smoke run
#
# What it does first:
#   - builds fsbox the way scripts/package builds a release (CGO_ENABLED=0, -trimpath,
#     -ldflags "-s -w"), into $BENCH_WORK/bin, unless FSBOX_CMD names another command;
#   - installs the MCP reference server at $MCPFS_VERSION with scripts/install-reference-mcp
#     (bin/reference-mcp/<version>, inside the repository, ignored by git);
#   - copies the kit to a temporary folder and puts bench/scenarios.json in it (the kit reads
#     scenarios.json from its own folder and is read-only to this repository), and adds one peer,
#     fsbox-text: fsbox with capabilities {result_shape: "text"}, as a framework adapter that
#     forwards only the text opens the session. The kit's own peers and rows are unchanged.
#
# Environment (all optional; the kit's own knobs pass through: ROUNDS, BENCH_SCALE, HF_RUNS,
# SKIP_INSTALL, BENCH_WORK, RESULTS, ...):
#   FSBENCH_KIT    the shared kit's folder        [../shared/bench or ../../shared/bench from here]
#   FSBOX_CMD      fsbox server command           [the release-style build, "serve"]
#   MCPFS_VERSION  reference server version       [2026.8.31, the kit's]
#   PEERS          kit peers                      [mcp-fs fsbox fsbox-text]
#   SCENARIOS      kit scenarios                  [read_small list_dir list_dir_sizes glob_tests
#                                                  tree_http edit_1000 grep_reader grep_literal]
#   SIDES=0        skip sides.py;  SCALE=0  skip scale.sh (see there for its knobs)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
if [ -z "${FSBENCH_KIT:-}" ]; then
	for k in "$repo/../shared/bench" "$repo/../../shared/bench"; do
		[ -f "$k/run_peers.sh" ] && FSBENCH_KIT="$(cd "$k" && pwd)" && break
	done
fi
kit="${FSBENCH_KIT:?set FSBENCH_KIT to the folder holding the shared run_peers.sh}"
export BENCH_WORK="${BENCH_WORK:-${TMPDIR:-/tmp}/fsbench}"
export ROUNDS="${ROUNDS:-3}"
export MCPFS_VERSION="${MCPFS_VERSION:-2026.8.31}"
mkdir -p "$BENCH_WORK/bin"

if [ -z "${FSBOX_CMD:-}" ]; then
	echo "== go build (release flags) -> \$BENCH_WORK/bin/fsbox" >&2
	(cd "$repo" && CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags "-s -w -buildid=" \
		-o "$BENCH_WORK/bin/fsbox" ./cmd/fsbox)
	FSBOX_CMD="$BENCH_WORK/bin/fsbox serve"
fi
export FSBOX_CMD
if [ -z "${PEERS_DIR:-}" ]; then
	[ "${SKIP_INSTALL:-0}" = 1 ] || "$repo/scripts/install-reference-mcp" "$MCPFS_VERSION"
	PEERS_DIR="$repo/bin/reference-mcp/$MCPFS_VERSION"
fi
export PEERS_DIR

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cp -R "$kit"/. "$tmp"/
chmod -R u+w "$tmp"
cp "$here/scenarios.json" "$tmp/scenarios.json"

# The fsbox-text peer: the kit's fsbox dialect with capabilities from FSBOX_CAPABILITIES_JSON.
# Patched into the temporary copy only; if the kit changed so the patch no longer applies, the
# peer is dropped with a warning and everything else runs as the kit is.
peers="${PEERS:-mcp-fs fsbox fsbox-text}"
if ! python3 - "$tmp" <<'EOF'
import sys
d = sys.argv[1]
def patch(path, old, new):
    s = open(path).read()
    if s.count(old) != 1:
        raise SystemExit("kit patch: %r not found once in %s" % (old[:60], path))
    open(path, "w").write(s.replace(old, new))
patch(d + "/mcp_client.py",
      '        params = {"protocol_version": "1", "config": config}\n',
      '        params = {"protocol_version": "1", "config": config}\n'
      '        caps = json.loads(os.environ.get("FSBOX_CAPABILITIES_JSON") or "{}")\n'
      '        if caps:\n'
      '            params["capabilities"] = caps\n')
patch(d + "/run_peers.sh",
      '      case "$peer" in\n        mcp-fs)',
      '      caps=""\n      case "$peer" in\n'
      '        fsbox-text)\n'
      '          [ -n "$FSBOX_CMD" ] || continue\n'
      '          caps=\'{"result_shape":"text"}\'; dialect=fsbox; read -r -a argv <<<"$FSBOX_CMD" ;;\n'
      '        mcp-fs)')
patch(d + "/run_peers.sh",
      '      "${CLIENT[@]}" --scenario',
      '      FSBOX_CAPABILITIES_JSON="$caps" "${CLIENT[@]}" --scenario')
EOF
then
	echo "warn: the kit could not be patched for the fsbox-text peer; running without it" >&2
	peers="${peers//fsbox-text/}"
fi
export PEERS="$peers"
export SCENARIOS="${SCENARIOS:-read_small list_dir list_dir_sizes glob_tests tree_http edit_1000 grep_reader grep_literal}"
export RESULTS="${RESULTS:-$BENCH_WORK/results/$(date -u +%Y%m%d-%H%M%S)}"
mkdir -p "$RESULTS"
status=0
"$tmp/run_peers.sh" || status=$?

corpus="$BENCH_WORK/corpus"
if [ "${SIDES:-1}" != 0 ]; then
	echo "== both sides of the pipe (sides.py)" >&2
	mcp="node $PEERS_DIR/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js $corpus"
	python3 "$here/sides.py" --root "$corpus" --fsbox "$FSBOX_CMD" --mcp "$mcp" \
		--rounds "$ROUNDS" --json-out "$RESULTS/sides.jsonl" | tee "$RESULTS/sides.md" || status=$?
fi
if [ "${SCALE:-1}" != 0 ]; then
	echo "== the 92k-file tree (scale.sh)" >&2
	"$here/scale.sh" | tee "$RESULTS/scale.md" || status=$?
fi
echo "results: $RESULTS" >&2
exit $status
