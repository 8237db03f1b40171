"""Replay the apply_patch corpus through the OpenAI Agents SDK's reference V4A applier.

scripts/replay-corpus.sh N DIR writes, for every file the corpus updates, DIR/NNNNN.old (the parent's
content), NNNNN.diff (the V4A hunks fsbox replayed) and NNNNN.new (the child's content). This script
applies each diff with the SDK's `agents.apply_diff.apply_diff` and compares with the child byte for
byte, so the two appliers are counted side by side on the same diffs. Usage:

    sdks/python/.venv/bin/python bench/replay_reference.py DIR
"""

from __future__ import annotations

import sys
from importlib.metadata import version
from pathlib import Path


def main() -> int:
    try:
        from agents.apply_diff import apply_diff
    except ImportError:
        print("reference applier: openai-agents is not installed; skipped")
        return 0
    root = Path(sys.argv[1])
    exact = differ = raised = 0
    examples: list[str] = []
    for old in sorted(root.glob("*.old")):
        base = old.with_suffix("")
        before = old.read_bytes().decode("utf-8", "surrogateescape")
        diff = base.with_suffix(".diff").read_bytes().decode("utf-8", "surrogateescape")
        want = base.with_suffix(".new").read_bytes().decode("utf-8", "surrogateescape")
        try:
            got = apply_diff(before, diff)
        except Exception as err:  # the applier's refusal, counted as such
            raised += 1
            if len(examples) < 5:
                examples.append(f"{base.name}: raised {type(err).__name__}: {str(err)[:120]}")
            continue
        if got == want:
            exact += 1
        else:
            differ += 1
            if len(examples) < 5:
                examples.append(f"{base.name}: result differs from the child")
    total = exact + differ + raised
    print(
        f"reference applier (openai-agents {version('openai-agents')} apply_diff), {total} updated files: "
        f"{exact} exact, {differ} different, {raised} raised"
    )
    for e in examples:
        print("  " + e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
