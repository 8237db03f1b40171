"""Tool failures become ToolRetryError / ToolFatalError with the server's kind, path and message."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import fsbox
from conftest import REPO, ClientFactory, child_pids, process_gone


def test_outside_root_is_retry(make_client: ClientFactory) -> None:
    fs = make_client()
    with pytest.raises(fsbox.ToolRetryError) as e:
        fs.read_file(path="../etc/passwd")
    assert isinstance(e.value, fsbox.FsboxError)
    assert e.value.kind == "outside_root"
    assert e.value.code == fsbox.ERROR_CODES["retry"]
    assert e.value.retry is True
    assert "../etc/passwd" in e.value.message
    assert str(e.value) == e.value.message


def test_stale_hash_leaves_file(make_client: ClientFactory, root: Path) -> None:
    (root / "s.txt").write_text("old\n")
    fs = make_client()
    with pytest.raises(fsbox.ToolRetryError) as e:
        fs.write_file(path="s.txt", content="new\n", expected_hash="000000000000")
    assert e.value.kind == "stale_hash"
    assert e.value.path == "s.txt"
    assert (root / "s.txt").read_text() == "old\n"


def test_no_match(make_client: ClientFactory, root: Path) -> None:
    (root / "n.txt").write_text("abc\n")
    fs = make_client()
    with pytest.raises(fsbox.ToolRetryError) as e:
        fs.edit_file(path="n.txt", old_text="xyz", new_text="q")
    assert e.value.kind == "no_match"
    assert e.value.path == "n.txt"


def test_protected(make_client: ClientFactory, root: Path) -> None:
    (root / ".envrc").write_text("SECRET=1\n")
    fs = make_client()
    with pytest.raises(fsbox.ToolRetryError) as e:
        fs.write_file(path=".envrc", content="x")
    assert e.value.kind == "protected"
    assert (root / ".envrc").read_text() == "SECRET=1\n"


def test_unknown_tool_through_call(make_client: ClientFactory) -> None:
    fs = make_client()
    with pytest.raises(fsbox.ToolRetryError) as e:
        fs.call("no_such_tool", {})
    assert e.value.kind == "unknown_tool"
    assert e.value.code == fsbox.ERROR_CODES["invalid_params"]


def test_unknown_argument_through_call(make_client: ClientFactory) -> None:
    fs = make_client()
    with pytest.raises(fsbox.ToolRetryError) as e:
        fs.call("read_file", {"path": "a.txt", "bogus": 1})
    assert e.value.kind == "invalid_arguments"


def test_bad_config_fails_start_and_leaves_no_child(fsbox_bin: str, root: Path) -> None:
    before = child_pids()
    with pytest.raises(fsbox.FsboxError) as e:
        fsbox.Client(root, binary=fsbox_bin, config={"max_read_lines": -5})
    assert e.value.kind == "invalid_arguments"
    assert "max_read_lines" in e.value.message
    assert child_pids() <= before


def test_binary_not_found_says_how_to_get_it(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FSBOX_BIN", raising=False)
    monkeypatch.setenv("PATH", str(root))
    with pytest.raises(fsbox.BinaryNotFoundError) as e:
        fsbox.Client(root)
    assert "go build -o bin/fsbox ./cmd/fsbox" in e.value.message
    # The advice names what works today: the wheel, or a build from a checkout, not @latest.
    assert "pip install fsbox" in e.value.message
    assert "@latest" not in e.value.message
    with pytest.raises(fsbox.BinaryNotFoundError, match="not an executable file"):
        fsbox.Client(root, binary=root / "nope")


def test_binary_that_cannot_run(root: Path) -> None:
    fake = root.parent / "fsbox"
    fake.write_bytes(b"\x00\x01 not a program")
    fake.chmod(0o755)
    with pytest.raises(fsbox.BinaryNotFoundError, match="cannot run"):
        fsbox.Client(root, binary=fake)


def test_binary_from_env_then_path(
    fsbox_bin: str, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FSBOX_BIN", fsbox_bin)
    with fsbox.Client(root) as fs:
        assert fs.list_directory().text == "(empty directory)"
    bindir = root.parent / "bin"
    bindir.mkdir()
    os.symlink(fsbox_bin, bindir / "fsbox")
    monkeypatch.delenv("FSBOX_BIN")
    monkeypatch.setenv("PATH", str(bindir))
    with fsbox.Client(root) as fs:
        pid = fs.pid
        assert fs.initialize_result.root_dir == str(root)
    assert process_gone(pid)


def test_repo_layout_for_build() -> None:
    # The build command in BinaryNotFoundError's message is run from the repository root.
    assert (REPO / "cmd" / "fsbox").is_dir()


def test_schema_mismatch_is_refused(root: Path) -> None:
    # A server of another release answers initialize with another schema_hash: refused, and the
    # message names both hashes; the child does not outlive the refusal.
    fake = root.parent / "old-fsbox"
    fake.write_text(
        "#!/bin/sh\nread line\n"
        """echo '{"jsonrpc":"2.0","id":1,"result":{"protocol_version":"1","""
        """"server_info":{"name":"old","version":"0"},"root_dir":"/","cwd":".","""
        """"tools":[],"schema_hash":"sha256:0ld"}}'\nread line\n"""
    )
    fake.chmod(0o755)
    before = child_pids()
    with pytest.raises(fsbox.SchemaMismatchError) as e:
        fsbox.Client(root, binary=fake)
    assert "sha256:0ld" in e.value.message and fsbox.SCHEMA_HASH in e.value.message
    assert child_pids() <= before


OLD_NAMES = {
    "ToolRetry": "ToolRetryError",
    "ToolFatal": "ToolFatalError",
    "ConnectionLost": "ConnectionLostError",
    "SchemaMismatch": "SchemaMismatchError",
    "BinaryNotFound": "BinaryNotFoundError",
}


@pytest.mark.parametrize("old", sorted(OLD_NAMES))
def test_names_from_before_the_scheme_still_work_and_warn(old: str) -> None:
    # Code written against the old names keeps working (the same class, so `except` and
    # isinstance behave as before) and is told the new name.
    import fsbox.errors

    new = OLD_NAMES[old]
    for module in (fsbox, fsbox.errors):
        with pytest.warns(DeprecationWarning, match=f"use {module.__name__}.{new}, the same class"):
            cls = getattr(module, old)
        assert cls is getattr(module, new)
    assert new in fsbox.__all__ and old not in fsbox.__all__
    scope: dict[str, object] = {}
    with pytest.warns(DeprecationWarning):
        exec(f"from fsbox import {old} as imported", scope)  # noqa: S102
    assert scope["imported"] is getattr(fsbox, new)


def test_unknown_names_still_raise_attribute_error() -> None:
    with pytest.raises(AttributeError):
        fsbox.ToolRetryErr  # noqa: B018
