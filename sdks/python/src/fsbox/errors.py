"""The errors the fsbox SDK raises.

Every one is an FsboxError with ``kind``, ``path``, ``message`` and ``code``. A tool failure is a
ToolRetryError (the model can fix the call: hand ``message`` back to it) or a ToolFatalError (the
run should stop). Compare ``kind``, never ``message``: messages are written for a model and may
change.

Names follow one scheme across the SDKs: ``<What>Error`` in Python and TypeScript, ``Err<What>``
(or ``*Error``) in Go; the table is in docs/errors.md. The names from before the scheme
(``ToolRetry``, ``ToolFatal``, ``ConnectionLost``, ``SchemaMismatch``, ``BinaryNotFound``) still
work, as the same classes, and warn with a DeprecationWarning when used.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ._types_gen import ERROR_CODES, ERROR_KINDS


class FsboxError(Exception):
    """Base of every error the SDK raises.

    Attributes:
        message: What went wrong, written for a model.
        kind: The error kind (``stale_hash``, ``outside_root``, ...), or for failures of the SDK
            itself one of ``connection_lost``, ``protocol_error``, ``binary_not_found``.
        path: The root-relative path the failure is about, when there is one.
        code: The JSON-RPC error code, when the server sent one.
        retry: True when the model can fix the call and try again.
        data: The error's ``data`` object as the server sent it.
    """

    retry: bool = False

    def __init__(
        self,
        message: str,
        *,
        kind: str,
        path: str | None = None,
        code: int | None = None,
        data: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.path = path
        self.code = code
        self.data: dict[str, Any] = dict(data or {})

    @property
    def counts_as_retry(self) -> bool:
        """Whether the failure should spend one of the model's retries.

        False for a lookup that found nothing (``not_found``): an answer, not a mistake. A server
        that does not say counts every retry.
        """
        value = self.data.get("counts_as_retry")
        return value if isinstance(value, bool) else self.retry

    def __repr__(self) -> str:
        name = type(self).__name__
        return f"{name}(kind={self.kind!r}, path={self.path!r}, message={self.message!r})"


class ToolRetryError(FsboxError):
    """The call failed in a way the model can fix (JSON-RPC -32001, or -32602 invalid params)."""

    retry = True


class ToolFatalError(FsboxError):
    """The call failed and the run should stop (JSON-RPC -32002, or any other failure)."""


class ConnectionLostError(ToolFatalError):
    """The server exited or the client was closed; no call on this client can succeed any more."""

    def __init__(self, message: str) -> None:
        super().__init__(message, kind="connection_lost")


class ProtocolError(ToolFatalError):
    """The server sent something the protocol does not allow."""

    def __init__(self, message: str) -> None:
        super().__init__(message, kind="protocol_error")


class SchemaMismatchError(ProtocolError):
    """The server's schema_hash is not the one this SDK was generated from: another release."""


class ResultShapeError(RuntimeError):
    """A typed tool method was called on a client started with ``result_shape="text"``.

    Its results carry only their text, so there is nothing to fill the typed result with; the call
    is not sent. Use ``call(name, arguments)``, whose RawResult has the ``text``. Not an
    FsboxError: it is a mistake in the program, never something to hand to the model.
    """


class BinaryNotFoundError(FsboxError):
    """No fsbox binary was found: not given, not in FSBOX_BIN, not on PATH."""

    def __init__(self, message: str) -> None:
        super().__init__(message, kind="binary_not_found")


# Kinds for errors that carry no data.kind, by JSON-RPC code. -32602 is the tool arguments' code.
_CODE_KINDS = {code: name for name, code in ERROR_CODES.items()}
_CODE_KINDS[ERROR_CODES.get("invalid_params", -32602)] = "invalid_arguments"
_RETRY_CODES = {ERROR_CODES.get("retry", -32001), ERROR_CODES.get("invalid_params", -32602)}


def error_from_wire(error: Any) -> FsboxError:
    """The SDK error for a JSON-RPC error object from the server."""
    if not isinstance(error, dict):
        return ProtocolError(f"malformed error response: {error!r}")
    code = error.get("code")
    code = code if isinstance(code, int) and not isinstance(code, bool) else None
    message = error.get("message")
    message = message if isinstance(message, str) else "(no message)"
    data = error.get("data")
    data = data if isinstance(data, dict) else {}

    kind = data.get("kind")
    if not isinstance(kind, str):
        kind = _CODE_KINDS.get(code, "internal") if code is not None else "internal"
    retry = data.get("retry")
    if not isinstance(retry, bool):
        info = ERROR_KINDS.get(kind)
        retry = info.retry if info is not None else code in _RETRY_CODES
    path = data.get("path")
    path = path if isinstance(path, str) else None

    cls = ToolRetryError if retry else ToolFatalError
    return cls(message, kind=kind, path=path, code=code, data=data)


# The names from before the scheme, kept so code written against them works: the same classes,
# reached through __getattr__ so that using one warns. Type checkers see plain aliases.
DEPRECATED_NAMES = {
    "ToolRetry": "ToolRetryError",
    "ToolFatal": "ToolFatalError",
    "ConnectionLost": "ConnectionLostError",
    "SchemaMismatch": "SchemaMismatchError",
    "BinaryNotFound": "BinaryNotFoundError",
}

if TYPE_CHECKING:
    ToolRetry = ToolRetryError
    ToolFatal = ToolFatalError
    ConnectionLost = ConnectionLostError
    SchemaMismatch = SchemaMismatchError
    BinaryNotFound = BinaryNotFoundError


def deprecated_name(module: str, name: str) -> type[Exception]:
    """The class an old name stands for, after a DeprecationWarning naming its new name."""
    new = DEPRECATED_NAMES[name]
    message = f"{module}.{name} is deprecated; use {module}.{new}, the same class"
    warnings.warn(message, DeprecationWarning, stacklevel=3)
    cls: type[Exception] = globals()[new]
    return cls


def __getattr__(name: str) -> Any:
    if name in DEPRECATED_NAMES:
        return deprecated_name(__name__, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
