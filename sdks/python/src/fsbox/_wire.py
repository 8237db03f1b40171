"""Converters from decoded JSON to wire dataclasses, which the generated from_wire methods compose.

Each converter takes a decoded JSON value and returns it as its Python type, or raises WireError
naming what it wanted and what it found; req and opt prefix the field name, array the index, so
the message ends up as a path: ``entries: [2]: size: want an integer, have a string``.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

_T = TypeVar("_T")


class WireError(ValueError):
    """A decoded JSON value does not have the shape the schema promises."""


def what(v: Any) -> str:
    """The JSON type of v, for messages."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__


def string(v: Any) -> str:
    if isinstance(v, str):
        return v
    raise WireError(f"want a string, have {what(v)}")


def literal(v: Any) -> Any:
    """An enum value: any string is kept, so a newer server's value reaches the caller as is."""
    return string(v)


def integer(v: Any) -> int:
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    raise WireError(f"want an integer, have {what(v)}")


def number(v: Any) -> float:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return v
    raise WireError(f"want a number, have {what(v)}")


def boolean(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    raise WireError(f"want a boolean, have {what(v)}")


def any_value(v: Any) -> Any:
    return v


def obj(v: Any) -> dict[str, Any]:
    if isinstance(v, dict):
        return v
    raise WireError(f"want an object, have {what(v)}")


def const(value: str) -> Callable[[Any], Any]:
    """A converter accepting exactly value (the kind of an event)."""

    def convert(v: Any) -> Any:
        if v != value:
            raise WireError(f"want {value!r}, have {v!r}")
        return v

    return convert


def array(elem: Callable[[Any], _T]) -> Callable[[Any], list[_T]]:
    def convert(v: Any) -> list[_T]:
        if not isinstance(v, list):
            raise WireError(f"want an array, have {what(v)}")
        out: list[_T] = []
        for i, x in enumerate(v):
            try:
                out.append(elem(x))
            except WireError as e:
                raise WireError(f"[{i}]: {e}") from None
        return out

    return convert


def objects(from_wire: Callable[[Mapping[str, Any]], _T]) -> Callable[[Any], list[_T]]:
    """array(nested(from_wire)), faster: a list of objects is converted in one comprehension, and
    only a value that fails goes through array(nested(...)) again, for the WireError naming the
    index. Both accept exactly the same values."""

    def convert(v: Any) -> list[_T]:
        if v.__class__ is list:
            try:
                return [from_wire(x) for x in v]
            except (WireError, AttributeError):
                pass  # not all objects (x.get failed), or a bad field: the checked path says which
        return array(nested(from_wire))(v)

    return convert


def mapping(elem: Callable[[Any], _T]) -> Callable[[Any], dict[str, _T]]:
    def convert(v: Any) -> dict[str, _T]:
        out: dict[str, _T] = {}
        for k, x in obj(v).items():
            try:
                out[k] = elem(x)
            except WireError as e:
                raise WireError(f"{k}: {e}") from None
        return out

    return convert


def nested(from_wire: Callable[[Mapping[str, Any]], _T]) -> Callable[[Any], _T]:
    """A converter for an object of a wire dataclass, given its from_wire."""

    def convert(v: Any) -> _T:
        return from_wire(obj(v))

    return convert


def req(data: Mapping[str, Any], key: str, convert: Callable[[Any], _T]) -> _T:
    """The required field key of data, converted."""
    if key not in data:
        raise WireError(f"{key}: missing")
    try:
        return convert(data[key])
    except WireError as e:
        raise WireError(f"{key}: {e}") from None


def opt(data: Mapping[str, Any], key: str, convert: Callable[[Any], _T]) -> _T | None:
    """The optional field key of data, converted; None when absent or null."""
    v = data.get(key)
    if v is None:
        return None
    try:
        return convert(v)
    except WireError as e:
        raise WireError(f"{key}: {e}") from None


def base64_bytes(v: Any) -> bytes:
    """A base64 string on the wire, as the bytes it stands for."""
    if not isinstance(v, str):
        raise WireError(f"want a base64 string, have {what(v)}")
    try:
        return base64.b64decode(v, validate=True)
    except (binascii.Error, ValueError) as e:
        raise WireError(f"invalid base64: {e}") from None


def to_base64(v: bytes) -> str:
    """bytes as the base64 string the wire carries."""
    return base64.b64encode(v).decode("ascii")
