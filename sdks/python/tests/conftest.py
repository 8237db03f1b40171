"""Fixtures: the real fsbox binary (FSBOX_BIN, else built from this repository) and a root."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import fsbox

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def fsbox_bin() -> Iterator[str]:
    """The fsbox binary the tests drive: $FSBOX_BIN, else `go build` of ./cmd/fsbox."""
    given = os.environ.get("FSBOX_BIN")
    if given:
        yield given
        return
    out = tempfile.mkdtemp(prefix="fsbox-pytest-")
    binary = os.path.join(out, "fsbox")
    subprocess.run(["go", "build", "-o", binary, "./cmd/fsbox"], cwd=REPO, check=True)
    try:
        yield binary
    finally:
        shutil.rmtree(out, ignore_errors=True)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """An empty root directory (resolved, so it compares equal to the server's root_dir)."""
    r = tmp_path / "root"
    r.mkdir()
    return r.resolve()


ClientFactory = Callable[..., fsbox.Client]


@pytest.fixture
def make_client(fsbox_bin: str, root: Path) -> Iterator[ClientFactory]:
    """Start a Client on root with the test binary; every client is closed at teardown."""
    clients: list[fsbox.Client] = []

    def make(**kwargs: Any) -> fsbox.Client:
        kwargs.setdefault("binary", fsbox_bin)
        c = fsbox.Client(kwargs.pop("root_dir", root), **kwargs)
        clients.append(c)
        return c

    yield make
    for c in clients:
        c.close()


def process_gone(pid: int) -> bool:
    """True when no process has this pid (it exited and was reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def child_pids() -> set[int]:
    """The pids of this process's children, living or zombie (Linux: /proc/self/task/*/children)."""
    pids: set[int] = set()
    for children in Path("/proc/self/task").glob("*/children"):
        pids.update(int(p) for p in children.read_text().split())
    return pids


def within(seconds: float, fn: Callable[[], Any]) -> Any:
    """fn(), failing the test instead of hanging when it has not returned within seconds."""
    box: list[Any] = []
    error: list[BaseException] = []

    def run() -> None:
        try:
            box.append(fn())
        except BaseException as e:
            error.append(e)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    if t.is_alive():
        pytest.fail(f"did not return within {seconds} s: the call hangs")
    if error:
        raise error[0]
    return box[0] if box else None


@pytest.fixture(autouse=True)
def close_framework_loop(request: pytest.FixtureRequest) -> Iterator[None]:
    """After a framework adapter's test, close the event loop the framework's sync entry point left.

    pydantic-ai's run_sync runs on the thread's event loop and leaves it open for the next call,
    which is the framework's choice. Closing it here keeps the ResourceWarning-as-error rule of
    this suite about fsbox's own leaks.
    """
    yield
    if "integrations" not in request.path.parts:
        return
    import asyncio
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            loop = asyncio.get_event_loop_policy().get_event_loop()
        except RuntimeError:
            return
    if not loop.is_running() and not loop.is_closed():
        loop.close()
    asyncio.set_event_loop(None)
