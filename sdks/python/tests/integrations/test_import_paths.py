"""The adapters' public import paths (fsbox.pydantic_ai, fsbox.langchain, fsbox.deepagents,
fsbox.openai_agents, fsbox.editor_formats) keep
working: each exposes exactly the public names of its fsbox.integrations module, as the same
objects, so code written against either path sees one class, one isinstance, one monkeypatch target
for the public names."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

ADAPTERS = {
    # old path -> (new path, the framework module the adapter needs)
    "fsbox.pydantic_ai": ("fsbox.integrations.pydantic_ai", "pydantic_ai"),
    "fsbox.langchain": ("fsbox.integrations.langchain", "langchain_core"),
    "fsbox.deepagents": ("fsbox.integrations.deepagents", "deepagents"),
    "fsbox.openai_agents": ("fsbox.integrations.openai_agents", "agents"),
    "fsbox.editor_formats": ("fsbox.integrations.editor_formats", "fsbox"),  # imports lazily
}


@pytest.mark.parametrize("old", sorted(ADAPTERS))
def test_old_path_exposes_the_same_objects(old: str) -> None:
    new, framework = ADAPTERS[old]
    pytest.importorskip(framework, reason=f"install the extra that brings {framework}")
    old_mod = importlib.import_module(old)
    new_mod = importlib.import_module(new)
    public = list(new_mod.__all__)
    assert public, f"{new} declares no public names"
    assert sorted(old_mod.__all__) == sorted(public), f"{old} and {new} export different names"
    for name in public:
        assert getattr(old_mod, name) is getattr(new_mod, name), f"{old}.{name} is not {new}.{name}"
    star: dict[str, object] = {}
    exec(f"from {old} import *", star)  # noqa: S102 - the star import users may write
    assert {k for k in star if not k.startswith("__")} == set(public)


def test_the_package_imports_no_framework() -> None:
    # Importing fsbox.integrations alone must not need any extra: each adapter imports its own.
    code = (
        "import sys, fsbox.integrations\n"
        "print(sorted(m for m in ('pydantic_ai', 'langchain_core', 'langgraph', 'deepagents')"
        " if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
