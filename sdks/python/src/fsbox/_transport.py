"""The connection to an fsbox server: the child process and JSON-RPC 2.0 over its stdin/stdout.

SyncConnection runs a reader thread and AsyncConnection a reader task. Either one reads the
server's lines in order and handles each before the next: an event notification is handed to the
client before the response that follows it resolves its call, and a change request is answered
before anything after it is read. Responses are matched to calls by id, so calls pipeline: any
number may be in flight at once. If the server dies, every pending call fails at once with
ConnectionLostError, and so does every later call.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import shutil
import subprocess
import sys
import threading
import traceback
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import IO, Any

from ._types_gen import PROTOCOL_VERSION, Config
from .errors import BinaryNotFoundError, ConnectionLostError, FsboxError, error_from_wire

VERSION = "0.1.0"

_HOW_TO_GET = (
    "install a platform wheel that bundles it (`pip install fsbox`), or build it from a checkout "
    "of the fsbox repository with `go build -o bin/fsbox ./cmd/fsbox`"
)
_STDERR_TAIL = 16 * 1024  # bytes of the child's stderr kept for error messages
_INTERNAL_ERROR = -32603
_METHOD_NOT_FOUND = -32601


def bundled_binary() -> str | None:
    """The binary a platform wheel ships at fsbox/bin/fsbox[.exe], or None (a source install)."""
    name = "fsbox.exe" if sys.platform == "win32" else "fsbox"
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", name)
    return path if os.path.isfile(path) else None


def find_binary(explicit: str | os.PathLike[str] | None) -> str:
    """The fsbox binary to run. Precedence:

    1. ``binary=`` given to the client;
    2. ``$FSBOX_BIN``;
    3. the binary bundled in a platform wheel (``fsbox/bin/fsbox``);
    4. ``fsbox`` on ``PATH``.
    """
    for value, source in ((explicit, "binary="), (os.environ.get("FSBOX_BIN"), "FSBOX_BIN")):
        if value:
            path = os.fspath(value)
            if os.path.isfile(path) and os.access(path, os.X_OK):
                return path
            raise BinaryNotFoundError(
                f"{source} names {path!r}, which is not an executable file; {_HOW_TO_GET}"
            )
    bundled = bundled_binary()
    if bundled is not None:
        return bundled
    found = shutil.which("fsbox")
    if found is None:
        raise BinaryNotFoundError(
            "the fsbox binary was not found: this fsbox package bundles none (a source install), "
            "binary= was not given, FSBOX_BIN is unset and fsbox is not on PATH; "
            + _HOW_TO_GET
        )
    return found


def _cannot_run(binary: str, e: OSError) -> BinaryNotFoundError:
    return BinaryNotFoundError(f"cannot run {binary!r}: {e.strerror or e}; {_HOW_TO_GET}")


def initialize_params(
    root_dir: str | os.PathLike[str],
    config: Config | Mapping[str, Any] | None,
    *,
    events: bool,
    change_requests: bool,
    result_shape: str | None = None,
) -> dict[str, Any]:
    """The params of initialize: config with root_dir set to the given root."""
    if config is None:
        wire: dict[str, Any] = {}
    elif isinstance(config, Config):
        wire = config.to_wire()
    elif isinstance(config, Mapping):
        wire = dict(config)
    else:
        raise TypeError(f"config must be an fsbox.Config or a mapping, not {type(config).__name__}")
    wire["root_dir"] = os.path.abspath(os.fspath(root_dir))
    capabilities: dict[str, Any] = {"events": events, "change_requests": change_requests}
    if result_shape is not None:
        capabilities["result_shape"] = result_shape
    return {
        "protocol_version": PROTOCOL_VERSION,
        "client_info": {"name": "fsbox-python", "version": VERSION},
        "config": wire,
        "capabilities": capabilities,
    }


# The JSON decoder. With orjson installed (``pip install 'fsbox[fast]'``) the server's lines are
# decoded with it: bench/sdk_overhead.py measured it at under half the standard library's time on
# a 15 KB read_file reply. The standard library decides every line orjson refuses, so both accept
# the same lines; the SDK needs nothing beyond the standard library. Requests stay encoded by the
# standard library (a request is small, and orjson would also encode values json refuses, such
# as dataclasses and UUIDs).
_orjson: Any
try:
    import orjson as _orjson
except ImportError:  # pragma: no cover - exercised where orjson is not installed
    _orjson = None


def use_json_module(module: Any) -> None:
    """Decode with module (``json``, or ``orjson`` when installed); for benchmarks and tests that
    compare the two. The default is orjson when it is installed."""
    global _orjson
    _orjson = module if getattr(module, "__name__", "") == "orjson" else None


def json_decoder_name() -> str:
    """Which module decodes the server's lines: "orjson" or "json"."""
    return "orjson" if _orjson is not None else "json"


