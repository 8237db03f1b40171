"""fsbox as a deepagents backend (``pip install 'fsbox[deepagents]'``).

::

    from deepagents import create_deep_agent
    from fsbox.integrations.deepagents import FsboxBackend

    agent = create_deep_agent(model=model, backend=FsboxBackend("workspace"))

:class:`FsboxBackend` implements deepagents' ``BackendProtocol`` (``ls``, ``read``, ``write``,
``edit``, ``grep``, ``glob``, ``upload_files``, ``download_files``) on a real fsbox process, so the
agent's file tools get fsbox's containment: every path is resolved and confined at I/O time,
symlinks and swaps included, and an escape is an error in the result, never an exception that ends
the run and never a host path. The agent's namespace is ``/``-rooted: ``/src/app.py`` is
``src/app.py`` under the fsbox root.

What it maps, and where it differs from deepagents' ``FilesystemBackend``:

1. **Permissions.** ``permissions=[FilesystemPermission(...)]`` become fsbox permission rules (the
   same operations, ``/``-anchored globs and first-match order), enforced by the server on the
   resolved path. deepagents' middleware still checks the agent's own ``permissions`` first, and
   resolves links for them through :meth:`FsboxBackend.real_path` (fsbox's resolution), so an
   agent's rule holds through a symlink as with deepagents' own backend. A change an agent's
   ``interrupt`` rule already asked a human about is not asked again.
2. **Approvals.** A write that an ``interrupt`` rule (or ``approve="all"``) flags pauses the graph
   with LangGraph's ``interrupt()`` carrying the path, operation and diff; resume with
   ``Command(resume=True)`` to write it, or ``{"approve": False, "reason": ...}`` to refuse.
   deepagents' decisions work too: ``{"type": "approve"}``, ``{"type": "reject", "message": ...}``
   and ``{"type": "edit", "edited_action": {"args": {...}}}``, whose args (``file_path``,
   ``content``, ``old_string``, ``new_string`` or fsbox's names) replace the change's; fsbox
   re-checks them as if the model had sent them, and the tool reports the path really written.
3. **grep** is literal (the pattern is escaped for fsbox's RE2 search); ``glob`` filters files by
   fsbox's root-relative glob; ``max_count`` trims the result and marks it truncated. Output modes
   (``files_with_matches``, ``count``, ``content``) are the middleware's, built on these matches.
4. **glob**: a pattern without ``/`` matches the basename at any depth; a leading ``/`` anchors it
   at the search path; only files are returned.
5. **write** creates missing parent directories, as deepagents expects, through fsbox's
   ``create_directory``. **edit** with ``replace_all`` reads the whole file, replaces every
   occurrence and writes it back guarded by the content hash it read, so a concurrent change makes
   it fail rather than be lost.
6. **Results, not exceptions**: every fsbox failure is the result's ``error`` text (fsbox's
   message, written for the model); ``ls`` of a file says ``not_a_directory`` and of a missing path
   ``path_not_found``, as the middleware's delete probe expects.
7. **delete** is fsbox's ``delete`` with ``recursive``: a file, a link (never its target) or a
   whole directory, every entry checked before anything is removed.
8. **Dot entries** are shown (``show_dot_entries``), still filtered by deny rules and the
   credential defaults; ``/.github`` keeps its dot.
9. **Differences** (docs/frameworks.md): a binary file that is not an image or PDF is an error,
   not its bytes; ``download_files`` of a binary file reports an error; files whose text is not
   valid UTF-8 are shown with U+FFFD and refused by ``replace_all`` (a plain ``edit`` keeps their
   bytes).
10. **Audit**: with ``audit=fsbox.AuditLog(path, ...)`` (or a path) the server appends a line per
    fsbox call to that file (docs/protocol.md §9). Most deepagents tool calls are one fsbox call;
    some are more, each its own line: a write into a directory that may be missing asks
    ``file_info`` first (and ``create_directory`` when it is), ``edit`` with ``replace_all`` reads
    then writes, a long read is several pages, a change a human decided is the refused call and
    the decided one, and deepagents' permission checks resolve links with ``file_info``.
"""

