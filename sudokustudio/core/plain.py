"""Plain-data encoding of batch results: JSON text with typed arrays, never code.

Batch results cross process and disk boundaries (the run store, Dask).  They
are made of plain values only, and this module turns them into bytes and
back without running anything from the data:

- ``None``, ``bool``, ``int``, ``float`` (NaN and infinities too), ``str``,
  lists, tuples, dicts (keys: any plain scalar or tuple),
- numpy arrays and scalars of boolean, integer and floating dtypes,
- dataclasses registered with ``@plain_dataclass("StableName")``: they are
  stored by that name, not by module path, so moving or renaming the
  Python class does not break stored runs.

``decode`` checks everything it builds (tags, dtypes, sizes, dataclass
fields and their declared types) and raises ``PlainError`` naming the place
in the data that is wrong.
"""
from __future__ import annotations

import base64
import dataclasses
import json
import math
import typing
from typing import Any

import numpy as np

FORMAT = 1
_ARRAY_KINDS = "biuf"             # bool, signed, unsigned, float: nothing that holds objects
_MAX_ARRAY_BYTES = 1 << 31
_TYPES: dict[str, type] = {}
_NAMES: dict[type, str] = {}


class PlainError(ValueError):
    """Data that is not a valid plain encoding; the message says where and why."""


def plain_dataclass(name: str | None = None):
    """Register a dataclass under a stable ``name`` so results holding it can be stored."""

    def register(cls):
        if not dataclasses.is_dataclass(cls):
            raise TypeError(f"{cls.__name__} is not a dataclass")
        key = name or cls.__name__
        old = _TYPES.get(key)
        if old is not None and (old.__module__, old.__qualname__) != (cls.__module__, cls.__qualname__):
            raise TypeError(f"plain type name {key!r} is taken by {old.__module__}.{old.__qualname__}")
        _TYPES[key] = cls
        _NAMES[cls] = key
        return cls

    return register


def registered_types() -> dict[str, type]:
    return dict(_TYPES)


# ------------------------------------------------------------------ encode
def encode(obj: Any) -> bytes:
    """Bytes of a plain value (see the module docstring); TypeError on anything else."""
    doc = {"plain": FORMAT, "data": _enc(obj, "result")}
    return json.dumps(doc, separators=(",", ":"), allow_nan=True).encode("utf-8")


def _enc(x: Any, where: str):
    if x is None or isinstance(x, (bool, str)):
        return x
    if isinstance(x, int):
        return x
    if isinstance(x, float):
        return x
    if isinstance(x, np.ndarray):
        if x.dtype.kind not in _ARRAY_KINDS:
            raise TypeError(f"{where}: arrays of dtype {x.dtype} cannot be stored as plain data")
        a = np.ascontiguousarray(x)
        return {"$a": [a.dtype.str, list(a.shape), base64.b64encode(a.tobytes()).decode("ascii")]}
    if isinstance(x, np.generic):
        if x.dtype.kind not in _ARRAY_KINDS:
            raise TypeError(f"{where}: numpy scalars of dtype {x.dtype} cannot be stored as plain data")
        return {"$s": [x.dtype.str, x.item()]}
    if isinstance(x, tuple):
        return {"$t": [_enc(v, f"{where}[{i}]") for i, v in enumerate(x)]}
    if isinstance(x, list):
        return [_enc(v, f"{where}[{i}]") for i, v in enumerate(x)]
    if isinstance(x, dict):
        if all(isinstance(k, str) and not k.startswith("$") for k in x):
            return {k: _enc(v, f"{where}[{k!r}]") for k, v in x.items()}
        return {"$d": [[_enc(k, f"{where} key"), _enc(v, f"{where}[{k!r}]")] for k, v in x.items()]}
    name = _NAMES.get(type(x))
    if name is not None:
        fields = {f.name: _enc(getattr(x, f.name), f"{where}.{f.name}") for f in dataclasses.fields(x)}
        return {"$o": [name, fields]}
    raise TypeError(f"{where}: {type(x).__module__}.{type(x).__qualname__} is not plain data "
                    f"(register dataclasses with @plain_dataclass)")


