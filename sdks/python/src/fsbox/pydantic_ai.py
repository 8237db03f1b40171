"""The pydantic_ai adapter's first import path, kept for existing code: the adapter lives in
:mod:`fsbox.integrations.pydantic_ai`, and this module re-exports its public names, the same objects.
"""

from __future__ import annotations

from .integrations.pydantic_ai import FileSystem, FsboxToolset

__all__ = ["FileSystem", "FsboxToolset"]
