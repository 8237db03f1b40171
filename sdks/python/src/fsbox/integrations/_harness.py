"""pydantic-ai-harness's filesystem event types, when that package is installed.

Code written for ``pydantic_ai_harness.FileSystem`` listens with
``@agent.on_event(FileChangeRequestEvent)`` (to veto a change) or ``FileWrittenEvent`` and its
siblings (to observe). The harness documents those types as the ones any host with its own file
tools should emit, so the fsbox drop-in emits them too, with the harness's payloads, and tags its
tools with the harness's tool kinds (so a read returns a ``ReadFileReturnPart``). Without the
harness installed, nothing here is used and fsbox's own typed events go to ``on_fsbox_event`` only.

What this protects: a veto or an observer registered for the harness's types keeps working after
the import is swapped. What it does not: a listener that calls back into the same fsbox toolset
from inside a ``FileChangeRequestEvent`` waits on itself (listeners run while the server waits for
the answer), and fsbox's ``delete``/``move``/``remove_directory`` have no harness event type, so only
``on_fsbox_event`` hears them.
"""

from __future__ import annotations

from typing import Any

from types import ModuleType

_hfs: ModuleType | None
try:
    from pydantic_ai_harness import filesystem as _hfs
except ImportError:  # pragma: no cover - exercised where the harness is not installed
    _hfs = None

__all__ = ["available", "change_request_event", "harness_event", "refusal", "tool_kind"]


def available() -> bool:
    """Whether pydantic-ai-harness is importable, so its event types can be emitted."""
    return _hfs is not None


def _diff(text: str) -> str:
    # fsbox ends every diff line with a newline, so a diff applies with patch as it arrives; the
    # harness joins lines without a final one. Its listeners get its own spelling.
    return text[:-1] if text.endswith("\n") else text


def harness_event(event: Any) -> Any | None:
    """The harness event for one fsbox event, or None when the harness has no such type.

    fsbox's ``path`` is root-relative and resolved; ``root_dir`` the resolved absolute root;
    both as the harness's fields say.
    """
    if _hfs is None:
        return None
    kind = getattr(event, "kind", "")
    loc = {"path": event.path, "root_dir": event.root_dir}
    if kind == "file_system.file_read":
        return _hfs.FileReadEvent(**loc, content_hash=event.content_hash)
    if kind == "file_system.directory_listed":
        return _hfs.DirectoryListedEvent(**loc, entry_count=event.entry_count)
    if kind == "file_system.file_edited":
        return _hfs.FileEditedEvent(
            **loc, content_hash=event.content_hash, diff=_diff(event.diff), truncated=bool(event.truncated)
        )
    if kind == "file_system.file_written":
        return _hfs.FileWrittenEvent(**loc, content_hash=event.content_hash)
    if kind == "file_system.directory_created":
        return _hfs.DirectoryCreatedEvent(**loc)
    if kind == "file_system.files_searched":
        return _hfs.FilesSearchedEvent(
            **loc,
            pattern=event.pattern,
            search=event.search,
            match_count=event.match_count,
            truncated=bool(event.truncated),
        )
    return None


_OPERATIONS = {"write", "edit", "create_directory"}


def change_request_event(req: Any) -> Any | None:
    """The harness's FileChangeRequestEvent for an fsbox change request, or None when the harness
    is missing or has no such operation (fsbox's delete, move, remove_directory)."""
    if _hfs is None or req.operation not in _OPERATIONS:
        return None
    return _hfs.FileChangeRequestEvent(
        path=req.path,
        root_dir=req.root_dir,
        operation=req.operation,
        diff=_diff(req.diff or ""),
        truncated=bool(req.truncated),
    )


DEFAULT_CANCEL_REASON = "cancelled by a listener"
"""The reason the harness gives the model when a listener cancels without one."""


def refusal(event: Any) -> str | None:
    """The reason a listener cancelled event with, or None when no listener cancelled it."""
    if not getattr(event, "cancelled", False):
        return None
    return getattr(event, "cancel_reason", None) or DEFAULT_CANCEL_REASON


def tool_kind(name: str) -> Any | None:
    """The harness's tool kind for the tool called name (so pydantic-ai types its parts), or None."""
    if _hfs is None:
        return None
    # The public constants, one per tool, named after the tool (READ_FILE_KIND for read_file).
    return getattr(_hfs, f"{name.upper()}_KIND", None)
