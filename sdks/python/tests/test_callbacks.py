"""Events and change requests: typed, in wire order, before the call that caused them returns."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import fsbox
from conftest import ClientFactory


def test_events_arrive_typed_before_the_call_returns(
    make_client: ClientFactory, root: Path
) -> None:
    events: list[fsbox.Event] = []
    fs = make_client(on_event=events.append)
    w = fs.write_file(path="a.txt", content="hi\n")
    assert len(events) == 1
    written = events[0]
    assert isinstance(written, fsbox.FileWrittenEvent)
    assert (written.kind, written.path, written.root_dir, written.tool) == (
        "file_system.file_written",
        "a.txt",
        str(root),
        "write_file",
    )
    assert written.content_hash == w.hash

    fs.read_file(path="a.txt")
    fs.edit_file(path="a.txt", old_text="hi", new_text="ho")
    fs.list_directory()
    fs.search_files(pattern="ho")
    fs.find_files(pattern="*.txt")
    assert [type(e) for e in events[1:]] == [
        fsbox.FileReadEvent,
        fsbox.FileEditedEvent,
        fsbox.DirectoryListedEvent,
        fsbox.FilesSearchedEvent,
        fsbox.FilesSearchedEvent,
    ]
    edited = events[2]
    assert isinstance(edited, fsbox.FileEditedEvent)
    assert "-hi\n+ho" in edited.diff
    searched = [e for e in events if isinstance(e, fsbox.FilesSearchedEvent)]
    assert [(e.search, e.match_count) for e in searched] == [("grep", 1), ("find", 1)]


def test_failed_call_emits_no_event(make_client: ClientFactory) -> None:
    events: list[fsbox.Event] = []
    fs = make_client(on_event=events.append)
    with pytest.raises(fsbox.ToolRetryError):
        fs.read_file(path="missing.txt")
    assert events == []


def test_coroutine_on_event(make_client: ClientFactory, root: Path) -> None:
    (root / "c.txt").write_text("c\n")
    seen: list[str] = []

    async def on_event(event: fsbox.Event) -> None:
        await asyncio.sleep(0)
        seen.append(event.kind)

    fs = make_client(on_event=on_event)
    fs.read_file(path="c.txt")
    assert seen == ["file_system.file_read"]


def test_change_request_cancelled(make_client: ClientFactory, root: Path) -> None:
    (root / "keep.txt").write_text("old\n")
    requests: list[fsbox.ChangeRequest] = []
    events: list[fsbox.Event] = []

    def refuse(request: fsbox.ChangeRequest) -> None:
        requests.append(request)
        request.cancel("not today")

    fs = make_client(on_change_request=refuse, on_event=events.append)
    r = fs.write_file(path="keep.txt", content="new\n")
    assert r.cancelled is True
    assert r.cancel_reason == "not today"
    assert r.text == "['keep.txt' was not written: not today]"
    assert (root / "keep.txt").read_text() == "old\n"
    assert events == []
    (request,) = requests
    assert isinstance(request, fsbox.FileChangeRequest)
    assert (request.kind, request.path, request.operation, request.tool, request.reason) == (
        "file_system.file_change_request",
        "keep.txt",
        "write",
        "write_file",
        "listener",
    )
    assert "-old\n+new" in request.diff
    assert request.root_dir == str(root)


def test_change_request_approved_by_returning(make_client: ClientFactory, root: Path) -> None:
    operations: list[str] = []
    fs = make_client(on_change_request=lambda request: operations.append(request.operation))
    r = fs.write_file(path="w.txt", content="x\n")
    assert not r.cancelled
    assert (root / "w.txt").read_text() == "x\n"
    fs.edit_file(path="w.txt", old_text="x", new_text="y")
    fs.create_directory(path="d")
    assert operations == ["write", "edit", "create_directory"]
    assert (root / "w.txt").read_text() == "y\n"


def test_coroutine_change_request_in_sync_client(make_client: ClientFactory, root: Path) -> None:
    async def refuse(request: fsbox.ChangeRequest) -> None:
        await asyncio.sleep(0)
        request.cancel("async no")

    fs = make_client(on_change_request=refuse)
    r = fs.create_directory(path="nope")
    assert r.cancelled is True
    assert r.cancel_reason == "async no"
    assert not (root / "nope").exists()


def test_cancel_without_reason_keeps_earlier_reason() -> None:
    request = fsbox.ChangeRequest(
        path="a",
        root_dir="/r",
        tool="write_file",
        operation="write",
        diff="",
        truncated=False,
        reason="listener",
    )
    request.cancel("first")
    request.cancel()
    assert request.answer() == {"approve": False, "reason": "first"}
    fresh = fsbox.ChangeRequest(
        path="a",
        root_dir="/r",
        tool="write_file",
        operation="write",
        diff="",
        truncated=False,
        reason="listener",
    )
    assert fresh.answer() == {"approve": True}


def test_change_request_edited(make_client: ClientFactory, root: Path) -> None:
    (root / "t.txt").write_text("a\nb\n")
    events: list[fsbox.Event] = []

    def review(request: fsbox.ChangeRequest) -> None:
        if request.operation == "write":
            request.approve_with("reviewed\n")
        else:
            request.edit(arguments=fsbox.EditFileArgs(path="t.txt", old_text="b", new_text="B"))

    fs = make_client(on_change_request=review, on_event=events.append)
    w = fs.write_file(path="w.txt", content="model\n")
    assert w.modified_by_reviewer is True
    assert w.text.endswith("\nNote: the reviewer modified this change before it was applied.")
    e = fs.edit_file(path="t.txt", old_text="a", new_text="A")
    assert e.modified_by_reviewer is True
    assert (root / "w.txt").read_text() == "reviewed\n"
    assert (root / "t.txt").read_text() == "a\nB\n"
    assert [getattr(ev, "modified_by_reviewer", None) for ev in events] == [True, True]


def test_change_request_edit_answers() -> None:
    request = fsbox.ChangeRequest(
        path="a", root_dir="/r", tool="write_file", operation="write", diff="", truncated=False, reason="listener"
    )
    request.approve_with("new")
    assert request.answer() == {"approve": False, "decision": "edit", "content": "new"}
    request.cancel("no")
    assert request.answer() == {"approve": False, "reason": "no"}
    request.edit(arguments={"path": "b", "content": "x"})
    assert request.answer() == {"approve": False, "decision": "edit", "arguments": {"path": "b", "content": "x"}}
    request.approve_with("last")
    assert request.answer() == {"approve": False, "decision": "edit", "content": "last"}
    with pytest.raises(TypeError):
        request.edit("a whole file")  # content goes through approve_with
    with pytest.raises(TypeError):
        request.approve_with(None)  # type: ignore[arg-type]


def test_raising_change_request_aborts_with_fatal(make_client: ClientFactory, root: Path) -> None:
    def explode(request: fsbox.ChangeRequest) -> None:
        raise ValueError("policy engine down")

    fs = make_client(on_change_request=explode)
    with pytest.raises(fsbox.ToolFatalError) as e:
        fs.write_file(path="no.txt", content="x")
    assert e.value.kind == "change_request_failed"
    assert not (root / "no.txt").exists()
    # The connection survives: the next call works.
    assert fs.list_directory().text == "(empty directory)"


def test_callback_calling_the_client_is_refused(make_client: ClientFactory, root: Path) -> None:
    holder: list[fsbox.Client] = []
    errors: list[BaseException] = []

    def reenter(request: fsbox.ChangeRequest) -> None:
        try:
            holder[0].list_directory()
        except RuntimeError as e:
            errors.append(e)
            raise

    fs = make_client(on_change_request=reenter)
    holder.append(fs)
    with pytest.raises(fsbox.ToolFatalError):
        fs.write_file(path="r.txt", content="x")
    assert "cannot call the client" in str(errors[0])
