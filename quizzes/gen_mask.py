"""⑥ 因果マスク: −∞ before softmax, exact zeros, renormalised rows, padding masks.

Inputs: a score row √d_k · ln m (so the visible weights are exactly m_j / Σ visible m),
n = 3 or 4 tokens (4 … 40 for the pair count), the query position, a valid length for padding.
Answers: tutor.causal_mask / tutor.padding_mask with tutor.formula.attention_variants
(attention_from_scores for several mistakes of one row at once);
distractors: the same with a named mistake (mask_after_softmax, zero_fill, no_mask, …) and
tutor.mask.allowed_pairs.
"""
from __future__ import annotations

import numpy as np

import tutor

from .calc import BEST, BLANK, WORST, _nums, blank, calc_generator, draft, ln_tex, mc, num, pick, tex_vec, tnum, vec, two_slips, redraw
from .core import Draft


def _params_row(rng: np.random.Generator) -> dict:
    n = pick(rng, (3, 4))
    i = int(rng.integers(1, n - 1))              # at least two visible keys and one future key
    visible = rng.integers(1, 7, size=i + 1)
    future = rng.integers(2, 7, size=n - i - 1)  # m = 1 would give score 0 and hide the 0-fill mistake
    m = tuple(visible.tolist() + future.tolist())
    return {"n": n, "i": i, "j": int(rng.integers(i + 1)), "m": m, "d_k": pick(rng, (1, 4, 9))}


def _scores_text(p: dict) -> str:
    root = tutor.scaling.score_divisor(p["d_k"])
    row = ",\\ ".join(ln_tex(root, v) for v in p["m"])
    return f"$({row})$"


def _rows(p: dict, mask_row, mistakes) -> tuple:
    """The masked row, correct (None) or with each named mistake, on the scores √d_k·ln m."""
    s = tutor.scaling.ln_scores(p["m"], p["d_k"])
    return tutor.formula.attention_variants(s, d_k=p["d_k"], mask=mask_row, mistakes=mistakes)


# ---------------------------------------------------------------------------
@calc_generator("mask.causal_weight", "mask", _params_row)
def _causal_weight(p: dict) -> Draft:
    """A weight of a causally masked row."""
    n, i, j, d_k = p["n"], p["i"], p["j"], p["d_k"]
    mask = tutor.causal_mask(n)[i][None, :]                        # (1, n)
    right, *mistaken = _rows(p, mask, (None, "mask_after_softmax", "uniform", "zero_fill"))
    n_after, n_uniform, n_zero = (num(r.weights[0, j]) for r in mistaken)
    n_right = num(right.weights[0, j])

    stem = (f"デコーダの Masked Self-Attention（因果マスク）で、{n} トークンの系列の {i + 1} 番目のクエリが"
            f"全 {n} キーに対して持つスコア $QK^\\top$ の行が {_scores_text(p)} だった（$d_k = {d_k}$、$\\ln$ は自然対数）。"
            f"マスク後の重みのうち、キー {j + 1} への重み{BEST}")
    notes = (
        mc("softmax の後でマスク", f"全キーで softmax してから未来の重みを 0 にすると、残りが正規化し直されず {n_after} になる。"),
        mc("単純平均との混同", f"スコアを無視して、見てよい {i + 1} 個のキーに均等に {n_uniform} ずつ配った。"),
        mc("マスク位置を 0 で埋めた", f"未来のスコアを $-\\infty$ ではなく 0 にすると $e^0 = 1$ が分母に残り {n_zero} になる。"),
    )
    expl = (f"キー {i + 2} 以降は未来なので $-\\infty$ を足して重みを 0 にし、見てよいキー 1〜{i + 1} だけで softmax する。"
            f"$\\sqrt{{d_k}}$ で割ると $e^{{\\ln m}} = m$ なので、重みは ${tex_vec(p['m'][: i + 1])}$ を和で割った値で、"
            f"行全体は ${tex_vec(right.weights[0])}$、キー {j + 1} は {n_right}。")
    return draft(n_right, (n_after, n_uniform, n_zero), stem, notes, expl)


# ---------------------------------------------------------------------------
ADD_INF = "$-\\infty$ を足してから softmax する"
ZERO = "0 に置き換えてから softmax する"


