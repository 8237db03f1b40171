"""What every framework adapter shares: the config it builds, the retry accounting, the change gate.

An adapter forwards fsbox's ``text`` to the model unchanged and decides three things the framework
has its own words for:

1. **Is a failure the model's to fix?** :func:`counts_as_retry` answers from the error's data: the
   server's ``counts_as_retry`` when it sends one, else its ``retry`` flag. A retry error becomes the
   framework's "ask the model again" (pydantic-ai's ``ModelRetry``); an error that does not count
   is handed back as a plain result; a fatal error is raised.
2. **Which changes need a human?** :class:`ChangeGate` answers each change request the server sends:
   with ``approve="rules"`` (the default) only changes that a permission rule marked ``interrupt``
   wait for a human, the others are approved; ``"all"`` asks for every change; ``"never"`` approves
   every change without asking.
3. **Who owns the process?** Each adapter starts its client lazily and closes it with the agent.

Each adapter also asks the server for the lightest result shape (``capabilities.result_shape``)
that carries what it uses, so neither side encodes or parses fields nobody reads: ``"text"`` for
the adapters that hand the model only the text (LangChain, the editor formats, the OpenAI Agents
editor, pydantic-ai, which fetches an image's or PDF's bytes separately), ``"typed"`` for
deepagents, whose backend returns the typed fields. bench/README.md ("Adapters: result shapes")
has the bytes and parse times behind each choice.

Each adapter that starts its own server takes ``audit=``, what ``fsbox.Client`` takes (an
``fsbox.AuditLog`` or a path), and hands it to every server it starts: the one its tools call and
the one a ``restore()`` after the run starts. Every tool call the model makes is then one line of
that log (docs/protocol.md §9), written before the model sees the result. An adapter never runs
two servers on one log at once: their lines would interleave with two sequences, and their
rotations would race.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeVar

from ..client import AuditLog, ChangeRequest, Client, OnEvent, PathLike, ResultShape
from .._types_gen import READ_ONLY_TOOLS
from ..errors import FsboxError

ApproveMode = Literal["rules", "all", "never"]
"""Which changes wait for a human: rule-flagged only, every change, or none."""

READ_TOOLS = frozenset(READ_ONLY_TOOLS)
"""The tools that never change anything, so never send a change request (the schema's read-only
tools)."""


def is_change_tool(name: str) -> bool:
    """Whether a call of the tool called name may send a change request, so must hold the change
    gate. Unknown names count as changes (delete, move, remove_directory, and any tool a newer
    server adds): holding the gate for a read costs a little order; missing it for a change would
    answer its request from another call's approval."""
    return name not in READ_TOOLS


def audit_log(audit: AuditLog | PathLike | None) -> AuditLog | None:
    """audit as an AuditLog (a path becomes ``AuditLog(path)``), None for no log.

    Checked when the adapter is made, so a mistyped argument fails there, naming ``audit``,
    rather than at the first tool call.
    """
    if audit is None or isinstance(audit, AuditLog):
        return audit
    if isinstance(audit, (str, os.PathLike)):
        return AuditLog(path=audit)
    raise TypeError(f"audit must be an fsbox.AuditLog or a path, not {type(audit).__name__}")


def counts_as_retry(err: FsboxError) -> bool:
    """Whether err should spend one of the model's retries (and be raised as a retry)."""
    return err.counts_as_retry