from __future__ import annotations

import base64
import os
import posixpath
import re
from collections.abc import Sequence
from typing import Any, cast

from deepagents.backends.protocol import (
    BackendProtocol,
    DeleteResult,
    EditResult,
    FileData,
    FileDownloadResponse,
    FileInfo,
    FileUploadResponse,
    GlobResult,
    GrepMatch,
    GrepResult,
    LsResult,
    ReadResult,
    WriteResult,
)

from deepagents.backends.utils import EMPTY_CONTENT_WARNING

from .._types_gen import FindFilesResult, ListDirectoryResult, ReadFileResult, SearchFilesResult
from ..client import AuditLog, OnEvent, PathLike
from ..errors import FsboxError
from . import _deepagents_hooks
from ._common import ApproveMode, PendingChange, SyncOwner, agent_path as _rel, ask_human

__all__ = ["FsboxBackend"]


class FsboxBackend(BackendProtocol, SyncOwner):
    """deepagents' BackendProtocol served by one fsbox process (see the module doc)."""

    def __init__(
        self,
        root_dir: str | os.PathLike[str] = ".",
        *,
        permissions: Sequence[Any] | None = None,
        config: dict[str, Any] | None = None,
        binary: str | os.PathLike[str] | None = None,
        approve: ApproveMode = "rules",
        on_event: OnEvent | None = None,
        checkpoints: bool = False,
        audit: AuditLog | PathLike | None = None,
    ) -> None:
        cfg = dict(config or {})
        if permissions:
            cfg["permissions"] = [_rule(p) for p in permissions] + list(cfg.get("permissions") or [])
        # deepagents shows dot entries (ls /, glob *.yml); fsbox's walkers still leave out what a
        # deny rule or the credential defaults hide.
        cfg.setdefault("show_dot_entries", True)
        if "tools" not in cfg:
            # deepagents offers its delete tool whenever the backend implements it; fsbox's is opt-in.
            cfg["tools"] = [*_DEFAULT_TOOLS, "delete"]
        # The backend returns the typed fields (a read's content, the entries, the matches), never
        # the model text: result shape "typed" leaves the text off the wire (half of a read's bytes).
        SyncOwner.__init__(
            self,
            root_dir,
            config=cfg,
            binary=binary,
            approve=approve,
            on_event=on_event,
            result_shape="typed",
            checkpoints=checkpoints,
            audit=audit,
        )
        self._agent_interrupts: set[tuple[tuple[str, ...], tuple[str, ...]]] | None = None
        self._gate.covered = self._asked_by_agent

    # -- what deepagents' own checks ask ---------------------------------------------------------

    def agent_rules(self, rules: Sequence[Any]) -> None:
        """Record the interrupt rules an agent built on this backend asks a human for itself
        (deepagents' HumanInTheLoopMiddleware, before the tool runs). A change one of them flagged
        is approved here without asking again, so one change is one interrupt. Called by the hook
        on deepagents' graph assembly; a backend shared by agents with different rules keeps only
        the rules every one of them asks for."""
        mine = {(tuple(r["operations"]), tuple(r["paths"])) for r in map(_rule, rules) if r["mode"] == "interrupt"}
        self._agent_interrupts = mine if self._agent_interrupts is None else self._agent_interrupts & mine

    def _asked_by_agent(self, req: Any) -> bool:
        rule = getattr(req, "rule", None)
        if rule is None or not self._agent_interrupts:
            return False
        key = (tuple(rule.operations), tuple(rule.paths))
        return getattr(rule, "mode", None) == "interrupt" and key in self._agent_interrupts

    def real_path(self, path: str) -> str:
        """The agent path that path resolves to through symlinks, as fsbox resolves it: what
        deepagents' permission checks match a rule against besides the path as written.

        Each component is looked up with fsbox's file_info (its link target, one hop), up to 40
        hops; a missing component ends the lookup with the rest kept as written (the path a
        write would create). Raises ValueError for a path that leaves the root or that fsbox
        refuses to look at, and OSError for a link loop, which deepagents' checks count as
        "cannot resolve" and refuse.
        """
        pending = [p for p in _rel(path).split("/") if p not in ("", ".")]
        done: list[str] = []
        hops = 0
        while pending:
            name = pending.pop(0)
            if name == "..":
                if not done:
                    raise ValueError(f"{path} leaves the root")
                done.pop()
                continue
            here = "/".join([*done, name])
            try:
                info = self.client.file_info(path=here)
            except FsboxError as e:
                if e.kind in ("not_found",):
                    done.extend([name, *pending])
                    break
                raise ValueError(f"cannot resolve {path}: {e.kind}") from None
            target = info.symlink_target
            if not target:
                done.append(name)
                continue
            if target.startswith("<"):
                raise ValueError(f"{path} resolves outside the root")
            hops += 1
            if hops > 40:
                raise OSError(40, f"too many levels of symbolic links: {path}")
            done, pending = [], [p for p in target.split("/") if p not in ("", ".")] + pending
        return "/" + "/".join(done)

    # -- BackendProtocol -----------------------------------------------------------------------

    def ls(self, path: str) -> LsResult:
        rel = _rel(path)
        try:
            res = self.client.list_directory(path=rel)
        except FsboxError as e:
            if e.kind == "not_a_directory":
                return LsResult(error=f"Path '{path}': not_a_directory")
            if e.kind == "not_found":
                return LsResult(error=f"Path '{path}': path_not_found")
            return LsResult(error=e.message)
        return LsResult(entries=[_info(ent.path, ent.type, ent.size, ent.modified_at) for ent in _entries(res)])

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """Lines offset+1 .. offset+limit, as deepagents' FilesystemBackend returns them.

        fsbox bounds one read_file result (max_read_chars); a window past it, or one line longer
        than it, is assembled here from fsbox's pages (column by column for a long line), every
        page checked to carry the same content hash, up to READ_ASSEMBLY_CHARS characters. An
        image or PDF comes back base64-encoded, as deepagents' backend returns it (the middleware
        shows it to the model as an image); other binary files are refused with fsbox's summary.
        """
        if limit <= 0:
            return ReadResult(file_data=_text(""), no_lines_requested=True)
        offset = max(offset, 0)
        rel = _rel(file_path)
        parts: list[str] = []
        lines = chars = 0
        line, column, digest, total = offset, None, None, 0
        more = eof = False
        try:
            while lines < limit:
                args: dict[str, Any] = {"path": rel, "offset": line, "limit": limit - lines}
                if column is not None:
                    args["column"] = column
                res = self.client.read_file(**args)
                if digest is not None and res.hash != digest:
                    return ReadResult(error=f"Error: {file_path} changed while it was read; read it again")
                digest, total = res.hash, res.total_lines
                if res.binary:
                    data, media = getattr(res, "data", None), getattr(res, "media_type", None)
                    if isinstance(data, bytes) and media:
                        encoded = base64.standard_b64encode(data).decode("ascii")
                        return ReadResult(file_data=cast(FileData, {"content": encoded, "encoding": "base64"}))
                    return ReadResult(error=f"{file_path}: binary file ({res.size} bytes); fsbox does not return binary content")
                if total == 0:
                    return ReadResult(file_data=_text(EMPTY_CONTENT_WARNING))
                piece = res.content or ""
                parts.append(piece)
                chars += len(piece)
                if res.next_column is not None:  # one long line, continued column by column
                    column = res.next_column
                    if chars >= READ_ASSEMBLY_CHARS:
                        lines, more = lines + 1, True
                        parts.append(f"\n... (line {line + 1} continues past {READ_ASSEMBLY_CHARS} characters)\n")
                        break
                    continue
                if not res.lines_shown and column is None:
                    column = 0  # the next line does not fit one result: read it in pieces
                    continue
                lines += res.lines_shown or 0
                column = None
                if res.next_offset is None:
                    eof = True
                    break
                line = res.next_offset
                if chars >= READ_ASSEMBLY_CHARS:
                    more = True
                    break
        except FsboxError as e:
            if e.kind == "offset_out_of_range":
                return ReadResult(error=f"Line offset {offset} exceeds file length ({_lines(e)} lines)")
            return ReadResult(error=e.message)
        content = "".join(parts)
        if offset == 0 and eof and content.strip() == "":
            return ReadResult(file_data=_text(EMPTY_CONTENT_WARNING))  # deepagents' whitespace-only rule
        end = offset + lines
        return ReadResult(
            file_data=_text(content),
            total_lines=total,
            start_line=offset + 1,
            end_line=end,
            next_offset=end if end < total else None,
        )

    def write(self, file_path: str, content: str) -> WriteResult:
        rel = _rel(file_path)
        steps: list[tuple[str, dict[str, Any]]] = []
        parent = posixpath.dirname(rel)
        if parent and not self._is_dir(parent):
            steps.append(("create_directory", {"path": parent}))
        steps.append(("write_file", {"path": rel, "content": content}))
        try:
            res = self._changes(steps)
        except _Refused as r:
            return WriteResult(error=r.text)
        except FsboxError as e:
            return WriteResult(error=e.message)
        return WriteResult(path=_written(res, file_path))

    def edit(
        self,
        file_path: str,
        old_string: str,
        new_string: str,
        replace_all: bool = False,  # noqa: FBT001, FBT002
    ) -> EditResult:
        rel = _rel(file_path)
        try:
            if not replace_all:
                try:
                    res = self._change("edit_file", {"path": rel, "old_text": old_string, "new_text": new_string})
                except FsboxError as e:
                    m = re.search(r"found (\d+) times", e.message) if e.kind == "multiple_matches" else None
                    if m is None:
                        raise
                    # deepagents' own words, whose hint names the argument its edit_file tool has.
                    return EditResult(
                        error=f"Error: String '{old_string}' appears {m.group(1)} times in file. Use replace_all=True "
                        "to replace all instances, or provide a more specific string with surrounding context."
                    )
                return EditResult(path=_written(res, file_path), occurrences=int(getattr(res, "replacements", 1) or 1))
            text, digest = self._read_all(rel)
            count = text.count(old_string) if old_string else 0
            if count == 0:
                return EditResult(error=f"Error: String not found in file: '{old_string}'")
            if "\ufffd" in text:
                return EditResult(
                    error=f"Error: {file_path} is not valid UTF-8; replace_all would rewrite its bytes. "
                    "Edit one occurrence at a time."
                )
            args: dict[str, Any] = {"path": rel, "content": text.replace(old_string, new_string)}
            if digest:
                args["expected_hash"] = digest
            self._change("write_file", args)
            return EditResult(path=file_path, occurrences=count)
        except _Refused as r:
            return EditResult(error=r.text)
        except FsboxError as e:
            return EditResult(error=e.message)

    def delete(self, file_path: str) -> DeleteResult:
        """Delete a file, a symlink (the link, never its target) or a directory with everything
        in it, as deepagents' FilesystemBackend does; fsbox checks every entry of a directory
        first and removes nothing if any one may not be changed."""
        rel = _rel(file_path)
        if rel == ".":
            return DeleteResult(error=f"Error deleting '{file_path}': the root cannot be deleted")
        try:
            self._change("delete", {"path": rel, "recursive": True})
        except _Refused as r:
            return DeleteResult(error=r.text)
        except FsboxError as e:
            if e.kind == "not_found":
                return DeleteResult(error=f"Error: '{file_path}' not found")
            return DeleteResult(error=e.message)
        return DeleteResult(path=file_path)

    def grep(
        self,
        pattern: str,
        path: str | None = None,
        glob: str | None = None,
        *,
        max_count: int | None = None,
    ) -> GrepResult:
        args: dict[str, Any] = {"pattern": _re2_literal(pattern), "path": _rel(path or "/")}
        if glob:
            args["include_glob"] = glob.lstrip("/")
        try:
            res = self.client.search_files(**args)
        except FsboxError as e:
            if e.kind == "not_found":
                return GrepResult(matches=[])
            return GrepResult(error=e.message)
        matches = [cast(GrepMatch, {"path": _abs(m.path), "line": m.line, "text": m.text}) for m in _matches(res)]
        truncated = bool(res.truncated)
        if max_count is not None and len(matches) > max_count:
            matches, truncated = matches[:max_count], True
        return GrepResult(matches=matches, truncated=truncated)

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        if pattern.startswith("/"):
            pattern = pattern.lstrip("/")
        elif "/" not in pattern:
            pattern = "**/" + pattern
        try:
            res = self.client.find_files(pattern=pattern, path=_rel(path or "/"))
        except FsboxError as e:
            return GlobResult(error=e.message)
        files = [_info(p, "file", None, None) for p in _paths(res) if not p.endswith("/")]
        return GlobResult(matches=files, truncated=bool(res.truncated), truncation_reason="budget" if res.truncated else None)

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        out: list[FileUploadResponse] = []
        for path, data in files:
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                out.append(FileUploadResponse(path=path, error="invalid_path"))
                continue
            res = self.write(path, text)
            out.append(FileUploadResponse(path=path, error=None if res.error is None else _op_error(res.error)))
        return out

    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        out: list[FileDownloadResponse] = []
        for path in paths:
            try:
                text, _ = self._read_all(_rel(path))
            except FsboxError as e:
                out.append(FileDownloadResponse(path=path, content=None, error=_kind_error(e.kind)))
                continue
            out.append(FileDownloadResponse(path=path, content=text.encode("utf-8"), error=None))
        return out

    # -- helpers ---------------------------------------------------------------------------------

    def _read_all(self, rel: str) -> tuple[str, str]:
        """The whole text of rel and its hash, paging through fsbox's bounded reads.

        Every page must carry the same hash, so the pages are one version of the file.
        """
        parts: list[str] = []
        offset, digest = 0, None
        while True:
            res = self.client.read_file(path=rel, offset=offset) if offset else self.client.read_file(path=rel)
            if res.binary:
                raise FsboxError(f"{rel} is a binary file", kind="not_regular_file", path=rel)
            if digest is not None and res.hash != digest:
                raise FsboxError(f"{rel} changed while it was read; try again", kind="changed_during_request", path=rel)
            digest = res.hash
            if res.content is not None:
                parts.append(res.content)
            if res.next_offset is None:
                return "".join(parts), digest or ""
            if not res.lines_shown:
                raise FsboxError(f"{rel}: no line at offset {offset}", kind="offset_out_of_range", path=rel)
            offset = res.next_offset

    def _is_dir(self, rel: str) -> bool:
        try:
            return self.client.file_info(path=rel).type == "directory"
        except FsboxError:
            return False

    def _change(self, tool: str, args: dict[str, Any]) -> Any:
        """Call a change-making tool, pausing for a human where the gate says so."""
        return self._changes([(tool, args)])

    def _changes(self, steps: list[tuple[str, dict[str, Any]]]) -> Any:
        """Run change-making calls as one change (a write and the parent it needs): at most one
        human decision for all of them, shown as the last call's change; returns its result.

        Nothing is applied before the decision: the first call that needs a human stops the
        sequence. An approval applies every call; an edit applies to the last (the change the
        human saw), the others approved; a refusal applies none.
        """
        results: list[Any] = []
        pending: PendingChange | None = None
        with self._gate.turn(approved=False) as gate:
            for tool, args in steps:
                res = self.client.call(tool, args)
                if gate.pending is not None:
                    pending = gate.pending
                    break
                results.append(_checked(res))
        if pending is None:
            return results[-1]
        last_tool, last_args = steps[-1]
        if len(results) < len(steps) - 1 or pending.operation != _OPERATION.get(last_tool, pending.operation):
            # An earlier call (the parent directory) is what waits: show the human the write.
            pending = PendingChange(
                path=last_args["path"],
                operation=_OPERATION.get(last_tool, last_tool),
                diff=_new_file_diff(last_args["path"], str(last_args.get("content", ""))),
                reason=pending.reason,
                rule=pending.rule,
            )
        decision = ask_human(pending)
        for tool, args in steps[len(results) : -1]:
            with self._gate.turn(approved=decision.approve or decision.edited, deny_reason=None if (decision.approve or decision.edited) else decision.reason):
                _checked(self.client.call(tool, args))
        with self._gate.turn_for(decision):
            return _checked(self.client.call(last_tool, last_args))


