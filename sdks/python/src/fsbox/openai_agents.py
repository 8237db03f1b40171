"""The OpenAI Agents SDK adapter's public import path: the adapter lives in
:mod:`fsbox.integrations.openai_agents`, and this module re-exports its public names, the same objects.
"""

from __future__ import annotations

from .integrations.openai_agents import FsboxEditor

__all__ = ["FsboxEditor"]
