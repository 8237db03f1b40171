"""fsbox: sandboxed file tools for agents, served by the fsbox binary over JSON-RPC on stdio.

::

    import fsbox

    with fsbox.Client("workspace") as fs:
        fs.write_file(path="notes.txt", content="hello\\n")
        print(fs.read_file(path="notes.txt").text)

Client (blocking, thread-safe) and AsyncClient (asyncio) have one method per tool, with keyword
arguments named as on the wire; results are dataclasses whose ``text`` is what the model should
see. Failures raise ToolRetryError (the model can fix the call) or ToolFatalError (stop the run),
both FsboxError with ``kind``, ``path`` and ``message``. The wire types, events and tables are
generated from the protocol's schema bundle (see _types_gen.py).
"""

from typing import TYPE_CHECKING, Any

from . import errors as _errors
from ._transport import VERSION as __version__
from ._types_gen import *  # noqa: F403 (the generated wire types, listed in its __all__)
from ._types_gen import __all__ as _types_all
from .client import (
    AsyncClient,
    AuditLog,
    ChangeRequest,
    Client,
    OnChangeRequest,
    OnEvent,
    RawResult,
    ResultShape,
)
from .errors import (
    BinaryNotFoundError,
    ConnectionLostError,
    FsboxError,
    ProtocolError,
    ResultShapeError,
    SchemaMismatchError,
    ToolFatalError,
    ToolRetryError,
)

if TYPE_CHECKING:
    from .errors import BinaryNotFound, ConnectionLost, SchemaMismatch, ToolFatal, ToolRetry

__all__ = [  # noqa: PLE0604
    *_types_all,
    "AsyncClient",
    "AuditLog",
    "BinaryNotFoundError",
    "ChangeRequest",
    "Client",
    "ConnectionLostError",
    "FsboxError",
    "OnChangeRequest",
    "OnEvent",
    "ProtocolError",
    "RawResult",
    "ResultShape",
    "ResultShapeError",
    "SchemaMismatchError",
    "ToolFatalError",
    "ToolRetryError",
    "__version__",
]


def __getattr__(name: str) -> Any:
    # The error names from before the naming scheme (errors.DEPRECATED_NAMES): the same classes,
    # with a DeprecationWarning.
    if name in _errors.DEPRECATED_NAMES:
        return _errors.deprecated_name(__name__, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
