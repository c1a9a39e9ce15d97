"""The stored record on its way between this tab and the browser's storage: pure functions the
Streamlit glue (ui/state.py, ui/storage.py) and the browser's code (ui/storage.js) share.

- :func:`fingerprint`: what names a stored text in the compare-and-swap (CRC-32 of its UTF-8
  bytes and their count; ui/storage.js has the same function: tests/test_storage.py runs both);
- :func:`patch`: the hunks that turn the text the browser holds into the new one (ui/storage.js
  ``patched`` applies them and checks the fingerprint);
- :func:`unpacked`: a long stored text the browser reported gzipped.

The patch and the gzip are kept because the benchmark showed they matter for a record of weeks
(docs/performance.md, "A learner after weeks: the size of the stored record"): an answer changes a
few hundred bytes of ≈ 300 kB, and a phone's uplink is slow. The merge of two tabs' records is
practice.progress.merge; what a record may hold is practice.record and practice.store.
"""
from __future__ import annotations

import base64
import collections
import itertools
import zlib

PACK_UP_TO = 1_000_000      # the longest stored text the browser sends (gzipped); ui/storage.js's PACK_UP_TO


def fingerprint(text: str | None) -> str:
    """The JavaScript's fingerprint(): CRC-32 of the UTF-8 bytes + their count ("none" for no text)."""
    if text is None:
        return "none"
    try:
        raw = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (a corrupt stored text): TextEncoder makes it U+FFFD
        raw = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode("utf-8")
    return f"{zlib.crc32(raw):08x}:{len(raw)}"


def unpacked(gz: object) -> str:
    """The stored text a report carries as {gz} (``read``, ``conflict``): base64 of its gzipped
    UTF-8 (a ValueError with a Japanese reason for anything else; at most 3 MB unpacked, what
    1,000,000 characters can be)."""
    if not isinstance(gz, str):
        raise ValueError("圧縮された記録が文字列ではありません。")
    limit = 3 * PACK_UP_TO
    try:
        inflate = zlib.decompressobj(wbits=31)   # (gzip)
        raw = inflate.decompress(base64.b64decode(gz, validate=True), limit + 1)
    except (ValueError, zlib.error):
        raise ValueError("圧縮された記録を展開できませんでした。") from None
    if len(raw) > limit or not inflate.eof:
        raise ValueError("圧縮された記録が大きすぎるか、途中で切れています。")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("圧縮された記録が UTF-8 ではありません。") from None


_PIECE_END = "},"     # a stored record's objects end with "}," (attempts, review cards)


def _pieces(text: str) -> list[str]:
    """``text`` cut after each _PIECE_END ("".join gives it back)."""
    *pieces, last = text.split(_PIECE_END)
    return [p + _PIECE_END for p in pieces] + [last]


def _astral(text: str) -> bool:
    """Whether ``text`` has a character JavaScript counts as two (one beyond U+FFFF)."""
    return len(text.encode("utf-16-le", "surrogatepass")) != 2 * len(text)


def patch(old: str | None, new: str) -> list[list] | None:
    """Hunks [start, end, piece] (offsets into ``old``, in order) that turn the stored text ``old``
    into ``new``, for the bridge's ``write`` {patch}; None when ``new`` is better sent whole: no
    old text, a character JavaScript would count differently, or hunks of over half of ``new``.

    An answer changes a few of a record's thousands of objects (one attempt appended, the
    oldest dropped at the limit, one review card), so the texts are compared object by object:
    an object found once in each text, later in both than the last such match, is kept (the
    anchors of a patience diff, in one pass); between two anchors the common ends are kept too
    and the rest is a hunk. ≈ 2 ms for a full record (difflib over a look-behind split: 8.6 ms).
    The browser applies the hunks only to the text they were made for and checks the result's
    fingerprint (else it asks for ``new`` whole)."""
    if old is None or _astral(old) or _astral(new):
        return None
    a, b = _pieces(old), _pieces(new)
    starts = list(itertools.accumulate(map(len, a), initial=0))
    in_a, in_b = collections.Counter(a), collections.Counter(b)
    anchor = {piece: k for k, piece in enumerate(a) if in_a[piece] == 1}
    hunks: list[list] = []

    def replace(i: int, k: int, j0: int, j: int) -> None:
        """a[i:k] becomes b[j0:j], less what both begin and end with."""
        while i < k and j0 < j and a[i] == b[j0]:
            i, j0 = i + 1, j0 + 1
        while i < k and j0 < j and a[k - 1] == b[j - 1]:
            k, j = k - 1, j - 1
        if i < k or j0 < j:
            hunks.append([starts[i], starts[k], "".join(b[j0:j])])

    i = j0 = 0   # the first piece of a, and of b, after the last anchor
    for j, piece in enumerate(b):
        k = anchor.get(piece) if in_b[piece] == 1 else None
        if k is not None and k >= i:
            replace(i, k, j0, j)
            i, j0 = k + 1, j + 1
    replace(i, len(a), j0, len(b))
    return hunks if sum(len(h[2]) for h in hunks) <= len(new) // 2 else None
