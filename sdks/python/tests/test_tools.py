"""A round trip of every tool through the typed methods, against the real binary."""

from __future__ import annotations

import hashlib
from pathlib import Path

import fsbox
from conftest import ClientFactory


def _hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:12]


def test_initialize_result_and_tools(make_client: ClientFactory, root: Path) -> None:
    fs = make_client()
    info = fs.initialize_result
    assert info.root_dir == str(root)
    assert info.cwd == "."
    assert info.schema_hash == fsbox.SCHEMA_HASH
    names = [t["name"] for t in fs.tools()]
    assert names == list(fsbox.DEFAULT_TOOLS)
    for descriptor in fs.tools():
        assert set(descriptor) == {"name", "description", "input_schema"}
        assert descriptor["input_schema"]["type"] == "object"
        assert descriptor["description"]


def test_read_file(make_client: ClientFactory, root: Path) -> None:
    content = b"one\ntwo\nthree\n"
    (root / "a.txt").write_bytes(content)
    fs = make_client()
    r = fs.read_file(path="a.txt")
    assert isinstance(r, fsbox.ReadFileResult)
    assert r.text.startswith(f"[a.txt | 3 lines | hash:{_hash(content)}]")
    assert "     1\tone\n" in r.text
    assert (r.path, r.binary, r.size, r.total_lines, r.offset, r.lines_shown) == (
        "a.txt",
        False,
        14,
        3,
        0,
        3,
    )
    assert r.next_offset is None
    page = fs.read_file(path="a.txt", offset=1, limit=1)
    assert (page.offset, page.lines_shown, page.next_offset) == (1, 1, 2)
    assert "     2\ttwo\n" in page.text and "one" not in page.text


def test_write_file(make_client: ClientFactory, root: Path) -> None:
    fs = make_client()
    r = fs.write_file(path="new.txt", content="héllo\n")
    assert isinstance(r, fsbox.WriteFileResult)
    assert (r.path, r.created, r.chars, r.lines) == ("new.txt", True, 6, 1)
    assert r.hash == _hash("héllo\n".encode())
    assert r.cancelled in (None, False)
    assert (root / "new.txt").read_text(encoding="utf-8") == "héllo\n"
    again = fs.write_file(path="new.txt", content="bye\n", expected_hash=r.hash)
    assert again.created is False
    assert (root / "new.txt").read_text() == "bye\n"


def test_edit_file(make_client: ClientFactory, root: Path) -> None:
    (root / "e.txt").write_text("alpha\nbeta\ngamma\n")
    fs = make_client()
    r = fs.edit_file(path="e.txt", old_text="beta", new_text="BETA")
    assert isinstance(r, fsbox.EditFileResult)
    assert (r.path, r.replacements) == ("e.txt", 1)
    assert (root / "e.txt").read_text() == "alpha\nBETA\ngamma\n"
    r = fs.edit_file(
        path="e.txt",
        replacements=[
            fsbox.Replacement(old_text="alpha", new_text="ALPHA"),
            fsbox.Replacement(old_text="gamma", new_text="GAMMA"),
        ],
    )
    assert r.replacements == 2
    assert r.hash == _hash(b"ALPHA\nBETA\nGAMMA\n")
    assert (root / "e.txt").read_text() == "ALPHA\nBETA\nGAMMA\n"


def test_list_directory(make_client: ClientFactory, root: Path) -> None:
    (root / "sub").mkdir()
    (root / "b.txt").write_text("12345")
    (root / ".hidden").write_text("x")
    fs = make_client()
    r = fs.list_directory()
    assert isinstance(r, fsbox.ListDirectoryResult)
    assert r.text.splitlines() == [
        "b.txt  (5 bytes)",
        "sub/",
        "[1 hidden entries omitted; name a hidden path explicitly to include it]",
    ]
    assert [(e.path, e.type, e.size) for e in r.entries] == [
        ("b.txt", "file", 5),
        ("sub/", "directory", None),
    ]
    assert r.truncated is False
    assert fs.list_directory(path="sub").text == "(empty directory)"


