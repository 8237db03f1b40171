"""The generated wire types and the error table, without a server."""

from __future__ import annotations

from typing import Any

import pytest

import fsbox
from fsbox.errors import error_from_wire


def test_from_wire_ignores_unknown_fields_and_to_wire_omits_none() -> None:
    data: dict[str, Any] = {
        "text": "t",
        "path": "a.txt",
        "binary": False,
        "size": 3,
        "total_lines": 1,
        "offset": 0,
        "lines_shown": 1,
        "from_a_newer_server": {"x": 1},
    }
    r = fsbox.ReadFileResult.from_wire(data)
    assert r.next_offset is None and r.hash is None
    wire = r.to_wire()
    assert "from_a_newer_server" not in wire
    assert "next_offset" not in wire and "hash" not in wire
    assert wire == {k: v for k, v in data.items() if k != "from_a_newer_server"}


def test_nested_types_round_trip() -> None:
    data = {
        "text": "t",
        "path": ".",
        "truncated": False,
        "entries": [{"path": "a/", "type": "directory"}, {"path": "b", "type": "file", "size": 2}],
    }
    r = fsbox.ListDirectoryResult.from_wire(data)
    assert isinstance(r.entries[1], fsbox.DirEntry)
    assert r.entries[1].size == 2
    assert r.to_wire() == data


def test_wrong_types_name_the_field() -> None:
    bad = {
        "text": "t",
        "path": ".",
        "truncated": False,
        "entries": [{"path": "a", "type": "file", "size": "big"}],
    }
    with pytest.raises(
        fsbox.WireError, match=r"entries: \[0\]: size: want an integer, have a string"
    ):
        fsbox.ListDirectoryResult.from_wire(bad)
    with pytest.raises(fsbox.WireError, match="text: missing"):
        fsbox.FindFilesResult.from_wire({"paths": [], "truncated": False})
    with pytest.raises(fsbox.WireError, match="want an integer, have a boolean"):
        fsbox.ReadFileArgs.from_wire({"path": "a", "offset": True})


def test_events_decode_by_kind() -> None:
    event = fsbox.event_from_wire(
        {
            "kind": "file_system.directory_created",
            "path": "d",
            "root_dir": "/r",
            "tool": "create_directory",
        }
    )
    assert isinstance(event, fsbox.DirectoryCreatedEvent)
    assert fsbox.event_from_wire({"kind": "file_system.from_the_future"}) is None
    with pytest.raises(fsbox.WireError):
        fsbox.FileReadEvent.from_wire(
            {
                "kind": "file_system.file_written",
                "path": "a",
                "root_dir": "/",
                "tool": "t",
                "content_hash": "h",
            }
        )


def test_tool_methods_send_wire_names_and_omit_none() -> None:
    args = fsbox.EditFileArgs(
        path="a", replacements=[fsbox.Replacement(old_text="x", new_text="y")]
    )
    assert args.to_wire() == {"path": "a", "replacements": [{"old_text": "x", "new_text": "y"}]}
    assert fsbox.ReadFileArgs(path="a", offset=0).to_wire() == {"path": "a", "offset": 0}


def test_every_tool_has_a_typed_method_and_result() -> None:
    for name in fsbox.TOOL_NAMES:
        assert callable(getattr(fsbox.Client, name))
        assert callable(getattr(fsbox.AsyncClient, name))
        assert name in fsbox.TOOL_RESULTS


@pytest.mark.parametrize(
    ("error", "cls", "kind", "path"),
    [
        (
            {
                "code": -32001,
                "message": "m",
                "data": {"kind": "stale_hash", "retry": True, "path": "a"},
            },
            fsbox.ToolRetryError,
            "stale_hash",
            "a",
        ),
        (
            {"code": -32002, "message": "m", "data": {"kind": "io_error", "retry": False}},
            fsbox.ToolFatalError,
            "io_error",
            None,
        ),
        (
            {"code": -32602, "message": "m", "data": {"kind": "unknown_tool", "retry": True}},
            fsbox.ToolRetryError,
            "unknown_tool",
            None,
        ),
        ({"code": -32602, "message": "m"}, fsbox.ToolRetryError, "invalid_arguments", None),
        ({"code": -32800, "message": "m"}, fsbox.ToolFatalError, "cancelled", None),
        (
            {"code": -32001, "message": "m", "data": {"kind": "not_found"}},
            fsbox.ToolRetryError,
            "not_found",
            None,
        ),
        (
            {"code": -32002, "message": "m", "data": {"kind": "brand_new_kind"}},
            fsbox.ToolFatalError,
            "brand_new_kind",
            None,
        ),
    ],
)
def test_error_mapping(
    error: dict[str, Any], cls: type[fsbox.FsboxError], kind: str, path: str | None
) -> None:
    e = error_from_wire(error)
    assert type(e) is cls
    assert (e.kind, e.path, e.message, e.code) == (kind, path, "m", error["code"])


def test_error_kind_table_matches_protocol() -> None:
    assert fsbox.ERROR_KINDS["stale_hash"].retry is True
    assert fsbox.ERROR_KINDS["change_request_failed"].retry is False
    assert fsbox.ERROR_CODES["retry"] == -32001
