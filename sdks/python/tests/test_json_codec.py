"""The SDK's own per-call path (bench/sdk_overhead.py): orjson when installed, the standard library
otherwise, and the generated from_wire fast path. Each must give exactly what the plain path
gives: the same results from the same server, the same values accepted and refused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import fsbox
from fsbox import _transport
from fsbox._types_gen import DirEntry, ListDirectoryResult, ReadFileResult, SearchFilesResult
from fsbox._wire import WireError

orjson = pytest.importorskip("orjson", reason="pip install 'fsbox[fast]' (orjson) for this test")


@pytest.fixture
def codec() -> Iterator[None]:
    """Restore the default decoder after a test that switches it."""
    yield
    _transport.use_json_module(orjson)


def _calls(fs: fsbox.Client) -> list[dict[str, Any]]:
    return [
        fs.read_file(path="notes.txt").to_wire(),
        fs.list_directory(path=".").to_wire(),
        fs.search_files(pattern="ü").to_wire(),
        fs.call("read_file", {"path": "notes.txt"}).to_wire(),
    ]


def test_orjson_and_json_decode_the_same_results(fsbox_bin: str, root: Path, codec: None) -> None:
    (root / "notes.txt").write_text("grüße \u2028 \"quoted\" \\ tab\t\n" * 50 + "ü\U0001f600\n")
    (root / "sub").mkdir()
    seen = {}
    for module in (json, orjson):
        _transport.use_json_module(module)
        assert _transport.json_decoder_name() == module.__name__
        with fsbox.Client(root, binary=fsbox_bin) as fs:
            seen[module.__name__] = _calls(fs)
    assert seen["orjson"] == seen["json"]
    assert "grüße" in seen["json"][0]["content"]


def test_decode_falls_back_to_json_for_what_orjson_refuses(codec: None) -> None:
    _transport.use_json_module(orjson)
    # orjson refuses NaN and lone surrogate escapes; the standard library decides, as without it.
    assert str(_transport.decode(b'{"x": NaN}')["x"]) == "nan"
    assert _transport.decode(b'{"x": "\\ud800"}') == {"x": "\ud800"}
    with pytest.raises(ValueError):
        _transport.decode(b'{"x": ')


def test_the_sdk_works_without_orjson(fsbox_bin: str, root: Path) -> None:
    (root / "a.txt").write_text("hello\n")
    script = (
        "import sys; sys.modules['orjson'] = None\n"  # import orjson now fails, as when not installed
        "import fsbox\n"
        "from fsbox import _transport\n"
        "assert _transport.json_decoder_name() == 'json', _transport.json_decoder_name()\n"
        f"with fsbox.Client({str(root)!r}, binary={fsbox_bin!r}) as fs:\n"
        "    print(fs.read_file(path='a.txt').content, end='')\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "hello\n"


def test_orjson_is_the_default_when_installed() -> None:
    assert _transport.json_decoder_name() == "orjson"


# The generated from_wire: a fast path for well-typed data, and the checked path for the message.
# Every value the checked converters refuse must be refused by the fast path too.

_ENTRY = {"path": "a.go", "type": "file", "size": 3}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({**_ENTRY, "size": True}, "size: want an integer, have a boolean"),
        ({**_ENTRY, "size": 1.5}, "size: want an integer, have a number"),
        ({**_ENTRY, "size": "3"}, "size: want an integer, have a string"),
        ({**_ENTRY, "path": None}, "path: want a string, have null"),
        ({"type": "file"}, "path: missing"),
        ({**_ENTRY, "type": 1}, "type: want a string, have a number"),
        ({**_ENTRY, "modified_at": 5}, "modified_at: want a string, have a number"),
    ],
)
def test_from_wire_refuses_what_the_checked_path_refuses(data: dict[str, Any], message: str) -> None:
    with pytest.raises(WireError, match=f"^{message}$"):
        DirEntry.from_wire(data)


def test_from_wire_arrays_of_objects_name_the_index() -> None:
    base = {"text": "", "path": ".", "truncated": False}
    for entries, message in (
        ([_ENTRY, 3], r"entries: \[1\]: want an object, have a number"),
        ([_ENTRY, {**_ENTRY, "size": False}], r"entries: \[1\]: size: want an integer, have a boolean"),
        ([_ENTRY, ["x"]], r"entries: \[1\]: want an object, have an array"),
        ({"0": _ENTRY}, "entries: want an array, have an object"),
    ):
        with pytest.raises(WireError, match=f"^{message}$"):
            ListDirectoryResult.from_wire({**base, "entries": entries})
    got = ListDirectoryResult.from_wire({**base, "entries": [_ENTRY, {"path": "d", "type": "directory"}]})
    assert [e.path for e in got.entries] == ["a.go", "d"] and got.entries[1].size is None


def test_from_wire_fast_path_keeps_optional_fields_and_nested_types() -> None:
    r = ReadFileResult.from_wire(
        {"text": "t", "path": "p", "binary": False, "size": 1, "total_lines": 1, "offset": 0,
         "lines_shown": 1, "next_offset": None, "data": "aGk=", "extra": 1}
    )
    assert r.next_offset is None and r.data == b"hi" and r.hash is None
    with pytest.raises(WireError, match="^data: invalid base64"):
        ReadFileResult.from_wire({**r.to_wire(), "data": "!!"})
    with pytest.raises(WireError, match=r"^matches: \[0\]: line: want an integer, have a boolean$"):
        SearchFilesResult.from_wire(
            {"text": "", "truncated": False,
             "matches": [{"path": "a", "line": True, "text": "x"}]}
        )
