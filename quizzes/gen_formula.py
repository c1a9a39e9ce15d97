"""④ 完成形と手計算: softmax(Q Kᵀ / √d_k) V end to end, shapes, self vs cross.

Inputs: the 3-key example of the G検定 page with fresh small integers (one query, d_k = 2),
rows √d_k · ln m for exact outputs, and sizes n_q, n_k, d_k, d_v for shape questions.
Answers and distractors: tutor.attention, tutor.formula (attention_variants = attention_from_scores
for several mistakes, on the score table tutor.attention computed — what attention_mistake does —,
ln_scores, exp_values, attention_shapes).
"""
from __future__ import annotations

from functools import lru_cache
from types import MappingProxyType

import numpy as np

import tutor

from .calc import (BEST, BLANK, WORST, _nums, blank, calc_generator, draft, ln_tex, mc, num, pick, redraw, sample, shown,
                   tex_mat, tex_rows, tex_vec, two_slips, vec)
from .core import Draft

D_K = 2
SIZES = tuple(range(2, 10))   # n_q, n_k, d_k, d_v of the shapes item (four different ones)


def _params_g(rng: np.random.Generator) -> dict:
    q = rng.integers(0, 3, size=(1, D_K))
    while not q.any():
        q = rng.integers(0, 3, size=(1, D_K))
    k = rng.integers(0, 3, size=(3, D_K))
    v = rng.integers(0, 5, size=(3, 2))
    return {"q": q.astype(float), "k": k.astype(float), "v": v.astype(float),
            "j": int(rng.integers(3)), "c": int(rng.integers(2))}


def _g_block(p: dict, with_v: bool = True) -> str:
    keys = "、".join(f"$k_{{{n + 1}}} = {row}$" for n, row in enumerate(tex_rows(p["k"])))
    text = f"クエリ $q = {tex_vec(p['q'])}$、キー {keys}"
    if with_v:
        text += "、バリュー " + "、".join(f"$v_{{{n + 1}}} = {row}$" for n, row in enumerate(tex_rows(p["v"])))
    return text + f"（$d_k = {D_K}$）"


def _hint(scaled_row) -> str:
    vals = sorted(set(shown(scaled_row).tolist()))            # the exponents as written (3 places)
    exps = tutor.formula.exp_values(vals)                                 # e^2.828 ≈ 16.912, as ④–⑥ compute it
    return ("必要なら " + "、".join(f"$e^{{{num(v)}}} \\approx {num(e)}$" for v, e in zip(vals, exps))
            + f"、$\\sqrt{{2}} \\approx {num(tutor.scaling.score_divisor(D_K))}$ を使ってよい。")


# ---------------------------------------------------------------------------
def _hand(scaled) -> tuple[np.ndarray, np.ndarray]:
    """For rows of scaled scores (m, 3): the e^s as the hint gives them (e to the exponent as written,
    3 places, the value rounded to 3 places) and the weights a learner computes from them,
    e_j / Σ e (tutor.formula.softmax_from_exps)."""
    exps = shown(tutor.formula.exp_values(shown(scaled)))                 # (m, 3)
    return exps, tutor.formula.softmax_from_exps(exps)                    # (m, 3), (m, 3)


def _scaled_rows(scores, mistakes) -> np.ndarray:
    """The row q Kᵀ / √d_k (None) or with each divisor mistake, stacked: (m, 3) (tutor.scaling.scale_scores)."""
    return np.concatenate([tutor.scaling.scale_scores(scores, D_K, mistake=m) for m in mistakes])


