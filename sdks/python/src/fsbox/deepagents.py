"""The deepagents adapter's first import path, kept for existing code: the adapter lives in
:mod:`fsbox.integrations.deepagents`, and this module re-exports its public names, the same objects.
"""

from __future__ import annotations

from .integrations.deepagents import FsboxBackend

__all__ = ["FsboxBackend"]
