"""result_shape: text-only and typed-only results, and the default, against the real binary."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import fsbox
from conftest import ClientFactory


def test_default_shape_is_both(make_client: ClientFactory, root: Path) -> None:
    (root / "a.txt").write_text("hello\n")
    fs = make_client()
    assert fs.initialize_result.result_shape == "both"
    r = fs.read_file(path="a.txt")
    assert r.text.endswith("     1\thello\n") and r.total_lines == 1


def test_text_shape(make_client: ClientFactory, root: Path) -> None:
    (root / "a.txt").write_text("hello\n")
    both = make_client().read_file(path="a.txt")
    fs = make_client(result_shape="text")
    assert fs.initialize_result.result_shape == "text"
    r = fs.call("read_file", {"path": "a.txt"})
    assert isinstance(r, fsbox.RawResult)
    assert r.text == both.text
    assert r.data == {"text": both.text}
    listing = fs.call("list_directory", {})
    assert isinstance(listing, fsbox.RawResult) and listing.text.startswith("a.txt")
    with pytest.raises(fsbox.ResultShapeError, match=r"call\('read_file'"):
        fs.read_file(path="a.txt")
    # The refusal comes before the call: a typed write does not happen behind an error.
    with pytest.raises(fsbox.ResultShapeError):
        fs.write_file(path="new.txt", content="x")
    assert not (root / "new.txt").exists()
    with pytest.raises(fsbox.ToolRetryError) as err:
        fs.call("read_file", {"path": "missing.txt"})
    assert err.value.kind == "not_found"


def test_typed_shape(make_client: ClientFactory, root: Path) -> None:
    (root / "a.txt").write_text("hello\n")
    fs = make_client(result_shape="typed")
    assert fs.initialize_result.result_shape == "typed"
    r = fs.read_file(path="a.txt")
    assert (r.text, r.path, r.total_lines) == ("", "a.txt", 1)
    listing = fs.list_directory()
    assert [e.path for e in listing.entries] == ["a.txt"] and listing.text == ""


def test_unknown_shape_refused(make_client: ClientFactory) -> None:
    with pytest.raises(fsbox.FsboxError) as err:
        make_client(result_shape="html")
    assert err.value.kind == "invalid_arguments"
    assert "capabilities.result_shape" in err.value.message


def test_async_text_shape(fsbox_bin: str, root: Path) -> None:
    (root / "a.txt").write_text("hello\n")

    async def run() -> None:
        async with fsbox.AsyncClient(root, binary=fsbox_bin, result_shape="text") as fs:
            r = await fs.call("read_file", {"path": "a.txt"})
            assert isinstance(r, fsbox.RawResult) and r.text.endswith("hello\n")
            with pytest.raises(fsbox.ResultShapeError):
                await fs.read_file(path="a.txt")

    asyncio.run(run())