@calc_generator("formula.g_weight", "formula", _params_g)
def _g_weight(p: dict) -> Draft:
    """One weight of the 3-key example (one query, d_k = 2), from the e^s values the hint gives."""
    q, k, j = p["q"], p["k"], p["j"]
    scores = tutor.qkv.score_table(q, k)                              # (1, 3) q Kᵀ, as in tutor.attention
    divisors = (None, "no_scale", "divide_by_d_k")
    scaled = _scaled_rows(scores, divisors)                    # (3, 3)
    exps_all, hand = _hand(scaled)
    exps, weights = exps_all[0], hand[0]
    n_right, n_no_scale, n_by_dk, n_raw = _nums((*hand[:, j].tolist(), scaled[0, j]), 3)   # raw: the scaled score itself
    exact = tutor.formula.attention_variants(scores, d_k=D_K, mistakes=divisors)   # softmax computed exactly
    if [num(r.weights[0, j]) for r in exact] != [n_right, n_no_scale, n_by_dk]:
        return redraw()                                        # a calculator would give another text than the hints

    score_text = tex_vec(scores[0])
    stem = (f"{_g_block(p, with_v=False)}について、Scaled Dot-Product Attention "
            f"$\\mathrm{{softmax}}(qK^\\top/\\sqrt{{d_k}})$ のキー {j + 1} への重み{BEST}{_hint(scaled[0])}")
    notes = (
        mc("√d_k で割り忘れ", f"内積 ${score_text}$ を √d_k で割らずに softmax にかけると {n_no_scale} になり、差が強調されすぎる。"),
        mc("√ の付け忘れ", f"$d_k = 2$ で割ると {n_by_dk} になる。"),
        mc("softmax の省略", f"スケーリング後のスコア {n_raw} をそのまま重みにした（和が 1 にならない）。"),
    )
    expl = (f"内積 $qK^\\top = {score_text}$ を $\\sqrt{{2}}$ で割って ${tex_vec(scaled[0])}$。"
            f"$e^s$ は ${tex_vec(exps)}$（和 {num(tutor.row_sums(exps))}）なので、"
            f"softmax の重みは ${tex_vec(weights)}$ となり、キー {j + 1} は {n_right}。")
    return draft(n_right, (n_no_scale, n_by_dk, n_raw), stem, notes, expl)


# ---------------------------------------------------------------------------
def _params_ln(rng: np.random.Generator) -> dict:
    d_k = pick(rng, (1, 4, 9))
    m = rng.integers(1, 5, size=3)
    while len(set(m.tolist())) == 1:
        m = rng.integers(1, 5, size=3)
    v = rng.integers(0, 7, size=(3, 2))
    return {"d_k": d_k, "m": tuple(m.tolist()), "v": v.astype(float), "c": int(rng.integers(2))}


@calc_generator("formula.output_ln", "formula", _params_ln)
def _output_ln(p: dict) -> Draft:
    """An output element z_c = Σ_j a_j v_jc for a row √d_k·ln m (exact weights m/Σm)."""
    d_k, m, v, c = p["d_k"], p["m"], p["v"], p["c"]
    root = tutor.scaling.score_divisor(d_k)
    s = tutor.scaling.ln_scores(m, d_k)
    third_mistake = "no_scale" if d_k > 1 else "no_softmax"
    mistakes = ("no_normalise", "uniform", third_mistake)
    right, *mistaken = tutor.formula.attention_variants(s, v, d_k=d_k, mistakes=(None, *mistakes))
    outputs = {mistake: num(r.output[0, c]) for mistake, r in zip(mistakes, mistaken)}
    z = outputs.__getitem__
    third = z(third_mistake)
    n_right = num(right.output[0, c])

    row = ",\\ ".join(ln_tex(root, x) for x in m)
    values = "、".join(f"$v_{{{n + 1}}} = {tex_vec(row)}$" for n, row in enumerate(v.tolist()))
    stem = (f"$d_k = {d_k}$ のヘッドで、あるクエリのスコア $QK^\\top$ の行が "
            f"$({row})$、バリューが {values} である。"
            f"このクエリの出力 $z = \\mathrm{{softmax}}(QK^\\top/\\sqrt{{d_k}})V$ の第 {c + 1} 成分{BEST}"
            f"（$\\ln$ は自然対数）")
    notes = (
        mc("softmax の分母の付け忘れ", f"$e^{{\\ln m}} = m$ の {vec(m)} を和で割らずに重みにすると {z('no_normalise')} になる。"),
        mc("単純平均との混同", f"スコアを無視してバリューを平均すると {z('uniform')} になる。"),
        mc("√d_k で割り忘れ", f"スコアを割らないまま softmax にかけると $m^{{{num(root)}}}$ の比になり {z('no_scale')} になる。") if d_k > 1
        else mc("softmax の省略", f"スコア（$\\ln m$）をそのまま重みにすると {z('no_softmax')} になる。"),
    )
    expl = (f"$\\sqrt{{d_k}} = {num(root)}$ で割るとスコアは $({', '.join(ln_tex(1, x) for x in m)})$、softmax は $m$ の比なので"
            f"重みは ${tex_vec(right.weights[0])}$。出力はバリューの第 {c + 1} 成分 ${tex_vec(v[:, c])}$ の加重和で "
            f"{n_right}。")
    return draft(n_right, (z("no_normalise"), z("uniform"), third), stem, notes, expl)


