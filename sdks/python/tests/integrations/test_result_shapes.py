"""Each adapter asks the real fsbox server for the lightest result shape that carries what it
uses (bench/README.md, "Adapters: result shapes"): the server's initialize answer says the shape
in force, and a reply in the adapter's own session carries exactly that shape's members."""

from __future__ import annotations

import asyncio
import base64
import pathlib
from typing import Any

import pytest

from fsbox import AsyncClient, Client

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def _reply(client: Client, name: str, arguments: dict[str, Any]) -> Any:
    """The server's tools/call result as it came off the pipe, before any decoding into types."""
    return client._conn.request("tools/call", {"name": name, "arguments": arguments})


async def _areply(client: AsyncClient, name: str, arguments: dict[str, Any]) -> Any:
    return await client._connection().request("tools/call", {"name": name, "arguments": arguments})


def _tree(root: pathlib.Path) -> None:
    (root / "notes.txt").write_text("hello\nworld\n")
    (root / "sub").mkdir()


def test_langchain_asks_for_text(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    pytest.importorskip("langchain_core")
    from fsbox.integrations.langchain import FsboxToolkit

    _tree(tmp_path)
    with FsboxToolkit(tmp_path, binary=fsbox_bin) as kit:
        tools = {t.name: t for t in kit.get_tools()}
        assert kit.client.initialize_result.result_shape == "text"
        assert set(_reply(kit.client, "list_directory", {"path": "."})) == {"text"}
        assert tools["read_file"].invoke({"path": "notes.txt"}).startswith("[notes.txt | 2 lines")


def test_editor_toolkit_asks_for_text(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    pytest.importorskip("langchain_core")
    from fsbox.integrations.editor_formats import EditorToolkit

    with EditorToolkit(tmp_path, binary=fsbox_bin) as kit:
        assert kit.client.initialize_result.result_shape == "text"


def test_deepagents_asks_for_typed(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    pytest.importorskip("deepagents")
    from fsbox.integrations.deepagents import FsboxBackend

    _tree(tmp_path)
    with FsboxBackend(tmp_path, binary=fsbox_bin) as backend:
        read = backend.read("/notes.txt")
        assert read.error is None and read.file_data is not None
        assert read.file_data["content"] == "hello\nworld\n"
        assert backend.client.initialize_result.result_shape == "typed"
        reply = _reply(backend.client, "read_file", {"path": "notes.txt"})
        assert "text" not in reply and reply["content"] == "hello\nworld\n"


def test_deepagents_refusal_is_told_without_the_text(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    pytest.importorskip("deepagents")
    from fsbox.integrations.deepagents import FsboxBackend

    rules = [{"operations": ["write"], "paths": ["/**"], "mode": "interrupt"}]
    with FsboxBackend(tmp_path, binary=fsbox_bin, config={"permissions": rules}) as backend:
        # The typed shape has no text for the refusal: the message comes from cancel_reason.
        with backend._gate.turn(approved=False, deny_reason="not today"):
            res = backend.client.call("write_file", {"path": "x.txt", "content": "x\n"})
        assert getattr(res, "cancelled", False) and res.text == ""
        from fsbox.integrations.deepagents import _checked, _Refused

        with pytest.raises(_Refused, match=r"^/x\.txt was not changed: not today$"):
            _checked(res)
    assert not (tmp_path / "x.txt").exists()


def test_pydantic_ai_asks_for_text_and_still_sees_images(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    pytest.importorskip("pydantic_ai")
    from pydantic_ai import BinaryContent

    from fsbox.integrations.pydantic_ai import FsboxToolset, _Call

    _tree(tmp_path)
    (tmp_path / "img.png").write_bytes(PNG)

    async def run() -> None:
        async with FsboxToolset(tmp_path, binary=fsbox_bin) as toolset:
            client = toolset._client
            assert client is not None
            assert client.initialize_result.result_shape == "text"
            assert set(await _areply(client, "read_file", {"path": "notes.txt"})) == {"text"}

            def call(path: str) -> _Call:
                return _Call(ctx=None, name="read_file", path=path)  # type: ignore[arg-type]

            text = await toolset._call(client, call("notes.txt"), {"path": "notes.txt"})
            assert isinstance(text, str) and text.startswith("[notes.txt | 2 lines")
            assert toolset._media == {}  # a text read needs nothing more
            out = await toolset._call(client, call("img.png"), {"path": "img.png"})
            assert isinstance(out, list) and out[0].startswith("[img.png | image/png | ")
            assert isinstance(out[1], BinaryContent) and out[1].data == PNG and out[1].media_type == "image/png"
            media = toolset._media[client]
            assert media.initialize_result.result_shape == "both"
        assert toolset._media == {}

    asyncio.run(run())


def test_openai_agents_editor_asks_for_text(tmp_path: pathlib.Path, fsbox_bin: str) -> None:
    pytest.importorskip("agents")
    from fsbox.integrations.openai_agents import FsboxEditor

    async def run() -> None:
        async with FsboxEditor(tmp_path, binary=fsbox_bin) as editor:
            client = editor._client
            assert client is not None and client.initialize_result.result_shape == "text"

    asyncio.run(run())
