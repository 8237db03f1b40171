#!/usr/bin/env bash
# How the walkers' cost grows with the tree: find_files, search_files, list_files and grep over
# GOROOT/src (about 11.5k files) and over eight copies of it (about 92k files), each against the
# fd or rg command that answers the same question, all with process start (fsbox call runs one
# tool call in a fresh process, as fd and rg do). hyperfine, warm page cache, same run.
#
#   bench/scale.sh                 prints a markdown table (bench/run.sh runs it)
#
# Environment:
#   SCALE_WORK  where the eight copies are made, once, and kept     [${TMPDIR:-/tmp}/fsbench-scale]
#   FSBOX_BIN   the fsbox binary                                    [$BENCH_WORK/bin/fsbox, built by run.sh]
#   HF_RUNS     hyperfine runs per command                          [10]
# Needs hyperfine, rg and fd (Debian: apt-get install hyperfine ripgrep fd-find; the binary is
# then fdfind).
set -euo pipefail
BENCH_WORK="${BENCH_WORK:-${TMPDIR:-/tmp}/fsbench}"
SCALE_WORK="${SCALE_WORK:-${TMPDIR:-/tmp}/fsbench-scale}"
FSBOX_BIN="${FSBOX_BIN:-$BENCH_WORK/bin/fsbox}"
HF_RUNS="${HF_RUNS:-10}"
FD="$(command -v fd || command -v fdfind || true)"
for t in hyperfine rg "$FD" "$FSBOX_BIN"; do
	[ -n "$t" ] && command -v "$t" >/dev/null || { echo "scale.sh: missing ${t:-fd}" >&2; exit 1; }
done
src="$(go env GOROOT)/src"
one="$SCALE_WORK/one"   # one copy: GOROOT/src
eight="$SCALE_WORK/eight" # copy1 .. copy8
fp() { (cd "$1" && find . -type f | wc -l); }
want=$(($(fp "$src") * 8))
if [ ! -d "$eight" ] || [ "$(fp "$eight")" != "$want" ]; then
	echo "== making eight copies of GOROOT/src in \$SCALE_WORK (once)" >&2
	rm -rf "$one" "$eight"
	mkdir -p "$eight"
	cp -a "$src" "$one"
	for i in 1 2 3 4 5 6 7 8; do cp -a "$src" "$eight/copy$i"; done
	chmod -R u+w "$one" "$eight"
fi
cfg="$SCALE_WORK/config.json"
# Caps raised so no answer is cut short of the reference's (the MCP kit's client does the same).
echo '{"max_find_results": 1000000, "max_search_results": 1000000, "max_list_results": 1000000}' >"$cfg"

results="$(mktemp -d)"
trap 'rm -rf "$results"' EXIT
# name | fsbox call arguments | reference command | what the reference is
cases=(
	"find_files **/x.go|find_files 'pattern=**/x.go'|$FD -g x.go|fd -g x.go"
	"search_files literal, no hit|search_files 'pattern=func \\(\\*Reader\\)'|rg -n 'func \\(\\*Reader\\)'|rg -n"
	"list_files -g x.go|list_files glob=x.go|rg --files -g x.go|rg --files -g"
	"grep literal, no hit|grep 'pattern=func \\(\\*Reader\\)'|rg -n 'func \\(\\*Reader\\)'|rg -n"
)
echo "| call | tree | files | fsbox ms | reference | reference ms | fsbox ÷ reference | CPU ms fsbox / reference |"
echo "|---|---|--:|--:|---|--:|--:|--:|"
for tree in one eight; do
	dir="$SCALE_WORK/$tree"
	files="$(fp "$dir")"
	for c in "${cases[@]}"; do
		IFS='|' read -r name fargs ref what <<<"$c"
		key="$(echo "$tree-$name" | tr -c 'a-zA-Z0-9' _)"
		# -i: rg and the walkers exit 1 when nothing matches
		hyperfine -N --warmup 2 --runs "$HF_RUNS" -i --export-json "$results/$key.json" \
			"$FSBOX_BIN call $fargs --config $cfg --root $dir" "$ref $dir" >/dev/null 2>&1 ||
			{ echo "| $name | $tree | $files | failed | $what | | |"; continue; }
		python3 - "$results/$key.json" "$name" "$tree" "$files" "$what" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
f, ref = r[0]["median"] * 1e3, r[1]["median"] * 1e3
cpu = [(x["user"] + x["system"]) * 1e3 for x in r]  # means over the runs, all threads
print("| %s | %s | %s | %.1f | `%s` | %.1f | %.2f | %.0f / %.0f |" % (
    sys.argv[2], sys.argv[3], sys.argv[4], f, sys.argv[5], ref, f / ref, cpu[0], cpu[1]))
EOF
	done
done