def harness_config(
    *,
    allowed_patterns: Sequence[str] | None = None,
    denied_patterns: Sequence[str] | None = None,
    read_only_patterns: Sequence[str] | None = None,
    max_read_lines: int | None = None,
    max_read_chars: int | None = None,
    max_list_results: int | None = None,
    max_search_results: int | None = None,
    max_find_results: int | None = None,
    read_only: bool = False,
    content_hashes: bool | None = None,
    tools: Sequence[str] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """An fsbox config (wire field names) from pydantic-ai-harness FileSystem's argument names.

    Arguments left as None keep fsbox's defaults; ``read_only_patterns`` is fsbox's
    ``protected_patterns``. ``extra`` holds any other fsbox config field and wins over the rest.
    """
    cfg: dict[str, Any] = {}
    for key, value in (
        ("allowed_patterns", allowed_patterns),
        ("denied_patterns", denied_patterns),
        ("protected_patterns", read_only_patterns),
        ("tools", tools),
    ):
        if value is not None:
            cfg[key] = list(value)
    for key, num in (
        ("max_read_lines", max_read_lines),
        ("max_read_chars", max_read_chars),
        ("max_list_results", max_list_results),
        ("max_search_results", max_search_results),
        ("max_find_results", max_find_results),
    ):
        if num is not None:
            cfg[key] = num
    if read_only:
        cfg["read_only"] = True
    if content_hashes is not None:
        cfg["content_hashes"] = content_hashes
    cfg.update(extra or {})
    return cfg


@dataclasses.dataclass
class PendingChange:
    """A change the gate refused because it needs a human; what the human is shown."""

    path: str
    operation: str
    diff: str | None
    reason: str
    rule: Any = None

    def metadata(self) -> dict[str, Any]:
        """The change as plain data, for a framework's approval request."""
        out: dict[str, Any] = {
            "path": self.path,
            "operation": self.operation,
            "diff": self.diff,
            "reason": self.reason,
        }
        if self.rule is not None:
            to_wire = getattr(self.rule, "to_wire", None)
            out["rule"] = to_wire() if callable(to_wire) else self.rule
        return out


NEEDS_APPROVAL = "approval required"
"""The cancel reason the gate gives the server while a human has not yet decided."""


class ChangeGate:
    """Answers the server's change requests for one adapter, one change-making call at a time.

    Change requests carry no call id, so the gate lets one change-making call run at a time
    (:meth:`turn`) and answers the requests that arrive meanwhile from that call's approval state.
    Reading tools never wait for the gate.
    """

    def __init__(self, approve: ApproveMode = "rules") -> None:
        if approve not in ("rules", "all", "never"):
            raise ValueError(f"approve must be 'rules', 'all' or 'never', not {approve!r}")
        self.approve: ApproveMode = approve
        self._lock = asyncio.Lock()
        self._thread_lock = threading.Lock()
        self._approved = False
        self._deny_reason: str | None = None
        self._edit: Decision | None = None
        self.pending: PendingChange | None = None
        self.covered: Callable[[ChangeRequest], bool] | None = None
        """Says a change a human was already asked about by the framework (deepagents' own
        human-in-the-loop step for the same rule), which goes ahead without a second interrupt."""

    def asks(self) -> bool:
        """Whether the server must send change requests at all (else the client offers none)."""
        return self.approve != "never"

    def needs_human(self, req: ChangeRequest) -> bool:
        """Whether req waits for a human under this gate's mode."""
        if self.approve == "never":
            return False
        if self.approve == "all":
            return True
        if self.covered is not None and self.covered(req):
            return False
        return req.reason == "permission_rule"

    def decide(self, req: ChangeRequest) -> None:
        """The on_change_request callback: approve, edit, or cancel and remember what was refused."""
        if not self.needs_human(req):
            return
        if self._edit is not None:
            # The human's replacement answers the first request of the turn; the server checks it
            # as if the model had sent it and asks nothing more.
            edit, self._edit = self._edit, None
            if edit.content is not None:
                req.approve_with(edit.content)
            else:
                req.edit(edit.arguments)
            return
        if self._approved:
            return
        if self._deny_reason is not None:
            req.cancel(self._deny_reason)
            return
        self.pending = PendingChange(
            path=req.path,
            operation=str(req.operation),
            diff=req.diff,
            reason=str(req.reason),
            rule=getattr(req, "rule", None),
        )
        req.cancel(NEEDS_APPROVAL)

    def turn(self, approved: bool, deny_reason: str | None = None, edit: Decision | None = None) -> _Turn:
        """A context (async with, or with from a thread) for one change-making call.

        approved says a human already agreed to this call's changes; deny_reason, that a human
        refused them (the server is told that reason and writes nothing); edit, that a human
        approved them with a replacement (:class:`Decision` with content or arguments), which
        answers the call's change request. Use one kind of context per gate: async adapters take
        the asyncio lock, threaded ones the thread lock.
        """
        return _Turn(self, approved, deny_reason, edit)

    def turn_for(self, decision: Decision) -> _Turn:
        """The turn that carries out a human's decision."""
        if decision.edited:
            return self.turn(approved=True, edit=decision)
        return self.turn(approved=decision.approve, deny_reason=None if decision.approve else decision.reason)


class _Turn:
    def __init__(self, gate: ChangeGate, approved: bool, deny_reason: str | None, edit: Decision | None) -> None:
        self._gate = gate
        self._approved = approved
        self._deny_reason = deny_reason
        self._edit = edit

    def _begin(self) -> ChangeGate:
        self._gate._approved = self._approved
        self._gate._deny_reason = self._deny_reason
        self._gate._edit = self._edit
        self._gate.pending = None
        return self._gate

    async def __aenter__(self) -> ChangeGate:
        await self._gate._lock.acquire()
        return self._begin()

    async def __aexit__(self, *exc: object) -> None:
        self._end()
        self._gate._lock.release()

    def _end(self) -> None:
        self._gate._approved = False
        self._gate._deny_reason = None
        self._gate._edit = None

    def __enter__(self) -> ChangeGate:
        self._gate._thread_lock.acquire()
        return self._begin()

    def __exit__(self, *exc: object) -> None:
        self._end()
        self._gate._thread_lock.release()


_S = TypeVar("_S", bound="SyncOwner")


class SyncOwner:
    """A blocking fsbox Client owned by an adapter object: started on first use, stopped by
    close(), at the end of a ``with`` block, or when the owner is collected; its change requests
    go to the owner's gate. result_shape is the shape the adapter's calls need (see the module
    doc). With ``audit`` the server appends a line per call to that log; the owner runs one
    process at a time (a restore after close() starts the next only once this one stopped), so
    the log's lines are one process's at a time, numbered from 1 by each."""

    def __init__(
        self,
        root_dir: str | os.PathLike[str],
        *,
        config: dict[str, Any] | None,
        binary: str | os.PathLike[str] | None,
        approve: ApproveMode,
        on_event: OnEvent | None,
        result_shape: ResultShape,
        checkpoints: bool = False,
        audit: AuditLog | PathLike | None = None,
    ) -> None:
        self.root_dir = root_dir
        self.audit = audit_log(audit)
        self.config = dict(config or {})
        self.binary = binary
        self.on_event = on_event
        self.result_shape: ResultShape = result_shape
        self._gate = ChangeGate(approve)
        self._client: Client | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self._checkpoints: Any = None
        if checkpoints:
            from ._checkpoints import RunCheckpoints

            self._checkpoints = RunCheckpoints()

    @property
    def client(self) -> Client:
        """The running fsbox client, started on first use."""
        if self._client is None:
            config = self.config
            if self._checkpoints is not None:
                config = self._checkpoints.configure(os.fspath(self.root_dir), config)
            client = Client(
                self.root_dir,
                config=config,
                binary=self.binary,
                on_event=self.on_event,
                on_change_request=self._gate.decide if self._gate.asks() else None,
                result_shape=self.result_shape,
                audit=self.audit,
            )
            self._client = client
            self._finalizer = weakref.finalize(self, client.close)
            if self._checkpoints is not None:
                self._checkpoints.started_sync(os.fspath(self.root_dir), client)
        return self._client

    def restore(self, *, force: bool = False) -> Any:
        """Put back everything changed since the fsbox process started (``checkpoints=True``).

        Works while the process runs and after close() (the journal outlives it). A file someone
        else changed since fsbox last wrote it is left alone and listed in ``not_restored``,
        unless ``force``. Returns the CheckpointRestoreResult.
        """
        if self._checkpoints is None:
            raise RuntimeError("restore() needs checkpoints=True")
        running = {os.fspath(self.root_dir): self._client} if self._client is not None else {}
        results = self._checkpoints.restore_sync(
            running, config=self.config, binary=self.binary, force=force, audit=self.audit
        )
        return next(iter(results.values()), None)

    def close(self) -> None:
        """Stop the fsbox process; a later use starts a new one."""
        client, self._client = self._client, None
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        if client is not None:
            client.close()

    def __enter__(self: _S) -> _S:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclasses.dataclass
class Decision:
    """A human's decision on a pending change: approve, refuse (with a reason), or approve with a
    replacement: a write's or an edit's complete new ``content``, or the call's complete replacement
    ``arguments`` (fsbox's argument names), which the server checks exactly as if the model had
    sent them."""

    approve: bool
    reason: str = "refused by the reviewer"
    content: str | None = None
    arguments: dict[str, Any] | None = None

    @property
    def edited(self) -> bool:
        """Whether the human replaced the change."""
        return self.content is not None or self.arguments is not None


_DEEPAGENTS_ARGS = {"file_path": "path", "old_string": "old_text", "new_string": "new_text"}
"""deepagents' argument names for the fsbox ones, as a deepagents ``edited_action`` spells them."""


def ask_human(pending: PendingChange, review: Callable[[PendingChange], Any] | None = None) -> Decision:
    """A human's decision on pending: review's answer when given, else LangGraph's interrupt().

    An answer is one of:

    * ``True`` / ``False``, ``(approve, reason)``, or ``{"approve": bool, "reason": str}``;
    * deepagents' and LangChain's human-in-the-loop decisions: ``{"type": "approve"}``,
      ``{"type": "reject", "message": str}``, ``{"type": "edit", "edited_action": {"args": {...}}}``,
      alone or as the single entry of ``{"decisions": [...]}``; an edit's args are the tool call's
      complete replacement arguments, in fsbox's names or deepagents' (``file_path`` ``/``-rooted,
      ``old_string``, ``new_string``);
    * fsbox's own edit: ``{"decision": "edit", "content": str}`` (a write's or an edit's whole new content) or
      ``{"decision": "edit", "arguments": {...}}``.
    """
    answer: Any
    if review is not None:
        answer = review(pending)
    else:
        from langgraph.types import interrupt

        answer = interrupt({"action": "fsbox_change", **pending.metadata()})
    return _decision(answer)


def _decision(answer: Any) -> Decision:
    if isinstance(answer, Decision):
        return answer
    if isinstance(answer, tuple):
        return Decision(bool(answer[0]), str(answer[1]))
    if not isinstance(answer, Mapping):
        return Decision(bool(answer))
    decisions = answer.get("decisions")
    if isinstance(decisions, Sequence) and not isinstance(decisions, str):
        if len(decisions) != 1:
            raise ValueError(f"one decision per fsbox change, got {len(decisions)}")
        return _decision(decisions[0])
    kind = answer.get("type", answer.get("decision"))
    reason = str(answer.get("reason") or answer.get("message") or "refused by the reviewer")
    if kind == "edit":
        content = answer.get("content")
        action = answer.get("edited_action")
        args = action.get("args") if isinstance(action, Mapping) else answer.get("arguments")
        if content is not None:
            if args is not None:
                raise ValueError("an edit carries content or arguments, not both")
            return Decision(True, content=str(content))
        if not isinstance(args, Mapping):
            raise ValueError("an edit needs content, arguments, or edited_action.args")
        return Decision(True, arguments=_fsbox_args(args))
    if kind == "approve":
        return Decision(True)
    if kind == "reject":
        return Decision(False, reason)
    return Decision(bool(answer.get("approve")), reason)


def agent_path(path: str) -> str:
    """The fsbox path for a deepagents path: '/a/b' is 'a/b', '/' is '.'. Nothing else is
    changed: fsbox itself refuses '..' that leaves the root, absolute host paths and escaping
    links."""
    return path.lstrip("/") or "."


def _fsbox_args(args: Mapping[str, Any]) -> dict[str, Any]:
    """An edit's arguments in fsbox's names: deepagents' names renamed, its ``/``-rooted
    file_path made root-relative (fsbox itself confines whatever path results)."""
    out: dict[str, Any] = {}
    for key, value in args.items():
        name = _DEEPAGENTS_ARGS.get(key, key)
        if key == "file_path" and isinstance(value, str):
            value = agent_path(value)
        out[name] = value
    return out
