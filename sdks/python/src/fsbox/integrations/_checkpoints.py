"""Checkpoints for the framework adapters: ``checkpoints=True`` → a ``restore()`` after a run.

Each root the adapter serves gets a journal directory this process owns (outside the root, made
with tempfile.mkdtemp, removed when the adapter is garbage-collected or the process exits), and
the server is asked for a checkpoint as soon as it starts. ``restore()`` then puts every path the
run changed back, through the running server or, once the run ended and the server stopped, a
new one on the same journal (the journal outlives the process). A path someone else changed
since fsbox last wrote it is left alone and reported, unless ``force=True``. With an audit log
that new server logs the restore to it too (one ``checkpoint/restore`` line).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import weakref
from collections.abc import Mapping
from typing import Any

from .._types_gen import CheckpointRestoreResult
from ..client import AsyncClient, AuditLog, Client


class RunCheckpoints:
    """The journal directories and the run-start checkpoints of one adapter, per root."""

    def __init__(self) -> None:
        self._dirs: dict[str, str] = {}
        self._marks: dict[str, str] = {}
        self._finalizer = weakref.finalize(self, _remove_all, self._dirs)

    def configure(self, root: str, config: Mapping[str, Any]) -> dict[str, Any]:
        """The server config for root, with the journal in this adapter's directory."""
        key = os.path.realpath(root)
        d = self._dirs.get(key)
        if d is None:
            d = tempfile.mkdtemp(prefix="fsbox-checkpoints-")
            self._dirs[key] = d
        out = dict(config)
        journal = dict(out.get("journal") or {})
        journal["dir"] = d
        out["journal"] = journal
        return out

    def roots(self) -> set[str]:
        """The roots (resolved) a restore puts back: each one a run started on."""
        return set(self._marks)

    async def started(self, root: str, client: AsyncClient) -> None:
        """Mark the start of a run on a server that just started."""
        cp = await client.create_checkpoint("run start")
        self._marks[os.path.realpath(root)] = cp.id

    def started_sync(self, root: str, client: Client) -> None:
        """started, for a blocking Client."""
        self._marks[os.path.realpath(root)] = client.create_checkpoint("run start").id

    def _restore_config(self, key: str, config: Mapping[str, Any]) -> dict[str, Any]:
        cfg = {k: v for k, v in config.items() if k != "tools"}
        return self.configure(key, cfg)

    async def restore(
        self,
        running: Mapping[str, AsyncClient],
        *,
        config: Mapping[str, Any],
        binary: Any,
        force: bool,
        audit: AuditLog | None = None,
    ) -> dict[str, CheckpointRestoreResult]:
        """Restore every root to its last run-start checkpoint; the result per root."""
        out: dict[str, CheckpointRestoreResult] = {}
        live = {os.path.realpath(r): c for r, c in running.items()}
        for key, mark in self._marks.items():
            client = live.get(key)
            if client is not None:
                out[key] = await client.restore_checkpoint(mark, force=force)
                continue
            async with AsyncClient(key, config=self._restore_config(key, config), binary=binary, audit=audit) as c:
                out[key] = await c.restore_checkpoint(mark, force=force)
        return out

    def restore_sync(
        self,
        running: Mapping[str, Client],
        *,
        config: Mapping[str, Any],
        binary: Any,
        force: bool,
        audit: AuditLog | None = None,
    ) -> dict[str, CheckpointRestoreResult]:
        """restore, for blocking Clients."""
        out: dict[str, CheckpointRestoreResult] = {}
        live = {os.path.realpath(r): c for r, c in running.items()}
        for key, mark in self._marks.items():
            client = live.get(key)
            if client is not None:
                out[key] = client.restore_checkpoint(mark, force=force)
                continue
            with Client(key, config=self._restore_config(key, config), binary=binary, audit=audit) as c:
                out[key] = c.restore_checkpoint(mark, force=force)
        return out


def _remove_all(dirs: dict[str, str]) -> None:
    for d in dirs.values():
        shutil.rmtree(d, ignore_errors=True)
