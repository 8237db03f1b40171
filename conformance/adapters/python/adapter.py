"""Conformance adapter of the fsbox Python SDK.

The conformance runner (fsbox conformance run --target binding:python) starts this script and
sends one JSON op per line on stdin; each gets one JSON answer line on stdout. Every call goes
through the SDK: the typed method of the tool (the generated table in _dispatch_gen.py), or
Client.call when the tool is unknown or its arguments do not fit the typed signature, so the
server's own error comes back. With result_shape "text" every call goes through Client.call (the
typed methods refuse that shape); with "typed" the typed methods run and the result's text, which
the SDK fills with "" in that shape, is left out, as the server left it out.

    {"op":"start","binary":..,"root_dir":..,"config":{..},"events":bool,"change_requests":bool,
     "result_shape":..}
    {"op":"call","tool":..,"arguments":{..}}
    {"op":"tools"}
    {"op":"stop"}

While a call runs, each change request on_change_request receives is written out as
{"change_request": {..}} and decided by the runner's next line,
{"op":"answer","approve":bool,"reason":"..","error":"..","decision":"..","content":"..","arguments":{..}}:
an error makes the callback raise; decision "edit" (or approve with a replacement) calls
request.approve_with(content) or request.edit(arguments).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import IO, Any

try:
    import fsbox
except ImportError:  # not installed: use the SDK of this checkout (it has no dependencies)
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "sdks" / "python" / "src"))
    import fsbox

from _dispatch_gen import DISPATCH

Answer = dict[str, Any]


def error_json(e: fsbox.FsboxError) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": e.kind, "retry": e.retry, "message": e.message}
    if "counts_as_retry" in e.data:
        out["counts_as_retry"] = e.counts_as_retry
    if e.code is not None:
        out["code"] = e.code
    if e.path is not None:
        out["path"] = e.path
    return out


class ChangeRequestFailed(Exception):
    """The runner answered a change request with an error."""


class Adapter:
    """One runner session: at most one client, the runner's pipes, the current call's events."""

    def __init__(self, stdin: IO[str], stdout: IO[str]) -> None:
        self.client: fsbox.Client | None = None
        self.events: list[dict[str, Any]] = []
        self.stdin, self.stdout = stdin, stdout

    def write(self, message: Answer) -> None:
        self.stdout.write(json.dumps(message) + "\n")
        self.stdout.flush()

    def read_op(self) -> Any:
        """The runner's next op (None for a line that is not JSON); raises EOFError at the end."""
        while line := self.stdin.readline():
            if line.strip():
                try:
                    return json.loads(line)
                except ValueError:
                    return None
        raise EOFError

    def on_event(self, event: fsbox.Event) -> None:
        self.events.append(event.to_wire())

    def on_change_request(self, request: fsbox.ChangeRequest) -> None:
        # Runs on the SDK's reader thread while the main thread waits in the call, so the pipes
        # are ours until the runner answers.
        self.write({"change_request": request.to_wire()})
        answer = self.read_op()
        if not isinstance(answer, dict) or answer.get("op") != "answer":
            raise ChangeRequestFailed("the runner did not answer the change request")
        error = answer.get("error")
        if isinstance(error, str) and error:
            raise ChangeRequestFailed(error)
        decision = answer.get("decision")
        approve = answer.get("approve") is True
        content, arguments = answer.get("content"), answer.get("arguments")
        if decision == "edit" or (decision is None and approve and (content is not None or arguments is not None)):
            if isinstance(content, str) and arguments is None:
                request.approve_with(content)
            elif content is None and isinstance(arguments, dict):
                request.edit(arguments)
            else:
                raise ChangeRequestFailed("the SDK sends an edit with content or with arguments, not both or neither")
        elif decision == "reject" or (decision != "approve" and not approve):
            reason = answer.get("reason")
            request.cancel(reason if isinstance(reason, str) else None)

    def start(self, op: dict[str, Any]) -> Answer:
        if self.client is not None:
            return {
                "ok": False,
                "skipped": "start sent twice; one client per adapter session",
            }
        config = op.get("config")
        try:
            self.client = fsbox.Client(
                op["root_dir"],
                config=config if isinstance(config, dict) else None,
                binary=op["binary"],
                on_event=self.on_event if op.get("events") else None,
                on_change_request=self.on_change_request if op.get("change_requests") else None,
                result_shape=op.get("result_shape"),
            )
        except fsbox.FsboxError as e:
            return {"ok": False, "error": error_json(e)}
        return {"ok": True, "initialize": self.client.initialize_result.to_wire()}

    def tools(self) -> Answer:
        """The descriptors the SDK holds (it has no tools/list method: those of initialize)."""
        if self.client is None:
            return {"ok": False, "skipped": "tools before start"}
        return {"ok": True, "result": {"tools": self.client.initialize_result.to_wire()["tools"]}}

    def call(self, op: dict[str, Any]) -> Answer:
        if self.client is None:
            return {"ok": False, "skipped": "call before start"}
        tool, arguments = op.get("tool"), op.get("arguments", {})
        if not isinstance(tool, str) or not isinstance(arguments, dict):
            return {
                "ok": False,
                "skipped": "the SDK takes a tool name and an arguments object only",
            }
        self.events = []
        answer: Answer
        try:
            result = None
            shape = self.client.initialize_result.result_shape
            handler = DISPATCH.get(tool) if shape != "text" else None
            if handler is not None:
                try:
                    result = handler(self.client, arguments)
                except fsbox.WireError:
                    result = None  # arguments the typed signature cannot carry
            if result is None:
                result = self.client.call(tool, arguments).to_wire()
            if shape == "typed" and result.get("text") == "":
                del result["text"]
            answer = {"ok": True, "result": result}
        except fsbox.FsboxError as e:
            answer = {"ok": False, "error": error_json(e)}
        answer["events"] = self.events
        return answer

    def stop(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None


def main() -> int:
    out: IO[str] = sys.stdout
    sys.stdout = sys.stderr  # nothing but answers may reach the runner's pipe
    adapter = Adapter(sys.stdin, out)
    try:
        while True:
            try:
                op = adapter.read_op()
            except EOFError:
                return 0
            answer: Answer
            if isinstance(op, dict):
                kind = op.get("op")
                try:
                    if kind == "start":
                        answer = adapter.start(op)
                    elif kind == "call":
                        answer = adapter.call(op)
                    elif kind == "tools":
                        answer = adapter.tools()
                    elif kind == "schema":
                        answer = {"ok": False, "skipped": "the Python SDK has no schema method"}
                    elif kind == "stop":
                        adapter.stop()
                        answer = {"ok": True}
                    else:
                        answer = {"ok": False, "skipped": f"unknown op {kind!r}"}
                except Exception as e:  # an adapter bug: report it, never hang the runner
                    answer = {
                        "ok": False,
                        "error": {
                            "kind": "adapter_exception",
                            "message": f"{type(e).__name__}: {e}",
                        },
                    }
            elif op is None:
                answer = {"ok": False, "skipped": "the op is not JSON"}
            else:
                answer = {"ok": False, "skipped": "the op is not an object"}
            adapter.write(answer)
            if isinstance(op, dict) and op.get("op") == "stop":
                return 0
    finally:
        adapter.stop()


if __name__ == "__main__":
    sys.exit(main())