def encode(message: Mapping[str, Any]) -> bytes:
    """One protocol line. ASCII escapes keep lone surrogates (from os.fsdecode) encodable."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=True).encode("ascii") + b"\n"


def decode(line: bytes) -> Any:
    """One protocol line's JSON value; ValueError when it is not JSON."""
    if _orjson is not None:
        try:
            return _orjson.loads(line)
        except ValueError:
            pass  # the standard library decides, so both accept the same lines
    return json.loads(line)


def report_callback_error(what: str) -> None:
    """Print the exception being handled, raised by a callback that has nobody to raise to."""
    print(f"fsbox: {what} raised:", file=sys.stderr)
    traceback.print_exc()


class UnknownMethod(Exception):
    """Raised by a request handler for a server-to-client method it does not serve."""


# Handlers the client gives the connection. A notification handler's return value is ignored; a
# request handler returns the result or raises (UnknownMethod for -32601, anything else -32603).
NotificationHandler = Callable[[str, Any], None]
RequestHandler = Callable[[str, Any], Any]
AsyncNotificationHandler = Callable[[str, Any], Awaitable[None]]
AsyncRequestHandler = Callable[[str, Any], Awaitable[Any]]


class _StderrTail:
    """Forwards the child's stderr to ours and keeps its end for error messages."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._lock = threading.Lock()

    def feed(self, chunk: bytes) -> None:
        with self._lock:
            self._buf += chunk
            del self._buf[:-_STDERR_TAIL]
        try:
            sys.stderr.write(chunk.decode("utf-8", "replace"))
            sys.stderr.flush()
        except (OSError, ValueError):
            pass

    def last_line(self) -> str:
        with self._lock:
            lines = bytes(self._buf).decode("utf-8", "replace").strip().splitlines()
        return lines[-1] if lines else ""


def _exit_message(returncode: int | None, tail: _StderrTail) -> str:
    if returncode is None:
        msg = "the fsbox server closed its output"
    elif returncode < 0:
        msg = f"the fsbox server was killed by signal {-returncode}"
    else:
        msg = f"the fsbox server exited with status {returncode}"
    last = tail.last_line()
    return f"{msg}: {last}" if last else msg


def _request_message(request_id: int, method: str, params: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def _error_response(request_id: Any, exc: BaseException) -> dict[str, Any]:
    if isinstance(exc, UnknownMethod):
        error = {
            "code": _METHOD_NOT_FOUND,
            "message": f"method not supported by this client: {exc}",
        }
    else:
        error = {
            "code": _INTERNAL_ERROR,
            "message": f"the client's handler raised {type(exc).__name__}: {exc}",
        }
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        message = decode(line)
    except ValueError:
        message = None
    if not isinstance(message, dict):
        if line.strip():
            print(
                f"fsbox: ignoring a server line that is not a JSON-RPC message: {line[:200]!r}",
                file=sys.stderr,
            )
        return None
    return message


class _Pending:
    """One call waiting for its response.

    The caller waits on a lock that the reader releases once (whoever pops the call from the
    pending table finishes it): cheaper than a threading.Event, whose wait and set each go
    through a Condition, and the hand-off from the reader thread is on every call's path.
    """

    __slots__ = ("_lock", "result", "error")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lock.acquire()
        self.result: Any = None
        self.error: FsboxError | None = None

    def finish(self) -> None:
        """Wake the caller; the result or error is set before."""
        self._lock.release()

    def wait(self, timeout: float | None) -> bool:
        """Whether the call finished within timeout seconds (None: however long it takes)."""
        return self._lock.acquire(timeout=-1 if timeout is None else timeout)


class SyncConnection:
    """A server child process driven from threads."""

    def __init__(
        self,
        binary: str,
        on_notification: NotificationHandler,
        on_request: RequestHandler,
        serve_args: Sequence[str] = (),
    ) -> None:
        self._on_notification = on_notification
        self._on_request = on_request
        try:
            self._proc = subprocess.Popen(
                [binary, "serve", *serve_args],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except OSError as e:
            raise _cannot_run(binary, e) from e
        assert self._proc.stdin and self._proc.stdout and self._proc.stderr
        self._stdin: IO[bytes] = self._proc.stdin
        self._tail = _StderrTail()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()  # guards _pending, _lost
        self._write_lock = threading.Lock()
        self._close_lock = threading.Lock()
        self._pending: dict[int, _Pending] = {}
        self._lost: str | None = None  # why the connection is gone, once it is
        self._closed = False
        self._in_callback = False  # the reader is running a handler of the client
        self._stderr_thread = threading.Thread(
            target=self._pump_stderr, name="fsbox-stderr", daemon=True
        )
        self._reader = threading.Thread(target=self._read, name="fsbox-reader", daemon=True)
        self._stderr_thread.start()
        self._reader.start()

    @property
    def pid(self) -> int:
        return self._proc.pid

    def on_reader_thread(self) -> bool:
        return threading.current_thread() is self._reader

    def request(self, method: str, params: Any, timeout: float | None = None) -> Any:
        """Send a request and wait for its result; an error response raises its FsboxError."""
        if self.on_reader_thread():
            raise RuntimeError(
                "fsbox: on_event and on_change_request run on the thread that reads the server's "
                "messages and cannot call the client; hand the work to another thread"
            )
        pending = _Pending()
        with self._lock:
            if self._lost is not None:
                raise ConnectionLostError(self._lost)
            request_id = next(self._ids)
            self._pending[request_id] = pending
        try:
            self._send(_request_message(request_id, method, params))
            if not pending.wait(timeout):
                raise TimeoutError(f"fsbox: no answer to {method} within {timeout} s")
        except BaseException:
            with self._lock:
                waiting = self._pending.pop(request_id, None) is not None
            if waiting and self._lost is None:
                self._try_send(
                    {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"id": request_id}}
                )
            raise
        if pending.error is not None:
            raise pending.error
        return pending.result

    def _send(self, message: Mapping[str, Any]) -> None:
        data = encode(message)
        with self._write_lock:
            if self._lost is not None:
                raise ConnectionLostError(self._lost)
            try:
                self._stdin.write(data)
                self._stdin.flush()
                return
            except (OSError, ValueError):
                pass
        # The pipe broke, so the server is gone: the reader is about to see EOF and say why.
        if not self.on_reader_thread():
            self._reader.join(5)
        raise ConnectionLostError(self._lost or "the fsbox server is not reading its input any more")

    def _try_send(self, message: Mapping[str, Any]) -> None:
        try:
            self._send(message)
        except FsboxError:
            pass

    def _pump_stderr(self) -> None:
        stderr = self._proc.stderr
        assert stderr is not None
        while chunk := os.read(stderr.fileno(), 65536):
            self._tail.feed(chunk)

    def _read(self) -> None:
        stdout = self._proc.stdout
        assert stdout is not None
        try:
            for line in stdout:  # lines of any length: BufferedReader.readline has no limit
                message = _parse(line)
                if message is not None:
                    self._dispatch_safely(message)
        except (OSError, ValueError):
            pass  # stdout closed under us by close()
        finally:
            self._connection_lost()
            self._stderr_thread.join(5)
            self._close_pipes()

    def _close_pipes(self) -> None:
        """Close the output pipes once nothing reads them any more."""
        if not self._reader.is_alive() or self.on_reader_thread():
            if not self._stderr_thread.is_alive():
                assert self._proc.stdout and self._proc.stderr
                self._proc.stdout.close()
                self._proc.stderr.close()

    def _dispatch_safely(self, message: dict[str, Any]) -> None:
        # The reader must go on to EOF whatever a message does, or calls would wait forever.
        try:
            self._dispatch(message)
        except Exception:
            report_callback_error("handling a message from the server")

    def _dispatch(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if isinstance(method, str):
            self._in_callback = True
            try:
                if "id" not in message:
                    try:
                        self._on_notification(method, message.get("params"))
                    except Exception:
                        report_callback_error(f"the handler of the {method} notification")
                    return
                try:
                    result = self._on_request(method, message.get("params"))
                    response = {"jsonrpc": "2.0", "id": message["id"], "result": result}
                except Exception as exc:
                    response = _error_response(message["id"], exc)
            finally:
                self._in_callback = False
            self._try_send(response)
            return
        request_id = message.get("id")
        with self._lock:
            pending = self._pending.pop(request_id, None) if isinstance(request_id, int) else None
        if pending is None:
            return  # the answer to a call that gave up waiting
        if "error" in message:
            pending.error = error_from_wire(message["error"])
        else:
            pending.result = message.get("result")
        pending.finish()

    def _connection_lost(self) -> None:
        """Fail every pending call and refuse new ones; the reader thread's last act."""
        if self._closed:
            reason = "the fsbox client was closed"
        else:
            try:
                returncode: int | None = self._proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                returncode = None  # alive but its output is closed: of no use any more
                self._proc.kill()
            self._stderr_thread.join(timeout=2)
            reason = _exit_message(returncode, self._tail)
        self._fail_all(reason)

    def _fail_all(self, reason: str) -> None:
        """Refuse new calls and fail the pending ones, all with reason (the first one given)."""
        with self._lock:
            self._lost = self._lost or reason
            pending, self._pending = self._pending, {}
        for p in pending.values():
            p.error = ConnectionLostError(self._lost)
            p.finish()

    def reader_finished(self) -> bool:
        return not self._reader.is_alive()

    def close(self, timeout: float = 5.0) -> None:
        """Shut the server down and reap it; killed if it is not gone within timeout seconds.

        While a callback runs, the server may be waiting for its answer, so the server is killed
        at once instead (a write is never torn); pending calls fail with ConnectionLostError.
        """
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
            abrupt = self._in_callback
            if self._lost is None and not abrupt:
                try:
                    self.request("shutdown", None, timeout=timeout)
                except (FsboxError, TimeoutError):
                    pass
            # EOF on stdin ends the server; a writer stuck on a full pipe must not stop us.
            if self._write_lock.acquire(timeout=timeout):
                try:
                    self._stdin.close()
                except OSError:
                    pass
                finally:
                    self._write_lock.release()
            if abrupt:
                self._proc.kill()
            try:
                self._proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._fail_all("the fsbox client was closed")
            if not self.on_reader_thread():
                # A callback that never returns keeps the reader; it is a daemon thread, and it
                # closes nothing, so leave it the pipes.
                self._reader.join(timeout)
                self._stderr_thread.join(timeout)
                self._close_pipes()


