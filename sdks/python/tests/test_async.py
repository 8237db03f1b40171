"""AsyncClient: the same surface on asyncio subprocess pipes."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

import fsbox
from conftest import process_gone


def run(coro: object) -> None:
    asyncio.run(asyncio.wait_for(coro, 60))  # type: ignore[arg-type]


def test_round_trip_and_events(fsbox_bin: str, root: Path) -> None:
    events: list[fsbox.Event] = []

    async def main() -> None:
        async with fsbox.AsyncClient(root, binary=fsbox_bin, on_event=events.append) as fs:
            assert fs.initialize_result.root_dir == str(root)
            assert [t["name"] for t in fs.tools()] == list(fsbox.DEFAULT_TOOLS)
            w = await fs.write_file(path="a.txt", content="one\ntwo\n")
            assert w.created is True
            assert [type(e) for e in events] == [fsbox.FileWrittenEvent]
            r = await fs.read_file(path="a.txt", offset=1)
            assert isinstance(r, fsbox.ReadFileResult)
            assert (r.offset, r.lines_shown) == (1, 1)
            assert isinstance(events[-1], fsbox.FileReadEvent)
            d = await fs.call("list_directory", {})
            assert isinstance(d, fsbox.ListDirectoryResult)
            assert d.text == "a.txt  (8 bytes)"
            with pytest.raises(fsbox.ToolRetryError) as e:
                await fs.read_file(path="/etc/passwd")
            assert e.value.kind == "outside_root"

    run(main())


def test_many_concurrent_calls(fsbox_bin: str, root: Path) -> None:
    for i in range(50):
        (root / f"n{i}.txt").write_text("x\n" * i)

    async def main() -> None:
        async with fsbox.AsyncClient(root, binary=fsbox_bin) as fs:
            results = await asyncio.gather(*(fs.read_file(path=f"n{i}.txt") for i in range(50)))
            assert [r.total_lines for r in results] == list(range(50))

    run(main())


def test_change_request_coroutine_cancel_and_approve(fsbox_bin: str, root: Path) -> None:
    (root / "k.txt").write_text("keep\n")

    async def decide(request: fsbox.ChangeRequest) -> None:
        await asyncio.sleep(0)
        if request.path == "k.txt":
            request.cancel("read only today")

    async def main() -> None:
        async with fsbox.AsyncClient(root, binary=fsbox_bin, on_change_request=decide) as fs:
            refused = await fs.write_file(path="k.txt", content="gone\n")
            assert refused.cancelled is True
            assert refused.cancel_reason == "read only today"
            approved = await fs.write_file(path="ok.txt", content="fine\n")
            assert not approved.cancelled

    run(main())
    assert (root / "k.txt").read_text() == "keep\n"
    assert (root / "ok.txt").read_text() == "fine\n"


def test_raising_change_request_aborts_with_fatal(fsbox_bin: str, root: Path) -> None:
    def explode(request: fsbox.ChangeRequest) -> None:
        raise RuntimeError("no")

    async def main() -> None:
        async with fsbox.AsyncClient(root, binary=fsbox_bin, on_change_request=explode) as fs:
            with pytest.raises(fsbox.ToolFatalError) as e:
                await fs.create_directory(path="d")
            assert e.value.kind == "change_request_failed"

    run(main())
    assert not (root / "d").exists()


def test_big_result_over_the_stream_limit(fsbox_bin: str, root: Path) -> None:
    (root / "big.txt").write_text(("y" * 199 + "\n") * 2000)

    async def main() -> None:
        config = fsbox.Config(max_read_chars=2_000_000, max_read_lines=5000)
        async with fsbox.AsyncClient(root, binary=fsbox_bin, config=config) as fs:
            r = await fs.read_file(path="big.txt")
            assert r.lines_shown == 2000
            assert len(r.text) > 400_000

    run(main())


def test_server_killed_mid_call(fsbox_bin: str, root: Path) -> None:
    async def main() -> None:
        def kill(request: fsbox.ChangeRequest) -> None:
            os.kill(fs.pid, signal.SIGKILL)

        fs = fsbox.AsyncClient(root, binary=fsbox_bin, on_change_request=kill)
        await fs.start()
        others = [asyncio.ensure_future(fs.list_directory()) for _ in range(5)]
        with pytest.raises(fsbox.ConnectionLostError, match="killed by signal 9"):
            await fs.write_file(path="x.txt", content="x")
        for task in others:
            # Each either finished before the kill or failed with the same error.
            try:
                await task
            except fsbox.ConnectionLostError:
                pass
        with pytest.raises(fsbox.ConnectionLostError):
            await fs.list_directory()
        await fs.close()
        assert process_gone(fs.pid)

    run(main())
    assert not (root / "x.txt").exists()


def test_close_is_idempotent_and_leaves_no_child(fsbox_bin: str, root: Path) -> None:
    async def main() -> None:
        fs = await fsbox.AsyncClient(root, binary=fsbox_bin).start()
        pid = fs.pid
        await asyncio.gather(fs.close(), fs.close())
        assert process_gone(pid)
        await fs.aclose()
        with pytest.raises(fsbox.ConnectionLostError):
            await fs.list_directory()

    run(main())


def test_cancelled_task_cancels_the_call(fsbox_bin: str, root: Path) -> None:
    async def main() -> None:
        entered = asyncio.Event()
        release = asyncio.Event()

        async def hold(request: fsbox.ChangeRequest) -> None:
            entered.set()
            await release.wait()

        async with fsbox.AsyncClient(root, binary=fsbox_bin, on_change_request=hold) as fs:
            task = asyncio.ensure_future(fs.write_file(path="c.txt", content="x"))
            await entered.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            release.set()
            # The connection is still good for the next call.
            assert (await fs.list_directory()).truncated is False

    run(main())


def test_not_started_is_a_clear_error(root: Path) -> None:
    fs = fsbox.AsyncClient(root)
    with pytest.raises(RuntimeError, match="not started"):
        fs.tools()


def test_coroutine_on_event_runs_before_the_call_returns(fsbox_bin: str, root: Path) -> None:
    (root / "e.txt").write_text("e\n")
    kinds: list[str] = []

    async def on_event(event: fsbox.Event) -> None:
        await asyncio.sleep(0)
        kinds.append(event.kind)

    async def main() -> None:
        async with fsbox.AsyncClient(root, binary=fsbox_bin, on_event=on_event) as fs:
            await fs.read_file(path="e.txt")
            assert kinds == ["file_system.file_read"]
            await fs.list_directory()
            assert kinds == ["file_system.file_read", "file_system.directory_listed"]

    run(main())


def test_close_from_inside_a_callback(fsbox_bin: str, root: Path) -> None:
    async def main() -> None:
        async def close_now(request: fsbox.ChangeRequest) -> None:
            await fs.close()

        fs = fsbox.AsyncClient(root, binary=fsbox_bin, on_change_request=close_now)
        await fs.start()
        with pytest.raises(fsbox.ConnectionLostError, match="closed"):
            await fs.write_file(path="c.txt", content="x")
        await fs.close()

    run(main())
    assert not (root / "c.txt").exists()


def test_close_does_not_wait_for_a_stuck_callback(fsbox_bin: str, root: Path) -> None:
    async def main() -> None:
        entered = asyncio.Event()

        async def never(request: fsbox.ChangeRequest) -> None:
            entered.set()
            await asyncio.Event().wait()

        fs = fsbox.AsyncClient(root, binary=fsbox_bin, on_change_request=never)
        await fs.start()
        call = asyncio.ensure_future(fs.write_file(path="s.txt", content="x"))
        await entered.wait()
        await fs.close()
        with pytest.raises(fsbox.ConnectionLostError):
            await call
        assert process_gone(fs.pid)

    run(main())
