"""A small process-wide memo for read-only display objects (Arrow tables, editor frames).

st.cache_resource hashes its arguments with Streamlit's general hasher: ~170 µs per call
(python -m bench), more than a small table costs to show. The inputs here are small NumPy
arrays, strings, numbers, the engine's frozen records and tuples of them, so a plain dict key
is enough: an array becomes (dtype, shape, bytes), a dataclass its type and field values.
Like st.cache_resource, one value is shared by every session, so only values that nobody
mutates may be kept here (strings and chart specs nobody edits; st.data_editor copies its input frame).
"""
from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from typing import Callable, TypeVar

import numpy as np

__all__ = ["Memo", "freeze"]

T = TypeVar("T")
_VALUES = (str, int, float, bool, bytes, type(None), np.generic)


def freeze(obj):
    """A hashable key that equals another key exactly when the values are equal. Arrays by
    content, lists/tuples/dicts/dataclasses element by element; TypeError for anything else
    (an object hashed by identity could be a stale match once its id is reused)."""
    if isinstance(obj, _VALUES):
        return (type(obj).__name__, obj)
    if isinstance(obj, np.ndarray):
        return ("nd", obj.dtype.str, obj.shape, obj.tobytes())
    if isinstance(obj, (list, tuple, range)):
        return (type(obj).__name__, tuple(freeze(x) for x in obj))
    if isinstance(obj, dict):
        return ("dict", tuple(sorted((freeze(k), freeze(v)) for k, v in obj.items())))
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return (type(obj).__qualname__,
                tuple(freeze(getattr(obj, f.name)) for f in dataclasses.fields(obj)))
    raise TypeError(f"no value key for {type(obj).__name__}")


class Memo:
    """Least-recently-used store of at most ``maxsize`` values and, if ``weigh`` is given, at most
    ``max_bytes`` of them by that measure (a learner trying many inputs cannot grow memory without
    end); safe across session threads."""

    def __init__(self, maxsize: int, *, max_bytes: int | None = None,
                 weigh: Callable[[object], int] | None = None) -> None:
        self.maxsize, self.max_bytes, self._weigh = maxsize, max_bytes, weigh
        self._store: OrderedDict = OrderedDict()   # key → (value, bytes)
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key, make: Callable[[], T]) -> T:
        """The value kept for ``key`` (see freeze), else ``make()`` — kept for next time."""
        try:
            frozen = freeze(key)
        except TypeError:
            return make()
        with self._lock:
            if frozen in self._store:
                self._store.move_to_end(frozen)
                return self._store[frozen][0]
        value = make()
        size = self._weigh(value) if self._weigh is not None else 0
        with self._lock:
            if frozen in self._store:  # another session made it meanwhile
                self._bytes -= self._store.pop(frozen)[1]
            self._store[frozen] = (value, size)
            self._bytes += size
            while len(self._store) > self.maxsize or (
                    self.max_bytes is not None and self._bytes > self.max_bytes and len(self._store) > 1):
                self._bytes -= self._store.popitem(last=False)[1][1]
        return value

    def clear(self) -> None:
        with self._lock:
            self._store.clear()
            self._bytes = 0

    def values(self) -> list:
        with self._lock:
            return [v for v, _ in self._store.values()]

    @property
    def nbytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self._store)
