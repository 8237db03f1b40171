"""The provider-shaped edit tools for pydantic-ai and LangChain: ``apply_patch`` (OpenAI's V4A
patches) and ``str_replace_based_edit_tool`` (Anthropic's text editor, ``text_editor_20250728``),
served by a real fsbox process.

::

    from pydantic_ai import Agent
    from fsbox.editor_formats import editor_toolset

    agent = Agent(model, toolsets=[editor_toolset("workspace")])

    from langchain.agents import create_agent
    from fsbox.editor_formats import EditorToolkit

    with EditorToolkit("workspace") as kit:
        agent = create_agent(model, kit.get_tools())

Both are fsbox's own toolset and toolkit (:class:`fsbox.pydantic_ai.FsboxToolset`,
:class:`fsbox.langchain.FsboxToolkit`) with the two tools enabled, so errors, events and lifecycle
map as those modules say; the tools keep the providers' names and argument names (``input`` or
``operation`` for ``apply_patch``; ``command``, ``path``, ``old_str``, ``new_str``, ``insert_line``,
``insert_text``, ``view_range``, ``file_text`` for the editor), so a model trained on either
format calls them as it was trained to. ``formats`` picks one or both; ``read_file`` and other
fsbox tools can be added with ``extra_tools``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

__all__ = ["EDIT_FORMATS", "EditorToolkit", "editor_config", "editor_toolset"]

EDIT_FORMATS: tuple[str, ...] = ("apply_patch", "str_replace_based_edit_tool")
"""The provider-shaped edit tools, opt-in on the server."""


def editor_config(
    config: dict[str, Any] | None = None,
    *,
    formats: Sequence[str] = EDIT_FORMATS,
    extra_tools: Sequence[str] = (),
) -> dict[str, Any]:
    """config with its tools set to the chosen formats plus extra_tools (no other tool)."""
    unknown = [f for f in formats if f not in EDIT_FORMATS]
    if unknown or not formats:
        raise ValueError(f"formats must be a non-empty subset of {EDIT_FORMATS}, got {list(formats)}")
    cfg = dict(config or {})
    cfg["tools"] = [*extra_tools, *formats]
    return cfg


def editor_toolset(
    root_dir: str | os.PathLike[str] = ".",
    *,
    formats: Sequence[str] = EDIT_FORMATS,
    extra_tools: Sequence[str] = (),
    config: dict[str, Any] | None = None,
    **kwargs: Any,
) -> Any:
    """A pydantic-ai toolset (:class:`fsbox.pydantic_ai.FsboxToolset`) serving the edit formats.

    kwargs are FsboxToolset's (binary, approve, on_event, max_retries, id, checkpoints, audit).
    """
    from .pydantic_ai import FsboxToolset

    return FsboxToolset(root_dir, config=editor_config(config, formats=formats, extra_tools=extra_tools), **kwargs)


def EditorToolkit(  # noqa: N802 - reads as the class it returns
    root_dir: str | os.PathLike[str] = ".",
    *,
    formats: Sequence[str] = EDIT_FORMATS,
    extra_tools: Sequence[str] = (),
    config: dict[str, Any] | None = None,
    **kwargs: Any,
) -> Any:
    """A LangChain toolkit (:class:`fsbox.langchain.FsboxToolkit`) serving the edit formats.

    kwargs are FsboxToolkit's (binary, approve, review, on_event, checkpoints, audit).
    """
    from .langchain import FsboxToolkit

    return FsboxToolkit(root_dir, config=editor_config(config, formats=formats, extra_tools=extra_tools), **kwargs)