@calc_generator("mask.order_blank", "mask", _params_row)
def _order_blank(p: dict) -> Draft:
    """(ア) how to mask, (イ) a weight, (ウ) the row sum."""
    n, i, j, d_k = p["n"], p["i"], p["j"], p["d_k"]
    mask = tutor.causal_mask(n)[i][None, :]
    right, after, zero = _rows(p, mask, (None, "mask_after_softmax", "zero_fill"))

    rows = (right, after, zero)
    w = np.concatenate([r.weights for r in rows])                      # (3, n): one row per variant
    w_text = _nums(w[:, j].tolist() + tutor.row_sums(w).tolist(), 3)   # num() of each weight, then each row sum
    c_right, c_after, c_zero = ((w_text[k], w_text[3 + k]) for k in range(3))
    slips = two_slips(
        (ADD_INF, *c_right),
        ("マスク位置を 0 で埋めた", f"未来のスコアを 0 にしたので $e^0 = 1$ の重みが未来に残った", {0: ZERO, 1: c_zero[0]}),
        ("正規化し直しの見落とし", "マスクで消した未来の分だけ重みの和が減ったままだと考え、softmax の後で 0 にした行の和を答えた",
         {2: c_after[1]}))
    if slips is None:
        return redraw()
    wrong, notes = slips

    stem = (f"{BLANK}\n\n{n} トークンの系列の {i + 1} 番目のクエリのスコア $QK^\\top$ の行が {_scores_text(p)}"
            f"（$d_k = {d_k}$、$\\ln$ は自然対数）のとき、因果マスクでは未来のキーのスコアに（ア）。"
            f"するとキー {j + 1} への重みは（イ）となり、この行の重みの和は（ウ）になる。")
    expl = (f"$-\\infty$ を足すと $e^{{-\\infty}} = 0$ となり、未来の重みはちょうど 0、残りのキーだけで正規化される。"
            f"重みの行は ${tex_vec(right.weights[0])}$ で、キー {j + 1} は {c_right[0]}、和は "
            f"{c_right[1]}。")
    return draft(blank(ADD_INF, *c_right), wrong, stem, notes, expl)


# ---------------------------------------------------------------------------
def _params_n(rng: np.random.Generator) -> dict:
    # n ≥ 4: with n = 3 the strict count n(n−1)/2 equals the diagonal-only n (a redraw); n ≤ 40
    # keeps n(n+1)/2 a hand calculation
    return {"n": int(rng.integers(4, 41))}


@calc_generator("mask.allowed_pairs", "mask", _params_n)
def _allowed_pairs(p: dict) -> Draft:
    """How many (query, key) pairs a causal mask lets through."""
    n = p["n"]
    right = tutor.mask.allowed_pairs(n)
    strict, full, diagonal = (tutor.mask.allowed_pairs(n, mistake) for mistake in ("strict", "no_mask", "diagonal_only"))

    stem = (f"長さ $n = {n}$ の系列に因果マスクをかけた Self-Attention で、重みが 0 にならない"
            f"（クエリ $i$ がキー $j$ を見てよい）組 $(i, j)$ の数{BEST}")
    notes = (
        mc("自分自身まで隠した", f"対角（自分自身）も隠すと考え、$n(n-1)/2 = {tnum(strict)}$ とした。"),
        mc("マスク忘れ", f"マスクなしの全組 $n^2 = {tnum(full)}$ を数えた。"),
        mc("自分だけを見ると誤解", f"各トークンが自分自身だけを見ると考え、{num(diagonal)} とした。"),
    )
    expl = (f"クエリ $i$ はキー $1, \\dots, i$ の $i$ 個を見てよいので、合計 $1 + 2 + \\cdots + {n} = n(n+1)/2 = {tnum(right)}$。"
            f"残りの {num(tutor.mask.allowed_pairs(n, 'masked'))} 組（対角より右上）が $-\\infty$ で隠される。")
    return draft(num(right), (num(strict), num(full), num(diagonal)), stem, notes, expl)


# ---------------------------------------------------------------------------
def _params_pad(rng: np.random.Generator) -> dict:
    n = 4
    length = pick(rng, (2, 3))
    i = int(rng.integers(length))
    real = rng.integers(1, 7, size=length)
    pads = rng.integers(2, 7, size=n - length)   # m = 1 would give score 0 and hide the 0-fill mistake
    m = tuple(real.tolist() + pads.tolist())
    return {"n": n, "length": length, "i": i, "j": int(rng.integers(length)), "m": m, "d_k": pick(rng, (1, 4, 9))}


