"""Which directory the pydantic-ai drop-in serves: the run's workspace, as the harness decides.

``pydantic_ai_harness.FileSystem`` acts on ``ctx.workspace``: its root is the workspace's working
directory, or ``root_dir`` resolved against it. fsbox serves a directory on this machine from its
own process, so it can stand in for exactly one kind of workspace: ``LocalWorkspace`` (optionally
read-only). Every other workspace, a remote sandbox, a container, a policy wrapper fsbox cannot
apply, is refused with an error naming it, never silently replaced by another directory (the
process's working directory least of all): writes meant for a sandbox must not land on the host.

What this does not protect against: a ``LocalWorkspace`` isolates nothing, so the root is only as
narrow as the directory it names; fsbox's containment (resolution at I/O time, Landlock) then holds
inside it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic_ai.exceptions import UserError
from pydantic_ai.workspaces import LocalWorkspaceBackend, ReadOnlyWorkspace, Workspace, WrapperWorkspace

__all__ = ["WorkspaceRoot", "workspace_root"]


@dataclass(frozen=True)
class WorkspaceRoot:
    """The fsbox root (absolute host path), its cwd (root-relative, None for the root itself) and
    whether the workspace is read-only."""

    root: str
    cwd: str | None
    read_only: bool


def _contains(outer: str, inner: str) -> bool:
    return inner == outer or inner.startswith(outer.rstrip("/") + "/")


def _refuse(layer: object) -> UserError:
    return UserError(
        f"fsbox's FileSystem serves files on this machine, but this run's workspace is a "
        f"{type(layer).__name__}, whose files fsbox cannot reach or whose policy it cannot apply. "
        "Attach `LocalWorkspace(dir)` to serve dir with fsbox, or use pydantic_ai_harness.FileSystem "
        "for this workspace."
    )


async def workspace_root(
    workspace: Workspace, root_dir: str | os.PathLike[str] | None, messages: Sequence[Any] = ()
) -> WorkspaceRoot:
    """The directory to serve for a run with this workspace and the capability's root_dir.

    Raises UserError (the run fails at its first file operation) when neither a workspace nor a
    root_dir says where, when the workspace is not a local one, and when root_dir does not contain
    the workspace's working directory (the harness's rule).
    """
    if not workspace.attached:
        if root_dir is None:
            raise UserError(
                "fsbox's `FileSystem` needs a workspace or a root_dir, but this run has neither. Add "
                "`LocalWorkspace('.')` (`from pydantic_ai.capabilities import LocalWorkspace`) to the agent's "
                "capabilities, pass `workspace=` to the run, or give `FileSystem(root_dir=...)`."
            )
        # No workspace: an explicit root_dir is a directory on this machine, as fsbox always served.
        return WorkspaceRoot(os.path.realpath(os.fspath(root_dir)), None, False)
    layer: Workspace = workspace
    while isinstance(layer, WrapperWorkspace):
        if not isinstance(layer, ReadOnlyWorkspace):
            raise _refuse(layer)
        layer = layer.wrapped
    if type(layer) is not Workspace or not isinstance(layer.backend, LocalWorkspaceBackend):
        raise _refuse(layer.backend if type(layer) is Workspace else layer)
    wd = os.path.realpath(await workspace.working_dir())
    if root_dir is None:
        root = wd
    else:
        spelled = os.fspath(root_dir)
        if spelled.startswith("~"):
            raise UserError(f"Workspace paths do not expand `~`: {spelled}. Use an absolute path or one relative to the working directory.")
        root = os.path.realpath(os.path.join(wd, spelled))
        if not _contains(root, wd):
            raise UserError(
                f"The working directory {wd!r} is outside root_dir {spelled!r}. To work in {spelled!r}, attach "
                f"the workspace there, such as `LocalWorkspace({spelled!r})`; otherwise set `root_dir` to a "
                "directory that contains the working directory."
            )
    cwd = os.path.relpath(wd, root)
    return WorkspaceRoot(root, None if cwd == "." else cwd, workspace.read_only)
