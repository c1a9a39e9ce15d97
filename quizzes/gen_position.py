"""⑦-1 位置エンコーディング: the angle and value of one PE component, the first layer's input
X + PE, and the structure of the sin/cos pairs.

Inputs: d_model ∈ {4, 8} for the angle, and for the value and the pair structure only the
(d_model, column) pairs whose 10000^(2i/d_model) is a power of 10 (VALUE_COLUMNS,
PAIR_COLUMNS), small positions and integer embeddings. Answers and distractors: tutor.position.pe_breakdown, tutor.position.pe_angle_rates and the
named mistakes next to them in tutor.position (pe_angle_mistake, pe_value_mistake,
pe_input_mistakes). Texts that depend only on a drawn position (the sin/cos hint, the PE of
pos = 0 and 1) are built once at import.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

import tutor

from .calc import BEST, BLANK, blank, calc_generator, draft, mc, num, pick, two_slips, vec
from .core import Draft


def sci(x: float) -> str:
    """A small positive number readably: 0.03, 0.0095, or 3×10⁻⁵ (math mode) when tiny."""
    x = float(x)
    if x == 0 or abs(x) >= 1e-4:
        return num(x, 6) if abs(x) >= 1e-3 or x == 0 else f"{x:.6f}".rstrip("0")
    mant, exp = f"{x:.2e}".split("e")
    mant = mant.rstrip("0").rstrip(".")
    return f"${mant} \\times 10^{{{int(exp)}}}$"


def dm(d: int) -> str:
    return f"$d_{{\\text{{model}}}} = {d}$"


@lru_cache(maxsize=256)  # bounded: the drawn (pos, col, d) are < 200 triples; PEEntry is frozen
def _entry(pos: int, col: int, d: int):
    return tutor.position.pe_breakdown(pos, d)[col]


@lru_cache(maxsize=16)   # bounded: the d_model values of PAIR_COLUMNS
def _rates(d: int) -> tuple[float, ...]:
    return tuple(tutor.position.pe_angle_rates(d).tolist())


# ---------------------------------------------------------------------------
def _params_angle(rng: np.random.Generator) -> dict:
    d = pick(rng, (4, 8))
    return {"d": d, "pos": int(rng.integers(1, 10)), "col": int(rng.integers(2, d))}


@calc_generator("position.pe_angle", "position", _params_angle)
def _pe_angle(p: dict) -> Draft:
    """The angle pos / 10000^(2i/d_model) used by one column."""
    d, pos, col = p["d"], p["pos"], p["col"]
    e = _entry(pos, col, d)
    right = tutor.position.pe_angle_mistake(pos, col, d)
    stem = (f"{dm(d)} の正弦波の位置エンコーディング $\\mathrm{{PE}}(pos, 2i) = \\sin(pos/10000^{{2i/d_{{\\text{{model}}}}}})$、"
            f"$\\mathrm{{PE}}(pos, 2i+1) = \\cos(pos/10000^{{2i/d_{{\\text{{model}}}}}})$ がある。"
            f"位置 $pos = {pos}$ の第 {col} 列（列は 0 から数える）の sin または cos に入る角度（ラジアン）{BEST}")
    wrong = (
        (sci(tutor.position.pe_angle_mistake(pos, col, d, "column_as_i")),
         mc("列番号と i の取り違え", f"列番号 {col} をそのまま $i$ として指数を $2 \\cdot {col}/{d}$ にした。"
            f"$i$ は sin と cos の組の番号で、列 $2i$ と $2i+1$ が同じ $i$ を使う。")),
        (sci(tutor.position.pe_angle_mistake(pos, col, d, "pos_i_swapped")),
         mc("pos と i の取り違え", f"位置 {pos} と組の番号 $i = {e.i}$ を入れ替えて計算した。")),
        (sci(tutor.position.pe_angle_mistake(pos, col, d, "no_d_model")),
         mc("d_model で割り忘れ", f"指数 $2i/d_{{\\text{{model}}}}$ の $d_{{\\text{{model}}}}$ を落とし、$10000^{{2i}}$ で割ってしまった。")),
    )
    expl = (f"第 {col} 列は {e.func} の列で、組の番号は $i = {e.i}$（列 $2i$ が sin、$2i+1$ が cos）。"
            f"指数は $2i/d_{{\\text{{model}}}} = {num(e.exponent, 3)}$ なので $\\omega_i = 10000^{{-{num(e.exponent, 3)}}} = {num(e.rate, 6)}$、"
            f"角度は ${pos} \\times {num(e.rate, 6)} = {num(right, 6)}$ ラジアン。")
    return Draft(stem, sci(right), wrong, expl)


# ---------------------------------------------------------------------------
def _power_of_ten_columns(dims, powers) -> tuple[tuple[int, int], ...]:
    """(d_model, column) with column ≥ 2 whose 10000^(2i/d_model) (i = column // 2) is 10^k for k
    in ``powers``: 10000^(2i/d) = 10^(8i/d), so the learner can write the angle by hand."""
    return tuple((d, col) for d in dims for col in range(2, d) if (8 * (col // 2)) % d == 0
                 and (8 * (col // 2)) // d in powers)


# the value item: angle pos/100 (sin x ≈ x, cos x ≈ 1 − x²/2 are accurate enough for pos ≤ 9)
VALUE_COLUMNS = _power_of_ten_columns((4, 8, 12, 16), (2,))        # (4,2) (4,3) (8,4) (8,5) … (16,9)


def _params_value(rng: np.random.Generator) -> dict:
    d, col = pick(rng, VALUE_COLUMNS)
    return {"d": d, "pos": int(rng.integers(1, 10)), "col": col}


def f5(x: float) -> str:
    return f"{float(x):.5f}"                          # ASCII "-" as every other generator writes it


@calc_generator("position.pe_value", "position", _params_value)
def _pe_value(p: dict) -> Draft:
    """PE(pos, col) for a column whose angle is pos/100 (d_model ∈ {4, 8, 12, 16}, a slowly turning pair)."""
    d, pos, col = p["d"], p["pos"], p["col"]
    e = _entry(pos, col, d)
    right = tutor.position.pe_value_mistake(pos, col, d)
    stem = (f"{dm(d)} の正弦波の位置エンコーディング（列 $2i$ が $\\sin(pos/10000^{{2i/d_{{\\text{{model}}}}}})$、"
            f"列 $2i+1$ が同じ角度の $\\cos$）で、位置 $pos = {pos}$ の第 {col} 列（列は 0 から数える）の値（小数第 5 位まで）{BEST}"
            f"（角度 $x$ が 0.1 より小さいとき、小数第 5 位までなら $\\sin x \\approx x - x^3/6$、$\\cos x \\approx 1 - x^2/2$ を使ってよい）")
    wrong = (
        (f5(tutor.position.pe_value_mistake(pos, col, d, "swapped")),
         mc("sin と cos の取り違え", f"偶数列に cos、奇数列に sin を当ててしまった。第 {col} 列は {e.func} の列である。")),
        (f5(tutor.position.pe_value_mistake(pos, col, d, "no_rate")),
         mc("ω_i の掛け忘れ", f"どの列でも角度を $pos = {pos}$ そのものとした。列が進むと角度は $10000^{{2i/d_{{\\text{{model}}}}}}$ で割られて小さくなる。")),
        (f5(tutor.position.pe_value_mistake(pos, col, d, "column_as_i")),
         mc("列番号と i の取り違え", f"列番号 {col} を組の番号 $i$ として使い、角度を小さくしすぎた。")),
    )
    expl = (f"第 {col} 列は組 $i = {e.i}$ の {e.func}。角度は ${pos}/10000^{{{num(e.exponent, 3)}}} = {num(e.angle, 6)}$ なので、"
            f"値は $\\{e.func}({num(e.angle, 6)}) \\approx {f5(right)}$。")
    return Draft(stem, f5(right), wrong, expl)


# ---------------------------------------------------------------------------
def _params_input(rng: np.random.Generator) -> dict:
    return {"x": tuple(rng.integers(-2, 3, size=4).tolist()), "pos": int(rng.integers(0, 2)),
            "token": pick(rng, ("猫", "魚", "それ", "本", "駅"))}


_HINT_ENTRIES = tutor.position.pe_breakdown(1, 4)              # sin 1, cos 1, sin 0.01, cos 0.01: the same for every draft
INPUT_HINT = (f"（$\\sin 1 \\approx {num(_HINT_ENTRIES[0].value, 2)}$、$\\cos 1 \\approx {num(_HINT_ENTRIES[1].value, 2)}$、"
              f"$\\sin 0.01 \\approx {num(_HINT_ENTRIES[2].value, 2)}$、$\\cos 0.01 \\approx {num(_HINT_ENTRIES[3].value, 2)}$）")


def _pe_text(pos: int) -> str:
    ent = tutor.position.pe_breakdown(pos, 4)
    pe = [e.value for e in ent]
    return (f"位置 {pos} の位置エンコーディングは $(\\sin {num(ent[0].angle, 2)}, \\cos {num(ent[1].angle, 2)}, "
            f"\\sin {num(ent[2].angle, 2)}, \\cos {num(ent[3].angle, 2)}) \\approx {vec(pe, 2)[1:-1]}$")


PE_TEXT = {pos: _pe_text(pos) for pos in (0, 1)}      # the two positions _params_input draws (d_model = 4)


@calc_generator("position.input_sum", "position", _params_input)
def _input_sum(p: dict) -> Draft:
    """The first layer's input x + PE(pos) for d_model = 4, pos ∈ {0, 1}."""
    x, pos, tok = np.array(p["x"], float), p["pos"], p["token"]
    r = tutor.position.pe_input_mistakes(x, pos)                      # the right input and every mistake, x checked once
    right = vec(r[None], 2)
    x_tex = vec(p["x"], 0)[1:-1]
    stem = (f"{dm(4)} の Transformer で、トークン「{tok}」の埋め込みが ${x_tex}$ である。"
            f"このトークンが位置 $pos = {pos}$（先頭を 0 とする）にあるとき、第 1 層に入るベクトル"
            f"（埋め込み + 正弦波の位置エンコーディング、小数第 2 位まで）{BEST}{INPUT_HINT}")
    wrong = (
        (vec(r["no_pe"], 2),
         mc("位置エンコーディングの足し忘れ", "埋め込みをそのまま入れると、Self-Attention には語順がまったく伝わらない。")),
        (vec(r["swapped"], 2),
         mc("sin と cos の取り違え", "偶数列に cos、奇数列に sin を足してしまった。")),
        (vec(r["one_based"], 2),
         mc("位置を 1 から数えた", f"先頭を位置 1 と数え、1 つ後ろの位置の $\\mathrm{{PE}}({pos}+1)$ を足してしまった。")),
    )
    expl = f"{PE_TEXT[pos]}。これを埋め込み ${x_tex}$ に成分ごとに足して {right}。"
    return Draft(stem, right, wrong, expl)


# ---------------------------------------------------------------------------
# the pair item: every column ≥ 2 whose pair turns 10^−1, 10^−2 or 10^−3 radian per position
PAIR_COLUMNS = _power_of_ten_columns((4, 8, 12, 16, 24, 32, 64), (1, 2, 3))


def _params_blank(rng: np.random.Generator) -> dict:
    d, col = pick(rng, PAIR_COLUMNS)
    return {"d": d, "col": col}


@calc_generator("position.pairs_blank", "position", _params_blank)
def _pairs_blank(p: dict) -> Draft:
    """(ア) number of sin/cos pairs, (イ) the fastest pair's step, (ウ) the step of the pair of column c."""
    d, col = p["d"], p["col"]
    rates = _rates(d)
    pairs = len(rates)
    right_step = tutor.position.pe_angle_mistake(1, col, d)
    stem = (f"{BLANK}\n\n{dm(d)} の正弦波の位置エンコーディングでは、同じ角度を使う sin の列と cos の列の組が（ア）組ある。"
            f"位置が 1 つ進むと、列 0・1 の組の角度は（イ）ラジアン進み、第 {col} 列（0 から数える）を含む組の角度は（ウ）ラジアン進む。")
    right = (num(pairs), num(rates[0]), sci(right_step))
    wrong, notes = two_slips(
        right,
        ("列の数と組の数の混同", f"{d} 列を 2 列ずつ組にした組の数（{pairs} 組）ではなく、列の数 {d} をそのまま答えた",
         {0: num(d)}),
        ("速い組と遅い組の取り違え", "列 0・1 の組がいちばん遅く回ると考えた（実際は列番号が小さいほど速く回り、波長が短い）",
         {1: sci(right_step), 2: num(rates[0])}))
    expl = (f"{d} 列を sin・cos の 2 列ずつに分けるので {pairs} 組。組 $i$ の角度は $pos \\cdot 10000^{{-2i/{d}}}$ で、"
            f"$i = 0$ は 1 ラジアンずつ進む。第 {col} 列は組 $i = {_entry(1, col, d).i}$ で、1 位置あたり {num(right_step, 6)} ラジアン進む。")
    return draft(blank(*right), wrong, stem, notes, expl)
