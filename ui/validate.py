"""Parsing what a learner typed into a matrix cell. Pure Python (no streamlit), tested directly.

Accepts what a Japanese keyboard produces: full-width digits, the minus sign "−", "，" as a
thousands separator is NOT accepted (ambiguous); every problem gets a Japanese message that
says which cell.
"""
from __future__ import annotations

import math
import unicodedata

import numpy as np

from tutor import numfmt

MAX_ABS = 1e6  # larger values are refused: exp() of such scores says nothing a learner can read

_MINUS = {"\u2212": "-", "\u2013": "-", "\u2014": "-", "\u30fc": "-", "\uff0d": "-"}


class CellError(ValueError):
    pass


def parse_cell(raw, where: str) -> float:
    """One cell → float, or CellError with a Japanese message naming the cell."""
    if raw is None or (isinstance(raw, float) and math.isnan(raw)):
        raise CellError(f"{where} が空です。数値を入れてください。")
    if isinstance(raw, (int, float, np.integer, np.floating)) and not isinstance(raw, bool):
        value = float(raw)
    else:
        text = unicodedata.normalize("NFKC", str(raw)).strip()
        for k, v in _MINUS.items():
            text = text.replace(k, v)
        if not text:
            raise CellError(f"{where} が空です。数値を入れてください。")
        if text.lower() in {"nan", "inf", "-inf", "+inf", "infinity", "-infinity"}:
            raise CellError(f"{where} の「{text}」は使えません。有限の数値を入れてください。")
        try:
            value = float(text)
        except ValueError:
            raise CellError(f"{where} の「{text[:20]}」は数値として読めません。") from None
    if not math.isfinite(value):
        raise CellError(f"{where} に NaN や無限大は使えません。有限の数値を入れてください。")
    if abs(value) > MAX_ABS:
        raise CellError(f"{where} の値 {value:.3g} は大きすぎます（絶対値 {MAX_ABS:.0e} まで）。")
    return 0.0 if value == 0 else value  # -0.0 → 0.0 so that "−0" prints as 0


def parse_matrix(rows, row_labels, col_labels) -> np.ndarray:
    """Table of raw cells (list of rows) → float64 (n_rows, n_cols); CellError on the first bad cell."""
    if len(rows) != len(row_labels) or any(len(r) != len(col_labels) for r in rows):
        raise CellError(f"表の形が {len(row_labels)}×{len(col_labels)} になっていません。")
    out = np.empty((len(row_labels), len(col_labels)), dtype=np.float64)
    for i, row in enumerate(rows):
        for j, raw in enumerate(row):
            out[i, j] = parse_cell(raw, f"{row_labels[i]} 行・{col_labels[j]} 列のセル")
    return out


# How the app prints a number: tutor.numfmt, the one format shared with the questions
# (四捨五入 on the decimal value: 0.0625 → 0.063). Kept here under the names the ui uses.
def format_number(x: float, digits: int = 3) -> str:
    """Fixed decimals (tutor.numfmt.fixed): −∞ for masked scores, no "-0.000", 0.0625 → 0.063."""
    return numfmt.fixed(x, digits)


def format_tiny(x: float, digits: int = 5, *, below: float = 1e-3, tex: bool = False) -> str:
    """tutor.numfmt.tiny: format_number, except that a value with 0 < |x| < ``below`` is written
    4.5×10⁻⁵ (LaTeX ``4.5\\times 10^{-5}`` with ``tex``): never the programmer's "4.5e-05", and
    never "0.00000" for a number that is not zero. An exact 0 prints as "0"."""
    return numfmt.tiny(x, digits, below=below, tex=tex)