@calc_generator("mask.padding_weight", "mask", _params_pad)
def _padding_weight(p: dict) -> Draft:
    """A weight with a padding mask (encoder, no causal mask)."""
    n, length, i, j, d_k = p["n"], p["length"], p["i"], p["j"], p["d_k"]
    mask = tutor.padding_mask(length, n)[i][None, :]               # (1, n)
    right, *mistaken = _rows(p, mask, (None, "no_mask", "uniform", "zero_fill"))
    n_none, n_uniform, n_zero = (num(r.weights[0, j]) for r in mistaken)
    n_right = num(right.weights[0, j])

    stem = (f"長さを {n} にそろえたバッチで、ある文は実際のトークンが {length} 個、残り {n - length} 個がパディング（[PAD]）である。"
            f"エンコーダの Self-Attention（因果マスクなし、パディングマスクあり）で、{i + 1} 番目のトークンのクエリのスコア行が "
            f"{_scores_text(p)}（$d_k = {d_k}$、$\\ln$ は自然対数）のとき、キー {j + 1} への重み{BEST}")
    notes = (
        mc("パディングのマスク忘れ", f"[PAD] のキーも含めて softmax すると {n_none} になり、意味のない位置に注意が漏れる（softmax の後で [PAD] を 0 にしても同じ値のまま、和が 1 にならない）。"),
        mc("単純平均との混同", f"スコアを無視して実トークン {length} 個に均等に {n_uniform} ずつ配った。"),
        mc("マスク位置を 0 で埋めた", f"[PAD] のスコアを 0 にしても $e^0 = 1$ が分母に残り {n_zero} になる。"),
    )
    pad_keys = f"{n}" if length + 1 == n else f"{length + 1}〜{n}"
    expl = (f"[PAD] のキー {pad_keys} に $-\\infty$ を足して除き、実トークン 1〜{length} だけで softmax する。"
            f"重みは ${tex_vec(p['m'][:length])}$ を和で割った値で、行全体は ${tex_vec(right.weights[0])}$、"
            f"キー {j + 1} は {n_right}。")
    return draft(n_right, (n_none, n_uniform, n_zero), stem, notes, expl)


# ---------------------------------------------------------------------------
def _params_worst(rng: np.random.Generator) -> dict:
    p = _params_row(rng)
    p["n"], p["i"] = 3, 2
    p["m"] = tuple(int(v) for v in rng.integers(1, 6, size=3))
    return p


@calc_generator("mask.matrix_worst", "mask", _params_worst)
def _matrix_worst(p: dict) -> Draft:
    """Statements about the causally masked 3 × 3 weight matrix: the wrong one."""
    d_k, m = p["d_k"], p["m"]
    mask = tutor.causal_mask(3)
    s = np.broadcast_to(tutor.scaling.ln_scores(m, d_k), (3, 3))              # every query sees the same score row
    right, after = tutor.formula.attention_variants(s, d_k=d_k, mask=mask, mistakes=(None, "mask_after_softmax"))
    stem = (f"3 トークンの系列で、どのクエリのスコア $QK^\\top$ の行も {_scores_text(p)}（$d_k = {d_k}$、$\\ln$ は自然対数）"
            f"だったとする。因果マスクをかけた Self-Attention の注意の重み $A$（行列）についての記述{WORST}")
    answer = f"第 2 行（2 番目のクエリ）の重みは {vec(after.weights[1])} である。"
    wrong = (
        (f"第 1 行の重みは {vec(right.weights[0])} である。",
         mc("正しい記述（先頭のクエリ）", "先頭のトークンは自分自身しか見られないので、重みは必ず 1 つの 1 と残りの 0 になる。")),
        (f"第 3 行の重みは {vec(right.weights[2])} である。",
         mc("正しい記述（最後のクエリ）", f"最後のトークンは全キーを見てよいのでマスクの影響がなく、${tex_vec(m)}$ の比で正しい。")),
        (f"どの行も重みの和は {num(tutor.row_sums(right.weights)[0])} で、対角より右上の成分はすべて 0 である。",
         mc("正しい記述（行の和）", "$-\\infty$ を足してから softmax するので、未来の重みは 0、各行の和は 1 になる。")),
    )
    expl = (f"softmax の後でマスクしたときの誤り：{vec(after.weights[1])} は第 2 行を全キーで softmax してからキー 3 を 0 にした値で、和が "
            f"{num(tutor.row_sums(after.weights)[1])} しかない。正しくはキー 1, 2 だけで正規化して {vec(right.weights[1])}"
            f"（${tex_vec(m[:2])}$ の比）になる。")
    return Draft(stem, answer, wrong, expl)
