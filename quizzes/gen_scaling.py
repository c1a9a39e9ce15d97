"""③ √d_k で割る理由: the divisor, scaled scores, saturation, and the variance of q·k.

Inputs: d_k a perfect square (so √d_k is an integer), h heads (d_model = h·d_k; the variance
blank gives d_k itself or d_model and h), score rows
√d_k·ln m (exact softmax) or √d_k·(a, b, 0).
Answers and distractors: tutor.scaling (score_divisor, scale_scores,
ln_scores, dot_product_variance, scaled_variance), tutor.formula.attention_variants, tutor.multihead.head_dim_mistake and tutor.head_dim.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

import tutor

from .calc import BEST, BLANK, blank, calc_generator, draft, ln_tex, mc, num, pick, sample, tex_vec, two_slips, vec
from .core import Draft

SQUARES = (4, 9, 16, 25, 36, 49, 64, 81, 100, 144)
HEADS = (2, 4, 8, 12, 16)
ROW_VALUES = (1, 2, 3, 4)    # a, b of the score row √d_k·(a, b, 0)


def _params_dims(rng: np.random.Generator) -> dict:
    d_k = pick(rng, SQUARES)
    h = pick(rng, HEADS)
    return {"d_k": d_k, "h": h, "d_model": d_k * h}


# ---------------------------------------------------------------------------
@calc_generator("scaling.divisor", "scaling", _params_dims)
def _divisor(p: dict) -> Draft:
    """The number Q Kᵀ is divided by, from d_model and h."""
    d_model, h = p["d_model"], p["h"]
    d_k = tutor.head_dim(d_model, h)
    right = tutor.scaling.score_divisor(d_k)
    stem = (f"$d_{{\\text{{model}}}} = {d_model}$、ヘッド数 $h = {h}$ の Multi-Head Attention がある。"
            f"各ヘッドの Scaled Dot-Product Attention で、スコア $QK^\\top$ を割る値{BEST}")
    wrong = (
        (num(d_k, 2), mc("√ の付け忘れ", f"$d_k = {d_k}$ そのもので割ると考えたが、割るのは標準偏差にあたる $\\sqrt{{d_k}}$ である。")),
        (num(tutor.scaling.score_divisor(d_model), 2), mc("d_model と d_k の混同", f"ヘッドに分ける前の $\\sqrt{{d_{{\\text{{model}}}}}} = \\sqrt{{{d_model}}} \\approx {num(tutor.scaling.score_divisor(d_model), 2)}$ で割ったが、各ヘッドの内積は $d_k$ 次元どうしでとる。")),
        (num(tutor.scaling.score_divisor(tutor.multihead.head_dim_mistake(d_model, h, 'swapped')), 2),
         mc("ヘッド数との混同", f"ヘッド数 $h = {h}$ を次元と取り違え、$\\sqrt{{h}} \\approx {num(tutor.scaling.score_divisor(h), 2)}$ で割った。")),
    )
    expl = (f"各ヘッドの次元は $d_k = d_{{\\text{{model}}}}/h = {d_model}/{h} = {d_k}$。内積 $q \\cdot k$ は $d_k$ 個の積の和なので"
            f"標準偏差がおよそ $\\sqrt{{d_k}}$ になり、これで割って $\\sqrt{{{d_k}}} = {num(right, 2)}$ とする。")
    return Draft(stem, num(right, 2), wrong, expl)


# ---------------------------------------------------------------------------
def _params_ln(rng: np.random.Generator) -> dict:
    p = _params_dims(rng)
    p["d_k"] = pick(rng, (4, 9, 16))
    p["d_model"] = p["d_k"] * p["h"]
    m = rng.integers(1, 6, size=3).tolist()
    while len(set(m)) == 1:
        m = rng.integers(1, 6, size=3).tolist()
    p["m"] = tuple(m)
    p["j"] = int(rng.integers(3))
    return p


@calc_generator("scaling.weight_ln", "scaling", _params_ln)
def _weight_ln(p: dict) -> Draft:
    """A weight of softmax(s/√d_k) for a row s = √d_k · ln m (exact fractions)."""
    d_k, h, d_model, m, j = p["d_k"], p["h"], p["d_model"], p["m"], p["j"]
    c = tutor.scaling.score_divisor(d_k)
    s = tutor.scaling.ln_scores(m, d_k)

    mistakes = ("no_scale", "divide_by_d_k", "d_model")
    steps, *mistaken = tutor.formula.attention_variants(s, d_k=d_k, mistakes=(None, *mistakes), d_model=d_model)
    w = {mistake: num(r.weights[0, j]) for mistake, r in zip(mistakes, mistaken)}.__getitem__
    n_right = num(steps.weights[0, j])

    row = ",\\ ".join(ln_tex(c, v) for v in m)
    stem = (f"$d_{{\\text{{model}}}} = {d_model}$、$h = {h}$ のモデルの 1 つのヘッドで、あるクエリの 3 つのキーに対する"
            f"スコア $QK^\\top$ の行が $({row})$ だった。Scaled Dot-Product Attention の重みのうち、"
            f"キー {j + 1} への重み{BEST}（$\\ln$ は自然対数。$e^{{\\ln m}} = m$ を使うとよい）")
    notes = (
        mc("√d_k で割り忘れ", f"スコアを割らないまま softmax にかけると $e^{{{num(c)}\\ln m}} = m^{{{num(c)}}}$ の比になり {w('no_scale')} になる。"),
        mc("√ の付け忘れ", f"$d_k = {d_k}$ で割ると指数が小さくなりすぎ、重みが平らになって {w('divide_by_d_k')} になる。"),
        mc("d_model と d_k の混同", f"$\\sqrt{{d_{{\\text{{model}}}}}} = \\sqrt{{{d_model}}}$ で割ると {w('d_model')} になる。"),
    )
    expl = (f"$d_k = {d_model}/{h} = {d_k}$ なので $\\sqrt{{d_k}} = {num(c)}$ で割ると、スコアは "
            f"$({', '.join(ln_tex(1, v) for v in m)})$。softmax は $e^{{\\ln m}} = m$ の比になり、"
            f"重みは ${tex_vec(steps.weights[0])}$（= ${tex_vec(m)}$ を和 {num(tutor.row_sums(np.array(m, float)))} で割った値）。キー {j + 1} は {n_right}。")
    return draft(n_right, (w("no_scale"), w("divide_by_d_k"), w("d_model")), stem, notes, expl)


# ---------------------------------------------------------------------------
def _params_row(rng: np.random.Generator) -> dict:
    p = _params_dims(rng)
    a, b = sorted((ROW_VALUES[v] for v in sample(rng, len(ROW_VALUES), 2)), reverse=True)
    p["pattern"] = (a, b, 0)
    return p


@calc_generator("scaling.scaled_row", "scaling", _params_row)
def _scaled_row(p: dict) -> Draft:
    """The row Q Kᵀ / √d_k for a row that is √d_k · (a, b, 0)."""
    d_k, h, d_model = p["d_k"], p["h"], p["d_model"]
    c = tutor.scaling.score_divisor(d_k)
    s = c * np.asarray(p["pattern"], float)  # the displayed score row: √d_k · (a, b, 0)

    @lru_cache(maxsize=None)  # each mistake computed once per question
    def scaled(mistake=None) -> str:
        return vec(tutor.scaling.scale_scores(s, d_k, mistake=mistake, d_model=d_model)[0])   # QKᵀ/√d_k or a mistake

    right = scaled()

    stem = (f"$d_{{\\text{{model}}}} = {d_model}$、$h = {h}$ の Multi-Head Attention の 1 つのヘッドで、"
            f"スコア $QK^\\top$ のある行が ${tex_vec(s)}$ だった。スケーリング後の行 $QK^\\top/\\sqrt{{d_k}}${BEST}")
    notes = (
        mc("√ の付け忘れ", f"$d_k = {d_k}$ で割ると {scaled('divide_by_d_k')} になり、値が小さくなりすぎる。"),
        mc("d_model と d_k の混同", f"$\\sqrt{{{d_model}}}$ で割ると {scaled('d_model')} になる。"),
        mc("√d_k で割り忘れ", "スケーリングを省き、スコアをそのまま答えた。"),
    )
    expl = (f"$d_k = {d_model}/{h} = {d_k}$、$\\sqrt{{d_k}} = {num(c)}$ なので、各成分を {num(c)} で割って {right}。"
            f"割らないと差が {num(c)} 倍に広がり、softmax の重みが 1 つに偏る（飽和する）。")
    return draft(right, (scaled("divide_by_d_k"), scaled("d_model"), scaled("no_scale")), stem, notes, expl)


# ---------------------------------------------------------------------------
VAR_SQUARES = (16, 25, 36, 49, 64, 81, 100, 121, 144, 196, 256)
VAR_HEADS = (1, 2, 4, 8)   # 1: the stem gives d_k itself; otherwise d_model = h·d_k and h (d_k by hand)


def _params_var(rng: np.random.Generator) -> dict:
    d_k = pick(rng, VAR_SQUARES)
    h = pick(rng, VAR_HEADS)
    return {"d_k": d_k, "h": h, "d_model": d_k * h}


@calc_generator("scaling.variance_blank", "scaling", _params_var)
def _variance_blank(p: dict) -> Draft:
    """(ア) Var(q·k) = d_k, (イ) its standard deviation √d_k, (ウ) the variance after dividing;
    d_k given, or d_model and h given (d_k = d_model / h)."""
    h, d_model = p["h"], p["d_model"]
    d_k = tutor.head_dim(d_model, h)
    c = tutor.scaling.score_divisor(d_k)
    var, std = tutor.scaling.dot_product_variance(d_k), tutor.scaling.score_divisor(tutor.scaling.dot_product_variance(d_k))
    after = tutor.scaling.scaled_variance(d_k, c)
    after_dk = tutor.scaling.scaled_variance(d_k, float(d_k))
    if h == 1:
        setting = f"クエリ $q$ とキー $k$ の各成分が独立で、平均 0・分散 1 に従うとする。$d_k = {d_k}$ のとき、"
        step = ""
    else:
        setting = (f"$d_{{\\text{{model}}}} = {d_model}$、ヘッド数 $h = {h}$ の Multi-Head Attention の 1 つのヘッドで、"
                   f"クエリ $q$ とキー $k$（どちらも $d_k = d_{{\\text{{model}}}}/h$ 次元）の各成分が独立で、"
                   f"平均 0・分散 1 に従うとする。このとき、")
        step = f"$d_k = {d_model}/{h} = {d_k}$。"
    stem = (f"{BLANK}\n\n{setting}"
            f"内積 $q \\cdot k$ の分散は（ア）、標準偏差は（イ）である。内積を $\\sqrt{{d_k}}$ で割ると分散は（ウ）になり、"
            f"softmax が飽和しにくくなる。")
    right = (num(var), num(std), num(after, 4))
    wrong, notes = two_slips(
        right,
        ("分散と標準偏差の取り違え", f"分散（$d_k = {num(var)}$）と標準偏差（$\\sqrt{{d_k}} = {num(std)}$）を逆にした",
         {0: num(std), 1: num(var)}),
        ("√ の付け忘れ", f"$\\sqrt{{d_k}}$ ではなく $d_k$ で割ったので、分散が $d_k/d_k^2 = 1/{d_k}$ まで縮んだ",
         {2: num(after_dk, 4)}))
    expl = (f"{step}内積は $d_k = {d_k}$ 個の積 $q_i k_i$（各分散 1）の和なので、分散は {num(var)}、標準偏差は $\\sqrt{{{d_k}}} = {num(std)}$。"
            f"$\\sqrt{{d_k}}$ で割ると分散は ${num(var)}/{num(c)}^2 = {num(after)}$ に戻る。")
    return draft(blank(*right), wrong, stem, notes, expl)