class _Refused(Exception):
    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def _written(res: Any, file_path: str) -> str:
    """The agent path a change landed on: the reviewer's when an edit moved it, else file_path."""
    if getattr(res, "modified_by_reviewer", False) and isinstance(getattr(res, "path", None), str):
        return _abs(res.path)
    return file_path


def _checked(res: Any) -> Any:
    if getattr(res, "cancelled", False):
        # The typed shape carries no text: the refusal is told from its typed fields.
        path = getattr(res, "path", None)
        reason = getattr(res, "cancel_reason", None) or "refused"
        raise _Refused(f"{_abs(path) if isinstance(path, str) else 'the change'} was not changed: {reason}")
    return res


def _rule(p: Any) -> dict[str, Any]:
    if isinstance(p, dict):
        return {"operations": list(p["operations"]), "paths": list(p["paths"]), "mode": p.get("mode", "allow")}
    return {"operations": list(p.operations), "paths": list(p.paths), "mode": p.mode}


READ_ASSEMBLY_CHARS = 500_000
"""Most characters read() assembles from fsbox's pages for one deepagents read (ten of fsbox's
default max_read_chars); past it the window ends early and says where to continue."""

_DEFAULT_TOOLS = ("read_file", "write_file", "edit_file", "list_directory", "search_files", "find_files", "create_directory", "file_info")
"""fsbox's default tools, which FsboxBackend extends with delete."""