# ------------------------------------------------------------------ decode
def decode(blob: bytes) -> Any:
    """The value ``encode`` made; PlainError if the bytes are not such a value."""
    try:
        doc = json.loads(bytes(blob).decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise PlainError(f"not plain data ({type(e).__name__}: {e})") from None
    if not isinstance(doc, dict) or doc.get("plain") != FORMAT or "data" not in doc or len(doc) != 2:
        raise PlainError("not plain data (no plain header)")
    return _dec(doc["data"], "result")


def _dec(x: Any, where: str):
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    if isinstance(x, list):
        return [_dec(v, f"{where}[{i}]") for i, v in enumerate(x)]
    if not isinstance(x, dict):
        raise PlainError(f"{where}: unexpected {type(x).__name__}")
    tags = [k for k in x if k.startswith("$")]
    if not tags:
        return {k: _dec(v, f"{where}[{k!r}]") for k, v in x.items()}
    if len(x) != 1:
        raise PlainError(f"{where}: a tagged value must have one key, got {sorted(x)}")
    tag, body = next(iter(x.items()))
    if tag == "$a":
        return _dec_array(body, where)
    if tag == "$s":
        if not (isinstance(body, list) and len(body) == 2 and isinstance(body[0], str)):
            raise PlainError(f"{where}: malformed numpy scalar")
        dt = _dtype(body[0], where)
        if not isinstance(body[1], (bool, int, float)):
            raise PlainError(f"{where}: numpy scalar value must be a number")
        return dt.type(body[1])
    if tag == "$t":
        if not isinstance(body, list):
            raise PlainError(f"{where}: malformed tuple")
        return tuple(_dec(v, f"{where}[{i}]") for i, v in enumerate(body))
    if tag == "$d":
        if not isinstance(body, list) or not all(isinstance(p, list) and len(p) == 2 for p in body):
            raise PlainError(f"{where}: malformed mapping")
        out = {}
        for k, v in body:
            key = _dec(k, f"{where} key")
            try:
                hash(key)
            except TypeError:
                raise PlainError(f"{where}: unhashable key") from None
            out[key] = _dec(v, f"{where}[{key!r}]")
        return out
    if tag == "$o":
        return _dec_object(body, where)
    raise PlainError(f"{where}: unknown tag {tag!r}")


def _dtype(text: str, where: str) -> np.dtype:
    try:
        dt = np.dtype(text)
    except TypeError:
        raise PlainError(f"{where}: unknown dtype {text!r}") from None
    if dt.kind not in _ARRAY_KINDS or dt.fields is not None or dt.subdtype is not None:
        raise PlainError(f"{where}: dtype {text!r} is not allowed in plain data")
    return dt


def _dec_array(body, where: str) -> np.ndarray:
    if not (isinstance(body, list) and len(body) == 3 and isinstance(body[0], str)
            and isinstance(body[1], list) and isinstance(body[2], str)):
        raise PlainError(f"{where}: malformed array")
    dt = _dtype(body[0], where)
    shape = body[1]
    if not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape) or len(shape) > 8:
        raise PlainError(f"{where}: bad array shape {shape}")
    count = math.prod(shape)
    if count * dt.itemsize > _MAX_ARRAY_BYTES:
        raise PlainError(f"{where}: array of {count} items is too large")
    try:
        raw = base64.b64decode(body[2].encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise PlainError(f"{where}: array data is not base64") from None
    if len(raw) != count * dt.itemsize:
        raise PlainError(f"{where}: array data has {len(raw)} bytes, shape {shape} needs {count * dt.itemsize}")
    return np.frombuffer(raw, dtype=dt).reshape(shape).copy()


def _dec_object(body, where: str):
    if not (isinstance(body, list) and len(body) == 2 and isinstance(body[0], str) and isinstance(body[1], dict)):
        raise PlainError(f"{where}: malformed object")
    name, fields = body
    cls = _TYPES.get(name)
    if cls is None:
        raise PlainError(f"{where}: unknown result type {name!r}")
    known = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(fields) - set(known))
    if unknown:
        raise PlainError(f"{where}: {name} has no field(s) {unknown}")
    hints = typing.get_type_hints(cls)
    values = {}
    for fname, f in known.items():
        if fname not in fields:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise PlainError(f"{where}: {name} lacks field {fname!r}")
            continue
        value = _dec(fields[fname], f"{where}.{fname}")
        _check_field(value, hints.get(fname), f"{where}.{fname}")
        values[fname] = value
    try:
        obj = cls(**values)
    except (TypeError, ValueError) as e:
        raise PlainError(f"{where}: cannot build {name} ({e})") from None
    check = getattr(obj, "check_plain", None)
    if check is not None:
        try:
            check()
        except (TypeError, ValueError) as e:
            raise PlainError(f"{where}: {name} is inconsistent ({e})") from None
    return obj


_SIMPLE = {int: (int, np.integer), float: (int, float, np.integer, np.floating), str: (str,), bool: (bool, np.bool_),
           dict: (dict,), list: (list,), tuple: (tuple,), np.ndarray: (np.ndarray,)}


def _check_field(value, hint, where: str) -> None:
    """The declared type of a dataclass field, where it is a simple one."""
    if hint is None or hint is Any or hint is object:
        return
    allowed = _SIMPLE.get(hint)
    if allowed is None:
        origin = typing.get_origin(hint)
        if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
            for h in typing.get_args(hint):
                if h is type(None) and value is None:
                    return
                try:
                    _check_field(value, h, where)
                    return
                except PlainError:
                    continue
            raise PlainError(f"{where}: {type(value).__name__} does not fit {hint}")
        allowed = _SIMPLE.get(origin)
        if allowed is None:
            return
    if hint is int and isinstance(value, (bool, np.bool_)):
        raise PlainError(f"{where}: expected an integer, got a boolean")
    if not isinstance(value, allowed):
        raise PlainError(f"{where}: expected {getattr(hint, '__name__', hint)}, got {type(value).__name__}")
