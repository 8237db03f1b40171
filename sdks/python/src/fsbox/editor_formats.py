"""The provider edit formats adapter's public import path: the adapter lives in
:mod:`fsbox.integrations.editor_formats`, and this module re-exports its public names, the same objects.
"""

from __future__ import annotations

from .integrations.editor_formats import EDIT_FORMATS, EditorToolkit, editor_config, editor_toolset

__all__ = ["EDIT_FORMATS", "EditorToolkit", "editor_config", "editor_toolset"]