# ---------------------------------------------------------------------------
@calc_generator("formula.chain_blank", "formula", _params_g)
def _chain_blank(p: dict) -> Draft:
    """(ア) q·k_j, (イ) weight a_j, (ウ) output z_c of the 3-key example, by hand: the weights from the
    e^s of the hint (3 places), the output from the weights rounded to 3 places.

    Only draws where a calculator gives the same texts are kept: the weights and the output computed
    exactly (tutor.formula.attention_variants), or from the exact weights rounded to 3 places, round
    to the very numbers of the hand calculation, for the answer and for each slip. Degenerate draws
    (all scores equal: every rule gives 1/3; a constant value column: every weighting gives the same
    output) are redrawn. The choices: (ア) the hint's e^{q·k_j/√2} written for the inner product, a
    divisor slip (イ)(ウ), and both."""
    q, k, v, j, c = p["q"], p["k"], p["v"], p["j"], p["c"]
    column = v[:, c]                                           # (3,) the value components summed
    scores = tutor.qkv.score_table(q, k)                              # (1, 3) q Kᵀ, as in tutor.attention
    if len(set(scores[0].tolist())) == 1 or len(set(column.tolist())) == 1:
        return redraw()
    divisors = (None, "no_scale", "divide_by_d_k")
    scaled = _scaled_rows(scores, divisors)                    # (3, 3): right, no √, ÷ d_k
    exps_all, hand = _hand(scaled)
    exps, weights = exps_all[0], hand[0]
    exact = tutor.formula.attention_variants(scores, v, d_k=D_K, mistakes=divisors)   # softmax computed exactly
    texts_ = {}
    for m, (mistake, r) in enumerate(zip(divisors, exact)):
        pencil = (num(hand[m, j]), num(tutor.weighted_sum(shown(hand[m]), column, normalised=False)))
        calculator = {(num(r.weights[0, j]), num(r.output[0, c])),
                      (num(r.weights[0, j]), num(tutor.weighted_sum(shown(r.weights[0]), column, normalised=False)))}
        if calculator != {pencil}:
            if mistake is None:
                return redraw()                                # the answer would depend on the rounding
            continue                                           # this slip would be ambiguous: not offered
        texts_[mistake] = pencil
    c_right = (num(scores[0, j]), *texts_[None])
    slips = {"no_scale": ("√d_k で割り忘れ", "内積を $\\sqrt{d_k}$ で割らずに softmax にかけた"),
             "divide_by_d_k": ("√ の付け忘れ", "内積を $\\sqrt{2}$ ではなく $d_k = 2$ で割った")}
    numerator = ("softmax の分子との混同", f"内積ではなくヒントの $e^{{q \\cdot k_{{{j + 1}}}/\\sqrt{{2}}}}$ の値を（ア）に書いた",
                 {0: num(exps[j])})
    made = next((r for r in (two_slips(c_right, numerator, (*slips[m], dict(enumerate(texts_[m], 1))))
                             for m in ("no_scale", "divide_by_d_k") if m in texts_) if r is not None), None)
    if made is None:
        return redraw()
    wrong, notes = made

    stem = (f"{BLANK}\n\n{_g_block(p)}で Scaled Dot-Product Attention を計算する。"
            f"キー {j + 1} との内積 $q \\cdot k_{{{j + 1}}}$ は（ア）、その重みは（イ）、出力 $z$ の第 {c + 1} 成分は（ウ）である"
            f"（重みは小数第 3 位まで求めてから使う）。{_hint(scaled[0])}")
    w_shown = shown(weights)
    terms = " + ".join(f"{a} \\times {b}" for a, b in zip(_nums(w_shown, 3), _nums(column, 3)))
    expl = (f"（ア）$q \\cdot k_{{{j + 1}}} = {c_right[0]}$。（イ）内積 ${tex_vec(scores[0])}$ を $\\sqrt{{2}}$ で割ると"
            f" ${tex_vec(scaled[0])}$、$e^s$ は ${tex_vec(exps)}$（和 {num(tutor.row_sums(exps))}）で、重みは"
            f" ${tex_vec(weights)}$、キー {j + 1} は {c_right[1]}。"
            f"（ウ）バリューの第 {c + 1} 成分 ${tex_vec(column)}$ の加重和で ${terms} = {c_right[2]}$。"
            f"電卓で丸めずに計算しても同じ値になる。")
    return draft(blank(*c_right), wrong, stem, notes, expl)