def test_search_files(make_client: ClientFactory, root: Path) -> None:
    (root / "src").mkdir()
    (root / "src" / "m.py").write_text("import os\nx = 1\nimport sys\n")
    (root / "notes.md").write_text("import nothing\n")
    fs = make_client()
    r = fs.search_files(pattern="^import", path="src")
    assert isinstance(r, fsbox.SearchFilesResult)
    assert r.text.splitlines() == ["src/m.py:1:import os", "src/m.py:3:import sys"]
    assert [(m.path, m.line, m.text) for m in r.matches] == [
        ("src/m.py", 1, "import os"),
        ("src/m.py", 3, "import sys"),
    ]
    assert fs.search_files(pattern="import", include_glob="*.md").matches[0].path == "notes.md"
    assert fs.search_files(pattern="zzz").text == "No matches found."


def test_find_files(make_client: ClientFactory, root: Path) -> None:
    (root / "pkg").mkdir()
    (root / "pkg" / "a.go").write_text("")
    (root / "pkg" / "b.txt").write_text("")
    fs = make_client()
    r = fs.find_files(pattern="**/*.go")
    assert isinstance(r, fsbox.FindFilesResult)
    assert r.paths == ["pkg/a.go"]
    assert r.truncated is False
    assert fs.find_files(pattern="*", path="pkg").paths == ["pkg/a.go", "pkg/b.txt"]


def test_create_directory(make_client: ClientFactory, root: Path) -> None:
    fs = make_client()
    r = fs.create_directory(path="x/y/z")
    assert isinstance(r, fsbox.CreateDirectoryResult)
    assert (r.path, r.created) == ("x/y/z", True)
    assert (root / "x" / "y" / "z").is_dir()
    assert fs.create_directory(path="x/y").created is False


def test_file_info(make_client: ClientFactory, root: Path) -> None:
    (root / "f.txt").write_text("a\nb\n")
    (root / "link").symlink_to("f.txt")
    fs = make_client()
    r = fs.file_info(path="f.txt")
    assert isinstance(r, fsbox.FileInfoResult)
    assert (r.path, r.type, r.size, r.binary, r.lines, r.hash) == (
        "f.txt",
        "file",
        4,
        False,
        2,
        _hash(b"a\nb\n"),
    )
    assert fs.file_info(path="link").symlink_target == "f.txt"
    assert fs.file_info(path=".").type == "directory"


def test_read_multiple_files(make_client: ClientFactory, root: Path) -> None:
    (root / "one.txt").write_text("1\n")
    fs = make_client(config={"tools": ["read_multiple_files"]})
    r = fs.read_multiple_files(paths=["one.txt", "missing.txt"])
    assert isinstance(r, fsbox.ReadMultipleFilesResult)
    ok, bad = r.files
    assert ok.path == "one.txt" and ok.result is not None and ok.error is None
    assert ok.result.total_lines == 1
    assert bad.path == "missing.txt" and bad.result is None and bad.error is not None
    assert bad.error.kind == "not_found"
    assert "one.txt" in r.text and "missing.txt" in r.text


def test_directory_tree(make_client: ClientFactory, root: Path) -> None:
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "deep.txt").write_text("xyz")
    (root / "top.txt").write_text("")
    fs = make_client(config=fsbox.Config(tools=["directory_tree"]))
    assert [t["name"] for t in fs.tools()] == ["directory_tree"]
    r = fs.directory_tree()
    assert isinstance(r, fsbox.DirectoryTreeResult)
    assert [(e.path, e.depth) for e in r.entries] == [
        ("a/", 1),
        ("a/b/", 2),
        ("a/b/deep.txt", 3),
        ("top.txt", 1),
    ]
    shallow = fs.directory_tree(max_depth=1)
    assert [e.path for e in shallow.entries] == ["a/", "top.txt"]


def test_call_dispatches_dynamically(make_client: ClientFactory, root: Path) -> None:
    (root / "d.txt").write_text("dyn\n")
    fs = make_client()
    r = fs.call("read_file", {"path": "d.txt"})
    assert isinstance(r, fsbox.ReadFileResult)
    assert r.total_lines == 1
    assert "dyn" in r.text


def test_big_result_over_64k(make_client: ClientFactory, root: Path) -> None:
    line = "x" * 99 + "\n"
    (root / "big.txt").write_text(line * 3000)
    fs = make_client(config={"max_read_chars": 1_000_000, "max_read_lines": 10_000})
    r = fs.read_file(path="big.txt")
    assert r.lines_shown == 3000
    assert len(r.text) > 300_000
