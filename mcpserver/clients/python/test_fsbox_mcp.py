"""The official MCP Python SDK (mcp) against a real `fsbox mcp` process over stdio.

Every test spawns $FSBOX_BIN in a fresh root and talks to it with mcp.Client, once in the SDK's
default mode (the 2026-07-28 protocol, probed with server/discover) and once in its legacy mode
(the initialize handshake), so both of fsbox's elicitation paths and both capability models run.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
import mcp_types as types
from mcp.shared.exceptions import MCPError

FSBOX = os.environ["FSBOX_BIN"]
MODES = ["auto", "legacy"]

NATIVE_CALLS: dict[str, dict[str, Any]] = {
    "read_file": {"path": "a.txt", "limit": 2},
    "write_file": {"path": "new.txt", "content": "new\n"},
    "edit_file": {"path": "a.txt", "old_text": "two", "new_text": "TWO"},
    "list_directory": {"path": "."},
    "search_files": {"pattern": "t.o", "path": "."},
    "find_files": {"pattern": "**/*.go"},
    "create_directory": {"path": "made/deep"},
    "file_info": {"path": "a.txt"},
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "root"
    (r / "src").mkdir(parents=True)
    (r / "a.txt").write_text("one\ntwo\nthree\n")
    (r / "src" / "main.go").write_text("package main\n")
    (tmp_path / "secret.txt").write_text("outside canary\n")
    return r.resolve()


def server(root: Path, *args: str) -> StdioServerParameters:
    return StdioServerParameters(command=FSBOX, args=["mcp", "--root", str(root), *args])


def text_of(res: types.CallToolResult) -> str:
    assert len(res.content) == 1
    block = res.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def assert_no_text_in_schema(tool: types.Tool) -> None:
    """The text is the content block: the declared outputSchema neither lists nor requires it."""
    schema = tool.output_schema or {}
    assert "text" not in schema.get("properties", {}) and "text" not in schema.get("required", []), (tool.name, schema)


def assert_no_host_path(res: types.CallToolResult, root: Path) -> None:
    dumped = json.dumps(res.model_dump(mode="json", by_alias=True))
    assert str(root) not in dumped and str(root.parent) not in dumped, dumped


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@pytest.mark.parametrize("mode", MODES)
def test_lists_tools_with_schemas_and_calls_each(root: Path, mode: str) -> None:
    async def go() -> None:
        async with Client(server(root), mode=mode) as client:
            assert client.protocol_version == ("2026-07-28" if mode == "auto" else "2025-11-25")
            tools = (await client.list_tools()).tools
            assert sorted(t.name for t in tools) == sorted(NATIVE_CALLS)
            for t in tools:
                assert t.input_schema["type"] == "object", t.name
                assert t.output_schema and t.output_schema["type"] == "object", t.name
                assert_no_text_in_schema(t)
                assert t.annotations is not None and t.annotations.open_world_hint is False, t.name
            for name, args in NATIVE_CALLS.items():
                res = await client.call_tool(name, args)
                assert not res.is_error, (name, text_of(res))
                # call_tool validated structured_content against the tool's outputSchema.
                assert isinstance(res.structured_content, dict), name
                assert "text" not in res.structured_content and text_of(res), (name, res.structured_content)
        assert (root / "new.txt").read_text() == "new\n"
        assert "TWO" in (root / "a.txt").read_text()
        assert (root / "made" / "deep").is_dir()

    run(go())


@pytest.mark.parametrize("mode", MODES)
def test_traversal_is_an_error_result_without_host_paths(root: Path, mode: str) -> None:
    async def go() -> None:
        async with Client(server(root), mode=mode) as client:
            for path in ["../../etc/passwd", "../secret.txt", "/etc/passwd"]:
                res = await client.call_tool("read_file", {"path": path})
                assert res.is_error, path
                assert "outside" in text_of(res), text_of(res)
                assert "canary" not in text_of(res) and "root:" not in text_of(res)
                assert (res.meta or {}).get("fsbox/error", {}).get("kind") == "outside_root", res.meta
                assert_no_host_path(res, root)
            res = await client.call_tool("write_file", {"path": "../escaped.txt", "content": "x"})
            assert res.is_error
            assert not (root.parent / "escaped.txt").exists()

    run(go())


PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c63f8ffff3f0005fe02fea73581840000000049454e44ae426082"
)


@pytest.mark.parametrize("mode", MODES)
def test_files_are_resources_through_a_template_never_listed(root: Path, mode: str) -> None:
    (root / "img.png").write_bytes(PNG)
    (root / "notes.md").write_text("# notes\n")

    async def go() -> None:
        async with Client(server(root), mode=mode) as client:
            assert (await client.list_resources()).resources == []
            templates = (await client.list_resource_templates()).resource_templates
            assert [t.uri_template for t in templates] == ["file://{+path}"]
            text = await client.read_resource((root / "notes.md").as_uri())
            [c] = text.contents
            assert isinstance(c, types.TextResourceContents) and c.text == "# notes\n" and c.mime_type == "text/markdown"
            blob = await client.read_resource((root / "img.png").as_uri())
            [b] = blob.contents
            assert isinstance(b, types.BlobResourceContents) and b.mime_type == "image/png"
            assert base64.b64decode(b.blob) == PNG

    run(go())


@pytest.mark.parametrize("mode", MODES)
def test_resource_uris_cannot_traverse(root: Path, mode: str) -> None:
    (root / "out-link.txt").symlink_to(root.parent / "secret.txt")
    base = root.as_uri()
    uris = [
        base + "/../secret.txt",
        base + "/%2e%2e/secret.txt",
        base + "/.%2E/secret.txt",
        base + "/src%2F..%2F..%2Fsecret.txt",
        (root.parent / "secret.txt").as_uri(),
        "file:///etc/passwd",
        base + "/out-link.txt",
        "file://localhost" + str(root) + "/a.txt",
        "file://evil.example" + str(root) + "/a.txt",
        base + "/a.txt?x=1",
        base + "/a.txt#frag",
    ]

    async def go() -> None:
        async with Client(server(root), mode=mode) as client:
            ok = await client.read_resource(base + "/a.txt")
            assert [c.text for c in ok.contents] == ["one\ntwo\nthree\n"]  # type: ignore[union-attr]
            for uri in uris:
                with pytest.raises(MCPError) as caught:
                    await client.read_resource(uri)
                assert caught.value.code == -32602, (uri, caught.value.code, caught.value.message)
                # fsbox's own refusal (the URI rule or the engine's containment), not a generic miss.
                assert (caught.value.data or {}).get("kind") in ("invalid_path", "outside_root"), (uri, caught.value.data)
                assert "canary" not in caught.value.message and "root:" not in caught.value.message
            missing = root.as_uri() + "/missing.txt"
            with pytest.raises(MCPError) as caught:
                await client.read_resource(missing)
            assert caught.value.message == "Resource not found" and caught.value.data == {"uri": missing}

    run(go())


def elicitation(action: str, approve: bool, seen: list[str]) -> Any:
    async def callback(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestFormParams)
        seen.append(params.message)
        content = {"approve": approve} if action == "accept" else None
        return types.ElicitResult(action=action, content=content)  # type: ignore[arg-type]

    return callback


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("action,approve,applied", [("accept", True, True), ("accept", False, False), ("decline", False, False)])
def test_elicitation_approves_or_refuses_a_write(root: Path, mode: str, action: str, approve: bool, applied: bool) -> None:
    seen: list[str] = []

    async def go() -> None:
        async with Client(server(root), mode=mode, elicitation_callback=elicitation(action, approve, seen)) as client:
            res = await client.call_tool("write_file", {"path": "a.txt", "content": "replaced\n"})
            assert not res.is_error, text_of(res)
            assert bool(res.structured_content.get("cancelled")) is (not applied)

    run(go())
    assert len(seen) == 1 and "write of a.txt" in seen[0] and "+replaced" in seen[0], seen
    assert str(root) not in seen[0]
    assert ((root / "a.txt").read_text() == "replaced\n") is applied


def test_without_elicitation_refuse_policy_refuses(root: Path) -> None:
    async def go() -> None:
        async with Client(server(root, "--changes", "refuse")) as client:
            res = await client.call_tool("write_file", {"path": "a.txt", "content": "replaced\n"})
            assert not res.is_error and res.structured_content["cancelled"] is True

    run(go())
    assert (root / "a.txt").read_text() == "one\ntwo\nthree\n"


def test_events_arrive_as_log_messages_when_a_level_is_set(root: Path) -> None:
    got: list[types.LoggingMessageNotificationParams] = []

    async def log(params: types.LoggingMessageNotificationParams) -> None:
        got.append(params)

    async def go() -> None:
        async with Client(server(root), logging_callback=log, log_level="info") as client:
            await client.call_tool("write_file", {"path": "n.txt", "content": "x"})

    run(go())
    kinds = [p.data.get("kind") for p in got if isinstance(p.data, dict)]
    assert "file_system.file_written" in kinds, got
    assert all(str(root) not in json.dumps(p.data) for p in got)


@pytest.mark.parametrize("mode", MODES)
def test_compat_reference_read_text_file_and_edit_file(root: Path, mode: str) -> None:
    async def go() -> None:
        params = StdioServerParameters(command=FSBOX, args=["mcp", "--compat", "reference", str(root)])
        async with Client(params, mode=mode) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert {"read_text_file", "edit_file", "list_directory_with_sizes", "get_file_info", "list_allowed_directories"} <= names
            res = await client.call_tool("read_text_file", {"path": "a.txt", "tail": 1})
            assert not res.is_error and "three" in text_of(res) and "one" not in text_of(res), text_of(res)
            edits = [{"oldText": "one", "newText": "ONE"}, {"oldText": "three", "newText": "THREE"}]
            dry = await client.call_tool("edit_file", {"path": "a.txt", "edits": edits, "dryRun": True})
            assert not dry.is_error and "+ONE" in text_of(dry), text_of(dry)
            assert (root / "a.txt").read_text() == "one\ntwo\nthree\n"
            res = await client.call_tool("edit_file", {"path": "a.txt", "edits": edits})
            assert not res.is_error, text_of(res)
            res = await client.call_tool("read_text_file", {"path": "../../etc/passwd"})
            assert res.is_error
            assert_no_host_path(res, root)
            allowed = await client.call_tool("list_allowed_directories", {})
            assert_no_host_path(allowed, root)

    run(go())
    assert (root / "a.txt").read_text() == "ONE\ntwo\nTHREE\n"


# A successful call of every tool, in an order in which each succeeds in a fresh root: all tools
# enabled (undo_last_change with a journal), in fsbox's own presentation and the reference one.
EVERY_NATIVE_CALL: list[tuple[str, dict[str, Any]]] = [
    ("read_file", {"path": "a.txt", "limit": 2}),
    ("read_file", {"path": "img.png"}),
    ("read_multiple_files", {"paths": ["a.txt", "src/main.go"]}),
    ("list_directory", {"path": "."}),
    ("directory_tree", {"path": "."}),
    ("find_files", {"pattern": "**/*.go"}),
    ("list_files", {}),
    ("search_files", {"pattern": "t.o"}),
    ("grep", {"pattern": "package"}),
    ("file_info", {"path": "a.txt"}),
    ("write_file", {"path": "new.txt", "content": "new\n"}),
    ("edit_file", {"path": "a.txt", "old_text": "two", "new_text": "TWO"}),
    ("undo_last_change", {}),
    ("create_directory", {"path": "made/deep"}),
    ("remove_directory", {"path": "made/deep"}),
    ("move_file", {"source": "new.txt", "destination": "moved.txt"}),
    ("delete", {"path": "moved.txt"}),
    ("apply_patch", {"input": "*** Begin Patch\n*** Add File: p.txt\n+pee\n*** End Patch"}),
    ("str_replace_based_edit_tool", {"command": "view", "path": "a.txt"}),
]
EVERY_REFERENCE_CALL: list[tuple[str, dict[str, Any]]] = [
    ("read_text_file", {"path": "a.txt", "tail": 2}),
    ("read_media_file", {"path": "img.png"}),
    ("read_multiple_files", {"paths": ["a.txt", "src/main.go"]}),
    ("list_directory", {"path": "."}),
    ("list_directory_with_sizes", {"path": "."}),
    ("directory_tree", {"path": "."}),
    ("search_files", {"path": ".", "pattern": "*.go"}),
    ("get_file_info", {"path": "a.txt"}),
    ("write_file", {"path": "new.txt", "content": "new\n"}),
    ("edit_file", {"path": "a.txt", "edits": [{"oldText": "two", "newText": "TWO"}], "dryRun": True}),
    ("edit_file", {"path": "a.txt", "edits": [{"oldText": "two", "newText": "TWO"}]}),
    ("create_directory", {"path": "made/deep"}),
    ("move_file", {"source": "new.txt", "destination": "moved.txt"}),
    ("apply_patch", {"input": "*** Begin Patch\n*** Add File: p.txt\n+pee\n*** End Patch"}),
    ("str_replace_based_edit_tool", {"command": "view", "path": "a.txt"}),
    ("list_allowed_directories", {}),
]
ALL_TOOLS = [name for name, _ in EVERY_NATIVE_CALL]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("compat", [False, True])
def test_every_tool_structured_content_validates_without_text(root: Path, tmp_path: Path, mode: str, compat: bool) -> None:
    """call_tool validates structured_content against the listed outputSchema (the SDK raises
    when it does not conform); the text is the first content block and nowhere else."""
    (root / "img.png").write_bytes(PNG)
    config = tmp_path / "all-tools.json"
    config.write_text(json.dumps({"tools": sorted(set(ALL_TOOLS)), "journal": {}}))
    calls = EVERY_REFERENCE_CALL if compat else EVERY_NATIVE_CALL
    args = ["mcp", "--config", str(config), "--changes", "allow"] + (["--compat", "reference"] if compat else []) + [str(root)]

    async def go() -> None:
        async with Client(StdioServerParameters(command=FSBOX, args=args), mode=mode) as client:
            tools = (await client.list_tools()).tools
            assert sorted(t.name for t in tools) == sorted({name for name, _ in calls})
            for name, call_args in calls:
                res = await client.call_tool(name, call_args)
                assert not res.is_error, (name, res.content)
                assert isinstance(res.structured_content, dict), name
                assert "text" not in res.structured_content, (name, res.structured_content)
                block = res.content[0]
                assert isinstance(block, types.TextContent) and block.text, (name, res.content)
                assert len(res.content) == (2 if call_args.get("path") == "img.png" else 1), (name, res.content)
            for t in tools:
                assert_no_text_in_schema(t)

    run(go())


def serve_http(root: Path, *args: str) -> tuple[subprocess.Popen[str], str, str]:
    """Starts fsbox mcp --http on loopback; returns the process, its URL and the printed token."""
    proc = subprocess.Popen([FSBOX, "mcp", "--root", str(root), "--http", "127.0.0.1:0", *args], stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    line = proc.stderr.readline()
    m = re.search(r'(http://127\.0\.0\.1:\d+/) ; clients send the header "Authorization: Bearer ([^"]+)"', line)
    assert m, line
    return proc, m.group(1), m.group(2)


def http_transport(url: str, token: str | None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    return streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers))


@pytest.mark.parametrize("mode", MODES)
def test_streamable_http_on_loopback(root: Path, mode: str) -> None:
    proc, url, token = serve_http(root)
    try:

        async def go() -> None:
            seen: list[str] = []
            async with Client(http_transport(url, token), mode=mode, elicitation_callback=elicitation("accept", True, seen)) as client:
                # Over HTTP the 2026-07-28 generation is stateless; fsbox serves it beside the
                # session-based one on the same endpoint, so auto mode gets the newer one.
                assert client.protocol_version == ("2026-07-28" if mode == "auto" else "2025-11-25")
                assert len((await client.list_tools()).tools) == len(NATIVE_CALLS)
                res = await client.call_tool("write_file", {"path": "via-http.txt", "content": "h\n"})
                assert not res.is_error and len(seen) == 1, (text_of(res), seen)
                assert (root / "via-http.txt").read_text() == "h\n"
                res = await client.call_tool("read_file", {"path": "a.txt"})
                assert not res.is_error and "three" in text_of(res)
                bad = await client.call_tool("read_file", {"path": "../secret.txt"})
                assert bad.is_error
                assert_no_host_path(bad, root)

        run(go())
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.parametrize("token", [None, "wrong-token-0123456789"])
def test_streamable_http_refuses_a_client_without_the_token(root: Path, token: str | None) -> None:
    proc, url, _ = serve_http(root)
    try:

        async def go() -> None:
            async with Client(http_transport(url, token)) as client:
                await client.list_tools()

        with pytest.raises(BaseException):  # the SDK reports it as "Server returned an error response"
            run(go())
        headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
        resp = httpx2.post(url, json=init, headers={**headers, "Accept": "application/json, text/event-stream"})
        assert resp.status_code == 401 and resp.headers["www-authenticate"].startswith("Bearer"), resp
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_http_refuses_a_non_loopback_address(root: Path) -> None:
    res = subprocess.run([FSBOX, "mcp", "--root", str(root), "--http", "0.0.0.0:0"], capture_output=True, text=True, timeout=10)
    assert res.returncode == 2 and "loopback" in res.stderr