_OPERATION = {"write_file": "write", "edit_file": "edit", "create_directory": "create_directory", "delete": "delete"}


def _new_file_diff(rel: str, content: str) -> str:
    """The unified diff that creates rel with content, for a human shown a write whose parent
    directory does not exist yet (fsbox announces the directory first)."""
    import difflib

    lines = content.splitlines(keepends=True)
    out = "".join(difflib.unified_diff([], lines, fromfile=f"a/{rel}", tofile=f"b/{rel}"))
    return out if out.endswith("\n") or not out else out + "\n\\ No newline at end of file\n"


def _abs(path: str) -> str:
    """The agent path for an fsbox path: '/' plus the path, a leading './' dropped (a leading
    dot of a name, as in '.github', is part of the name)."""
    while path.startswith("./"):
        path = path[2:]
    return "/" if path in ("", ".") else "/" + path


def _info(path: str, kind: str, size: int | None, modified: str | None) -> FileInfo:
    info = cast(FileInfo, {"path": _abs(path), "is_dir": kind == "directory"})
    if size is not None:
        info["size"] = size
    if modified:
        info["modified_at"] = modified
    return info


def _text(content: str) -> FileData:
    return cast(FileData, {"content": content, "encoding": "utf-8"})


def _entries(res: ListDirectoryResult) -> list[Any]:
    return list(res.entries or [])


def _matches(res: SearchFilesResult) -> list[Any]:
    return list(res.matches or [])


def _paths(res: FindFilesResult) -> list[str]:
    return list(res.paths or [])


def _lines(e: FsboxError) -> str:
    m = re.search(r"\((\d+) lines\)", e.message)
    return m.group(1) if m else "?"


def _re2_literal(s: str) -> str:
    return re.sub(r"([\\.+*?()|\[\]{}^$])", r"\\\1", s)


def _kind_error(kind: str) -> Any:
    return {
        "not_found": "file_not_found",
        "not_a_file": "is_directory",
        "permission_denied": "permission_denied",
        "denied": "permission_denied",
        "not_allowed": "permission_denied",
        "protected": "permission_denied",
    }.get(kind, "invalid_path")


def _op_error(message: str) -> Any:
    low = message.lower()
    if "denied" in low or "protected" in low or "not writable" in low:
        return "permission_denied"
    if "directory" in low:
        return "is_directory"
    return "invalid_path"


_ = ReadFileResult  # the typed result read() relies on: content, lines_shown, next_offset

_deepagents_hooks.install(FsboxBackend)