class AsyncConnection:
    """A server child process driven from one asyncio event loop."""

    def __init__(
        self,
        proc: asyncio.subprocess.Process,
        on_notification: AsyncNotificationHandler,
        on_request: AsyncRequestHandler,
    ) -> None:
        assert proc.stdin and proc.stdout and proc.stderr
        self._proc = proc
        self._stdin = proc.stdin
        self._on_notification = on_notification
        self._on_request = on_request
        self._tail = _StderrTail()
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._write_lock = asyncio.Lock()
        self._lost: str | None = None
        self._closed = False
        self._in_callback = False  # the reader is running a handler of the client
        self._closing: asyncio.Future[None] | None = None
        self._stderr_task = asyncio.ensure_future(self._pump_stderr())
        self._reader = asyncio.ensure_future(self._read())

    @classmethod
    async def open(
        cls,
        binary: str,
        on_notification: AsyncNotificationHandler,
        on_request: AsyncRequestHandler,
        serve_args: Sequence[str] = (),
    ) -> AsyncConnection:
        try:
            proc = await asyncio.create_subprocess_exec(
                binary,
                "serve",
                *serve_args,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
        except OSError as e:
            raise _cannot_run(binary, e) from e
        return cls(proc, on_notification, on_request)

    @property
    def pid(self) -> int:
        return self._proc.pid

    async def request(self, method: str, params: Any) -> Any:
        """Send a request and await its result; an error response raises its FsboxError."""
        if asyncio.current_task() is self._reader:
            raise RuntimeError(
                "fsbox: on_event and on_change_request run in the task that reads the server's "
                "messages and cannot call the client; start another task for the work"
            )
        if self._lost is not None:
            raise ConnectionLostError(self._lost)
        request_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            await self._send(_request_message(request_id, method, params))
            return await future
        except asyncio.CancelledError:
            if self._pending.pop(request_id, None) is not None and self._lost is None:
                self._write_now(
                    {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"id": request_id}}
                )
            raise
        finally:
            self._pending.pop(request_id, None)

    async def _send(self, message: Mapping[str, Any]) -> None:
        async with self._write_lock:
            if self._lost is not None:
                raise ConnectionLostError(self._lost)
            try:
                self._stdin.write(encode(message))
                await self._stdin.drain()
                return
            except (OSError, RuntimeError):
                pass
        # The pipe broke, so the server is gone: the reader is about to see EOF and say why.
        if asyncio.current_task() is not self._reader:
            await asyncio.wait([self._reader], timeout=5)
        raise ConnectionLostError(self._lost or "the fsbox server is not reading its input any more")

    def _write_now(self, message: Mapping[str, Any]) -> None:
        """Queue a line without waiting for the pipe; for cancellation, which cannot await."""
        try:
            self._stdin.write(encode(message))
        except (OSError, RuntimeError):
            pass

    async def _pump_stderr(self) -> None:
        stderr = self._proc.stderr
        assert stderr is not None
        while chunk := await stderr.read(65536):
            self._tail.feed(chunk)

    async def _read(self) -> None:
        stdout = self._proc.stdout
        assert stdout is not None
        parts: list[bytes] = []
        try:
            # Split lines here rather than with StreamReader.readline, whose buffer limit (64 KiB by
            # default) would fail on a big result.
            while chunk := await stdout.read(1 << 16):
                start = 0
                while (end := chunk.find(b"\n", start)) >= 0:
                    parts.append(chunk[start:end])
                    line = b"".join(parts)
                    parts.clear()
                    start = end + 1
                    message = _parse(line)
                    if message is not None:
                        await self._dispatch_safely(message)
                parts.append(chunk[start:])
        except (OSError, ValueError):
            pass
        finally:
            await self._connection_lost()

    async def _dispatch_safely(self, message: dict[str, Any]) -> None:
        # The reader must go on to EOF whatever a message does, or calls would wait forever.
        try:
            await self._dispatch(message)
        except Exception:
            report_callback_error("handling a message from the server")

    async def _dispatch(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if isinstance(method, str):
            self._in_callback = True
            try:
                if "id" not in message:
                    try:
                        await self._on_notification(method, message.get("params"))
                    except Exception:
                        report_callback_error(f"the handler of the {method} notification")
                    return
                try:
                    result = await self._on_request(method, message.get("params"))
                    response = {"jsonrpc": "2.0", "id": message["id"], "result": result}
                except Exception as exc:
                    response = _error_response(message["id"], exc)
            finally:
                self._in_callback = False
            try:
                await self._send(response)
            except FsboxError:
                pass
            return
        request_id = message.get("id")
        future = self._pending.pop(request_id, None) if isinstance(request_id, int) else None
        if future is None or future.done():
            return
        if "error" in message:
            future.set_exception(error_from_wire(message["error"]))
        else:
            future.set_result(message.get("result"))

    async def _connection_lost(self) -> None:
        if self._closed:
            reason = "the fsbox client was closed"
        else:
            try:
                returncode: int | None = await asyncio.wait_for(self._proc.wait(), 2)
            except asyncio.TimeoutError:
                returncode = None  # alive but its output is closed: of no use any more
                self._proc.kill()
            try:
                await asyncio.wait_for(asyncio.shield(self._stderr_task), 2)
            except asyncio.TimeoutError:
                pass
            reason = _exit_message(returncode, self._tail)
        self._fail_all(reason)

    def _fail_all(self, reason: str) -> None:
        """Refuse new calls and fail the pending ones, all with reason (the first one given)."""
        self._lost = self._lost or reason
        pending, self._pending = self._pending, {}
        for future in pending.values():
            if not future.done():
                future.set_exception(ConnectionLostError(self._lost))

    async def close(self, timeout: float = 5.0) -> None:
        """Shut the server down and reap it; killed if it is not gone within timeout seconds.

        While a callback runs, the server may be waiting for its answer, so the server is killed
        at once instead (a write is never torn), and a callback of another task is cancelled.
        """
        if self._closing is None:
            self._closing = asyncio.ensure_future(self._stop(timeout, abrupt=self._in_callback))
        await asyncio.shield(self._closing)
        if asyncio.current_task() is not self._reader:  # the reader cannot wait for itself
            await self._reap(timeout)

    async def _stop(self, timeout: float, abrupt: bool) -> None:
        self._closed = True
        if self._lost is None and not abrupt:
            try:
                await asyncio.wait_for(self.request("shutdown", None), timeout)
            except (FsboxError, asyncio.TimeoutError):
                pass
        try:
            self._stdin.close()
        except OSError:
            pass
        if abrupt:
            self._proc.kill()
        self._fail_all("the fsbox client was closed")

    async def _reap(self, timeout: float) -> None:
        """Wait for the process and for the tasks that drain its pipes."""
        if self._in_callback:
            self._reader.cancel()  # stuck in a callback whose answer nobody will read
        try:
            await asyncio.wait_for(self._proc.wait(), timeout)
        except asyncio.TimeoutError:
            self._proc.kill()
        await asyncio.wait([self._reader, self._stderr_task], timeout=timeout)
        # Process.wait also waits for the pipes, which the reader and stderr tasks drain.
        await asyncio.wait_for(self._proc.wait(), timeout)
