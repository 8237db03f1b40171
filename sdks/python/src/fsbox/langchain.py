"""The langchain adapter's first import path, kept for existing code: the adapter lives in
:mod:`fsbox.integrations.langchain`, and this module re-exports its public names, the same objects.
"""

from __future__ import annotations

from .integrations.langchain import FsboxToolkit, Review

__all__ = ["FsboxToolkit", "Review"]