# ---------------------------------------------------------------------------
def _params_shapes(rng: np.random.Generator) -> dict:
    n_q, n_k, d_k, d_v = (SIZES[v] for v in sample(rng, len(SIZES), 4))
    return {"n_q": n_q, "n_k": n_k, "d_k": d_k, "d_v": d_v, "lie": int(rng.integers(3))}


@lru_cache(maxsize=2048)  # bounded: four different sizes from SIZES (8 values) → 8·7·6·5 = 1,680 keys
def _measured_shapes(n_q: int, n_k: int, d_k: int, d_v: int) -> MappingProxyType:
    """tutor.formula.attention_shapes (tutor.attention run on ones) — the same shapes every time for the same sizes."""
    return MappingProxyType(tutor.formula.attention_shapes(n_q, n_k, d_k, d_v))


def _shape(s: tuple[int, ...]) -> str:
    return f"${s[0]} \\times {s[1]}$"


@calc_generator("formula.shapes_worst", "formula", _params_shapes)
def _shapes_worst(p: dict) -> Draft:
    """Source-Target Attention shapes: which statement is wrong."""
    n_q, n_k, d_k, d_v = p["n_q"], p["n_k"], p["d_k"], p["d_v"]
    sh = _measured_shapes(n_q, n_k, d_k, d_v)
    k_t = sh["K"][::-1]
    lies = (
        ((sh["V"][0], sh["output"][1]), "キー側の長さとの混同", f"出力の行数はキーの数 {n_k} ではなくクエリの数 {n_q}"),
        ((sh["Q"][0], sh["Q"][1]), "d_k と d_v の混同", f"出力の列数は $d_k = {d_k}$ ではなくバリューの次元 $d_v = {d_v}$"),
        ((sh["weights"][0], sh["weights"][1]), "注意の重みの形との混同", f"{_shape(sh['weights'])} は注意の重み $A$ の形で、出力 $AV$ は {_shape(sh['output'])}"),
    )
    bad_shape, name, why = lies[p["lie"]]
    stem = (f"Source-Target Attention で、デコーダ側の {n_q} トークンからクエリ $Q$（{_shape(sh['Q'])}）を、"
            f"エンコーダ側の {n_k} トークンからキー $K$（{_shape(sh['K'])}）とバリュー $V$（{_shape(sh['V'])}）を作る。"
            f"$\\mathrm{{softmax}}(QK^\\top/\\sqrt{{d_k}})V$ の計算に現れる行列の形についての記述{WORST}")
    answer = f"出力は {_shape(bad_shape)} の行列になる。"
    wrong = (
        (f"$QK^\\top$ は {_shape(sh['scores'])} の行列になる。",
         mc("正しい記述（スコアの形）", f"$Q$（{_shape(sh['Q'])}）と $K^\\top$（{_shape(k_t)}）の積なので、スコアは確かに {_shape(sh['scores'])}。")),
        (f"$K^\\top$ は {_shape(k_t)} の行列になる。",
         mc("正しい記述（転置の形）", f"$K$ が {_shape(sh['K'])} なので、その転置は確かに {_shape(k_t)}。")),
        (f"softmax 後の重み $A$ は {_shape(sh['weights'])} で、各行の和が 1 になる。",
         mc("正しい記述（重みの形）", "softmax は形を変えず、クエリごと（行ごと）に和を 1 にするので正しい。")),
    )
    expl = (f"{name}による誤り：{why}。正しくは $A$（{_shape(sh['weights'])}）と $V$（{_shape(sh['V'])}）の積で、"
            f"出力は {_shape(sh['output'])}（クエリ 1 つにつき $d_v$ 次元のベクトル 1 本）になる。")
    return Draft(stem, answer, wrong, expl)
