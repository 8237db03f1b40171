"""Every Python example under examples/ runs, offline, against the real fsbox binary."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

from conftest import REPO

EXAMPLES = sorted((REPO / "examples").glob("*.py"))
FINAL = {
    "pydantic_ai_agent.py": ("notes.md", "# Notes\nfsbox is a sandbox.\n"),
    "langchain_agent.py": ("todo.txt", "- write docs\n- ship it\n"),
    "deepagents_agent.py": ("drafts/plan.md", "1. read\n2. write\n"),
    "openai_agents_apply_patch.py": ("greet.py", 'def greet(name):\n    return "Hello, " + name\n'),
    "pydantic_ai_editor_formats.py": ("config.toml", "[server]\nport = 8080\nhost = localhost\ndebug = false\n"),
    "langchain_text_editor.py": ("README.md", "# Project\n\nInstall with pip.\n"),
}


def test_every_example_is_checked() -> None:
    assert sorted(p.name for p in EXAMPLES) == sorted(FINAL)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(example: pathlib.Path, tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    env = {**os.environ, "FSBOX_BIN": fsbox_bin}
    run = subprocess.run(
        [sys.executable, str(example), str(tmp_path)], env=env, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    name, content = FINAL[example.name]
    assert (tmp_path / name).read_text() == content
    assert content in run.stdout
