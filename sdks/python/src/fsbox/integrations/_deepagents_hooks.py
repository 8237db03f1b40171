"""Where deepagents' own checks meet FsboxBackend: symlink resolution and the agent's interrupts.

deepagents' FilesystemMiddleware checks ``permissions`` (deny, interrupt) against the path as
written and, for its own ``FilesystemBackend``, against the path's symlink-resolved target:
``deepagents.middleware.filesystem._resolve_real_path``. For any other backend it returns the path
unchanged, so a deny rule on ``/src/**`` would not stop ``write_file /link_in`` when ``link_in``
points into ``src/``. :func:`install` routes that resolution to :meth:`FsboxBackend.real_path`
(fsbox's own resolution), in every module that holds the function, so a rule given to the agent
holds through links exactly as it does with deepagents' backend. It also records, per backend, the
interrupt rules deepagents' human-in-the-loop step asks about itself, so fsbox does not ask again.

What this does not protect against: a link swapped between deepagents' check and the write (give
the rules to the backend too: fsbox enforces them on the resolved path at I/O time). If a future
deepagents renames these functions, :func:`install` raises ImportError rather than let the agent's
rules silently stop resolving links.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

_installed = False


def install(backend_type: type) -> None:
    """Patch deepagents (once) so its permission checks resolve an instance of backend_type
    through ``backend.real_path`` and tell it the agent's interrupt rules."""
    global _installed
    if _installed:
        return
    import deepagents.graph as graph
    import deepagents.middleware._fs_interrupt as fs_interrupt
    import deepagents.middleware.filesystem as fs
    from deepagents.backends.utils import validate_path

    missing = [
        f"{m.__name__}.{name}"
        for m, name in (
            (fs, "_resolve_real_path"),
            (fs_interrupt, "_resolve_real_path"),
            (fs_interrupt, "_build_interrupt_on_from_permissions"),
            (graph, "_build_interrupt_on_from_permissions"),
        )
        if not callable(getattr(m, name, None))
    ]
    if missing:
        raise ImportError(
            "fsbox.integrations.deepagents needs deepagents' permission checks to resolve symlinks "
            f"through its backend, but this deepagents has no {', '.join(missing)}; install the deepagents version "
            "docs/frameworks.md names"
        )
    original_resolve: Callable[[Any, str], str] = fs._resolve_real_path
    original_build: Callable[..., Any] = fs_interrupt._build_interrupt_on_from_permissions

    def resolve_real_path(backend: Any, path: str) -> str:
        if isinstance(backend, backend_type):
            backend = cast(Any, backend)
            return validate_path(backend.real_path(path))
        return original_resolve(backend, path)

    def build_interrupt_on(rules: Any, backend: Any = None) -> Any:
        if isinstance(backend, backend_type):
            backend = cast(Any, backend)
            backend.agent_rules(list(rules or []))
        return original_build(rules, backend)

    fs._resolve_real_path = resolve_real_path
    setattr(fs_interrupt, "_resolve_real_path", resolve_real_path)
    setattr(fs_interrupt, "_build_interrupt_on_from_permissions", build_interrupt_on)
    setattr(graph, "_build_interrupt_on_from_permissions", build_interrupt_on)
    _installed = True
