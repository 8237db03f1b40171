"""The audit option: the SDK starts fsbox serve with --audit, and the log decodes as AuditRecord."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

import fsbox
from conftest import ClientFactory


def records(path: Path) -> list[fsbox.AuditRecord]:
    return [fsbox.AuditRecord.from_wire(json.loads(line)) for line in path.read_text().splitlines()]


def test_audit_log_has_a_line_per_call_before_it_returns(
    make_client: ClientFactory, root: Path, tmp_path: Path
) -> None:
    (root / "a.txt").write_text("hello\n")
    log = tmp_path / "logs" / "audit.jsonl"
    log.parent.mkdir()
    fs = make_client(audit=fsbox.AuditLog(path=log, max_bytes=1 << 20, keep=2))
    fs.read_file(path="a.txt")
    assert [(r.seq, r.tool, r.outcome) for r in records(log)] == [(1, "read_file", "ok")]
    with pytest.raises(fsbox.ToolRetryError):
        fs.read_file(path="missing.txt")
    got = records(log)
    assert [(r.seq, r.outcome, r.error_kind) for r in got[1:]] == [(2, "error", "not_found")]


def test_async_client_takes_a_path(fsbox_bin: str, root: Path, tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"

    async def session() -> None:
        async with fsbox.AsyncClient(root, binary=fsbox_bin, audit=log) as fs:
            await fs.list_directory(path=".")
            assert [(r.seq, r.tool) for r in records(log)] == [(1, "list_directory")]

    asyncio.run(asyncio.wait_for(session(), 60))
