"""Concurrency, a server that dies, and close."""

from __future__ import annotations

import os
import signal
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import fsbox
from conftest import ClientFactory, process_gone, within


def test_many_calls_in_flight_from_many_threads(make_client: ClientFactory, root: Path) -> None:
    for i in range(40):
        (root / f"f{i}.txt").write_text(f"content {i}\n" * (i + 1))
    fs = make_client()
    start = threading.Barrier(8)

    def work(worker: int) -> list[tuple[int, int]]:
        start.wait()
        out = []
        for i in range(worker, 40, 8):
            r = fs.read_file(path=f"f{i}.txt")
            assert f"content {i}" in r.text
            out.append((i, r.total_lines))
        return out

    with ThreadPoolExecutor(8) as pool:
        results = sorted(x for chunk in pool.map(work, range(8)) for x in chunk)
    assert results == [(i, i + 1) for i in range(40)]


def test_events_stay_with_their_calls_under_concurrency(
    make_client: ClientFactory, root: Path
) -> None:
    seen: list[str] = []
    fs = make_client(on_event=lambda e: seen.append(e.path))

    def write(i: int) -> None:
        fs.write_file(path=f"w{i}.txt", content=str(i))
        # The event of this call was delivered before the call returned.
        assert f"w{i}.txt" in seen

    with ThreadPoolExecutor(6) as pool:
        list(pool.map(write, range(30)))
    assert sorted(seen) == sorted(f"w{i}.txt" for i in range(30))


def test_server_killed_mid_call_fails_the_call_fast(make_client: ClientFactory, root: Path) -> None:
    holder: list[fsbox.Client] = []

    def kill_server(request: fsbox.ChangeRequest) -> None:
        # The write_file call is now in flight on the server, waiting for this answer.
        os.kill(holder[0].pid, signal.SIGKILL)

    fs = make_client(on_change_request=kill_server)
    holder.append(fs)
    with pytest.raises(fsbox.ConnectionLostError) as e:
        within(30, lambda: fs.write_file(path="x.txt", content="x"))
    assert isinstance(e.value, fsbox.ToolFatalError)
    assert e.value.kind == "connection_lost"
    assert "killed by signal 9" in e.value.message
    assert not (root / "x.txt").exists()
    # Every later call fails at once with the same reason.
    with pytest.raises(fsbox.ConnectionLostError, match="killed by signal 9"):
        fs.list_directory()
    fs.close()
    assert process_gone(fs.pid)


def test_server_exiting_while_idle(make_client: ClientFactory) -> None:
    fs = make_client()
    # After kill(SIGKILL) returns the server runs no more code, so it cannot answer what follows.
    os.kill(fs.pid, signal.SIGKILL)
    with pytest.raises(fsbox.ConnectionLostError, match="killed by signal 9"):
        # The first call after the death either finds the connection gone or loses its answer.
        within(30, fs.list_directory)
    with pytest.raises(fsbox.ConnectionLostError, match="killed by signal 9"):
        fs.list_directory()


def test_close_is_idempotent_and_leaves_no_child(make_client: ClientFactory) -> None:
    fs = make_client()
    pid = fs.pid
    assert not process_gone(pid)
    fs.close()
    assert process_gone(pid)
    fs.close()
    with pytest.raises(fsbox.ConnectionLostError, match="closed"):
        fs.list_directory()


def test_context_manager_closes(fsbox_bin: str, root: Path) -> None:
    with fsbox.Client(root, binary=fsbox_bin) as fs:
        pid = fs.pid
        fs.list_directory()
    assert process_gone(pid)
    fs.close()


def test_close_from_many_threads_at_once(make_client: ClientFactory) -> None:
    fs = make_client()
    pid = fs.pid
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda _: fs.close(), range(4)))
    assert process_gone(pid)


def test_close_while_calls_are_pending(make_client: ClientFactory, root: Path) -> None:
    # A call stuck in a change request when the client closes from another thread must not hang.
    entered = threading.Event()
    release = threading.Event()
    holder: list[fsbox.Client] = []
    outcome: list[BaseException | None] = []

    def hold(request: fsbox.ChangeRequest) -> None:
        entered.set()
        release.wait()

    fs = make_client(on_change_request=hold)
    holder.append(fs)

    def call() -> None:
        try:
            fs.write_file(path="p.txt", content="x")
            outcome.append(None)
        except fsbox.FsboxError as e:
            outcome.append(e)

    t = threading.Thread(target=call)
    t.start()
    entered.wait()
    closer = threading.Thread(target=fs.close)
    closer.start()
    release.set()
    within(30, closer.join)
    within(30, t.join)
    assert process_gone(fs.pid)
    assert len(outcome) == 1


def test_slow_search_and_quick_reads_each_get_their_own_result(
    make_client: ClientFactory, root: Path
) -> None:
    # The server answers pipelined calls in any order; each answer must reach its own caller.
    tree = root / "tree"
    for d in range(20):
        (tree / f"d{d}").mkdir(parents=True)
        for f in range(20):
            (tree / f"d{d}" / f"f{f}.txt").write_text("filler line\n" * 200 + f"needle {d}-{f}\n")
    (root / "small.txt").write_text("small\n")
    fs = make_client()
    with ThreadPoolExecutor(9) as pool:
        search = pool.submit(fs.search_files, pattern="needle", path="tree")
        reads = [pool.submit(fs.read_file, path="small.txt") for _ in range(8)]
        found = search.result()
        assert all(r.result().total_lines == 1 for r in reads)
    assert len(found.matches) == 400
    assert {m.text for m in found.matches} == {
        f"needle {d}-{f}" for d in range(20) for f in range(20)
    }


def test_close_from_inside_a_callback(make_client: ClientFactory, root: Path) -> None:
    holder: list[fsbox.Client] = []
    fs = make_client(on_change_request=lambda request: holder[0].close())
    holder.append(fs)
    with pytest.raises(fsbox.ConnectionLostError, match="closed"):
        within(30, lambda: fs.write_file(path="c.txt", content="x"))
    assert not (root / "c.txt").exists()
    within(30, fs.close)
    assert process_gone(fs.pid)
