"""① 素朴なAttention: S = X Xᵀ, A = softmax(S), Z = A X — calculation questions.

Inputs: a 3 × 4 matrix of 0/1 embeddings (every row non-zero), three token labels.
Answers and distractors: tutor.naive.naive_attention_variants (tutor.naive.naive_attention and
naive_attention_mistake for one X at once).
"""
from __future__ import annotations

import numpy as np

import tutor

from .calc import (BEST, BLANK, TOKEN_SETS, _nums, blank, calc_generator, draft, mc, num, pick, redraw, sample, shown,
                   tex_mat, tex_vec, two_slips)
from .core import Draft

N, D = 3, 4
_EYE = np.eye(N, dtype=bool)
_EYE.flags.writeable = False        # shared mask "each token sees only itself"; never written


def _draw_x(rng: np.random.Generator, high: int = 2) -> np.ndarray:
    """(3, 4) embeddings with entries 0 … high−1, no zero row (a token with no embedding)."""
    return np.array(_draw_rows(rng, high), dtype=float)


def _draw_rows(rng: np.random.Generator, high: int) -> list[list[int]]:
    rows = rng.integers(0, high, size=(N, D)).tolist()
    for i in range(N):
        while not any(rows[i]):
            rows[i] = rng.integers(0, high, size=D).tolist()
    return rows


def _varying_columns(rows: list[list[int]]) -> list[int]:
    """Columns whose entries are not all equal (ascending)."""
    first = rows[0]
    return [c for c in range(D) if any(row[c] != first[c] for row in rows)]


def _params(rng: np.random.Generator, high: int = 2) -> dict:
    rows = _draw_rows(rng, high)
    cols = _varying_columns(rows)
    while not cols:                             # need a column whose entries differ
        rows = _draw_rows(rng, high)
        cols = _varying_columns(rows)
    tokens = TOKEN_SETS[int(rng.integers(len(TOKEN_SETS)))]
    i, j = sample(rng, N, 2)
    c = pick(rng, cols)                         # a column that is not constant
    return {"x": np.array(rows, dtype=float), "tokens": tokens, "i": i, "j": j, "c": c}


def _x_block(p: dict) -> str:
    names = "・".join(p["tokens"])
    return f"$$X = {tex_mat(p['x'])}$$\n\n（行の順に {names}）"


def _exp_hint(row) -> str:
    vals = sorted({int(v) for v in row})
    exps = tutor.formula.exp_values(vals)
    return "、".join(f"$e^{{{v}}} \\approx {num(e)}$" for v, e in zip(vals, exps))


def _softmax_text(row, j: int, exps, weight) -> str:
    """e^{s_j} / (Σ e^s) = … ≈ A_ij for one score row (nothing masked), written with the e^s as the
    stem's hint shows them (exps: shown(e^s), 3 places) and their sum (tutor.row_sums), and the weight
    computed from those very numbers (tutor.formula.softmax_from_exps): every number checks by hand."""
    e = _nums(exps, 3)                                         # the e^s as shown
    return (f"$e^{{{num(row[j])}}} / ({' + '.join(e)}) = "
            f"{e[j]} / {num(tutor.row_sums(exps))} \\approx {num(weight)}$")


def _sum_text(weights_shown, column) -> str:
    """'0.063 \\times 0 + 0.468 \\times 1 + …' for Σ_k a_k x_kc (weights as shown)."""
    return " + ".join(f"{a} \\times {v}" for a, v in zip(_nums(weights_shown, 3), _nums(column, 3)))


# ---------------------------------------------------------------------------
def _params_score(rng: np.random.Generator) -> dict:
    return _params(rng, high=3)     # entries 0 … 2: more varied scores for a score question


@calc_generator("naive.score_element", "naive", _params_score)
def _score_element(p: dict) -> Draft:
    """An element of S = X Xᵀ."""
    x, t, i, j = p["x"], p["tokens"], p["i"], p["j"]
    right, gram_r = tutor.naive.naive_attention_variants(x, (None, "gram_transposed"))   # X checked, S = X Xᵀ once
    gram = gram_r.scores
    s = right.scores
    n_gram, n_self, n_weight = num(gram[i, j]), num(s[i, i]), num(right.weights[i, j])

    stem = (f"素朴な Self-Attention では、埋め込み行列 $X$（1 行が 1 トークン）からスコア $S = XX^\\top$ を作る。"
            f"次の $X$ について、$S_{{{i + 1}{j + 1}}}$（「{t[i]}」から「{t[j]}」へのスコア）{BEST}\n\n" + _x_block(p))
    notes = (
        mc("XᵀX との混同", f"転置を左に掛けた $X^\\top X$ はトークンどうしではなく特徴の次元どうしの内積で、その ({i + 1},{j + 1}) 成分は {n_gram} になる。"),
        mc("自分自身とのスコア", f"$x_{{{i + 1}}}$ と $x_{{{j + 1}}}$ ではなく $x_{{{i + 1}}}$ 自身との内積を計算すると {n_self} になる。"),
        mc("スコアと重みの混同", f"softmax の後の重み $A_{{{i + 1}{j + 1}}} \\approx {n_weight}$ を答えたが、問われているのは softmax 前のスコア。"),
    )
    expl = (f"$S_{{{i + 1}{j + 1}}}$ は「{t[i]}」の行 ${tex_vec(x[i])}$ と「{t[j]}」の行 ${tex_vec(x[j])}$ の内積で、"
            f"同じ位置どうしを掛けて足すと {num(s[i, j])}。$S$ は対称なので $S_{{{j + 1}{i + 1}}}$ も {num(s[j, i])} になる。")
    return draft(num(s[i, j]), (n_gram, n_self, n_weight), stem, notes, expl)


# ---------------------------------------------------------------------------
def _params_weight(rng: np.random.Generator) -> dict:
    """Like _params, redrawn until S_ij ≠ 0 (a zero score would make two distractors coincide)."""
    while True:
        p = _params(rng)
        if tutor.qkv.score_table(p["x"], p["x"])[p["i"], p["j"]] != 0:     # S = X Xᵀ, as in tutor.naive.naive_attention
            return p


@calc_generator("naive.weight", "naive", _params_weight)
def _weight(p: dict) -> Draft:
    """An attention weight A_ij = softmax(S)_ij of naive self-attention, computed from the e^s the
    stem's hint gives (3 places), as a learner does it by hand."""
    x, t, i, j = p["x"], p["tokens"], p["i"], p["j"]
    right_r, col_r, prop_r = tutor.naive.naive_attention_variants(x, (None, "column_softmax", "no_exp"))   # S = X Xᵀ once
    s, prop = prop_r.scores, prop_r.weights
    both = shown(tutor.formula.exp_values(np.stack((s[i], s[:, j]))))     # (2, n) e^s of row i and column j, as shown
    hand = tutor.formula.softmax_from_exps(both)                          # (2, n) row i softmax; column j normalised (the mistake)
    exps, weights = both[0], hand[0]
    n_right, n_col, n_prop, n_s = _nums((hand[0, j], hand[1, i], prop[i, j], s[i, j]), 3)
    if (num(right_r.weights[i, j]), num(col_r.weights[i, j])) != (n_right, n_col):
        return redraw()                                        # a calculator would give another text than the hints

    stem = (f"次の $X$ で素朴な Self-Attention を計算する（$S = XX^\\top$、$A = \\mathrm{{softmax}}(S)$ を行ごとに）。"
            f"「{t[i]}」が「{t[j]}」に向ける重み $A_{{{i + 1}{j + 1}}}${BEST}"
            f"必要なら {_exp_hint(s[i])} を使ってよい。\n\n" + _x_block(p))
    notes = (
        mc("列方向の softmax", f"行 {i + 1} ではなく列 {j + 1} の中で正規化すると {n_col} になり、各クエリの重みの和が 1 にならない。"),
        mc("exp の付け忘れ", f"スコアを $e^s$ にせずそのまま行の和で割る比例配分にすると {n_prop} になる。"),
        mc("softmax の省略", f"スコア $S_{{{i + 1}{j + 1}}} = {n_s}$ をそのまま重みにした（行の和が 1 にならない）。"),
    )
    expl = (f"行 {i + 1} のスコアは ${tex_vec(s[i])}$。softmax は行ごとに $e^s$ をとって和で割るので、"
            f"$A_{{{i + 1}{j + 1}}} = $ {_softmax_text(s[i], j, exps, weights[j])}。")
    return draft(n_right, (n_col, n_prop, n_s), stem, notes, expl)


# ---------------------------------------------------------------------------
@calc_generator("naive.output", "naive", _params)
def _output(p: dict) -> Draft:
    """An element of the output Z = A X, from the row of A as the stem shows it (3 places).

    Only draws where a calculator gives the same text are kept: Σ_k A_ik X_kc with the exact
    weights (tutor.naive.naive_attention_variants) rounds to the sum from the shown weights, for the
    answer and for the column-softmax slip."""
    x, t, i, c = p["x"], p["tokens"], p["i"], p["c"]
    right, col_r = tutor.naive.naive_attention_variants(x, (None, "column_softmax"))
    column = x[:, c]                                           # (n,) the column of X that is summed
    rows = shown(np.stack((right.weights[i], col_r.weights[i], right.scores[i])))   # (3, n) as rounded in the stem
    a_row, col_row = rows[0], rows[1]                          # right weights; column-softmax weights; raw S row
    own = tutor.attention(x, x, x, mask=_EYE).output   # each token sees only itself
    n_right, n_col, n_raw, n_own = _nums([*tutor.weighted_sum(rows, column, normalised=False).tolist(), own[i, c]], 3)   # S X for raw
    if (num(right.output[i, c]), num(col_r.output[i, c])) != (n_right, n_col):
        return redraw()                                        # exact and shown weights would disagree

    stem = (f"次の $X$ で素朴な Self-Attention の出力 $Z = AX$（$A = \\mathrm{{softmax}}(XX^\\top)$）を求める。"
            f"「{t[i]}」の出力ベクトルの第 {c + 1} 成分 $Z_{{{i + 1}{c + 1}}}${BEST}"
            f"重み $A$ の第 {i + 1} 行は小数第 3 位までで ${tex_vec(a_row)}$ である（この値を使って計算すること）。\n\n"
            + _x_block(p))
    notes = (
        mc("softmax の省略", f"正規化していないスコア $S$ でそのまま $SX$ を計算すると {n_raw} になる。"),
        mc("列方向の softmax", f"列ごとに正規化した重み ${tex_vec(col_row)}$ で加重和をとると {n_col} になる。"),
        mc("自分だけを見ると誤解", f"「{t[i]}」が自分自身だけを見る（重みが自分に 1）と考え、自分の埋め込みの成分 {n_own} をそのまま答えた。"),
    )
    expl = (f"出力は $X$ の第 {c + 1} 列 ${tex_vec(column)}$ を重み ${tex_vec(a_row)}$ で足し合わせたもの："
            f"$Z_{{{i + 1}{c + 1}}} = \\sum_k A_{{{i + 1}k}} X_{{k{c + 1}}} = {_sum_text(a_row, column)} = {n_right}$。")
    return draft(n_right, (n_raw, n_col, n_own), stem, notes, expl)


# ---------------------------------------------------------------------------
@calc_generator("naive.chain_blank", "naive", _params)
def _chain_blank(p: dict) -> Draft:
    """(ア) S_ij, (イ) A_ij, (ウ) Z_ic along one naive-attention calculation, by hand: the weights from
    the e^s of the hint (3 places), the output from the weights rounded to 3 places.

    Only draws where a calculator gives the same texts are kept (the weights and the output computed
    exactly, or from the exact weights rounded to 3 places, round to the numbers of the hand
    calculation), for the answer and for each slip. The choices: a named score slip in (ア) alone, a
    softmax slip (column softmax or no e^) in (イ)(ウ), and both."""
    x, t, i, j, c = p["x"], p["tokens"], p["i"], p["j"], p["c"]
    right_r, col_r, prop_r = tutor.naive.naive_attention_variants(x, (None, "column_softmax", "no_exp"))
    s = right_r.scores
    column = x[:, c]
    exps_all = shown(tutor.formula.exp_values(s))                         # (n, n) e^S as a learner rounds them
    exps = exps_all[i]
    weights = tutor.formula.softmax_from_exps(exps)                       # (n,) row i
    col_weights = tutor.formula.softmax_from_exps(exps_all, axis=0)[i]    # column softmax (the mistake), row i
    texts_ = {}
    for mistake, hand, r in ((None, weights, right_r), ("column_softmax", col_weights, col_r), ("no_exp", prop_r.weights[i], prop_r)):
        pencil = (num(hand[j]), num(tutor.weighted_sum(shown(hand), column, normalised=False)))
        calculator = {(num(r.weights[i, j]), num(r.output[i, c])),
                      (num(r.weights[i, j]), num(tutor.weighted_sum(shown(r.weights[i]), column, normalised=False)))}
        if calculator != {pencil}:
            if mistake is None:
                return redraw()                                # the answer would depend on the rounding
            continue                                           # this slip would be ambiguous: not offered
        texts_[mistake] = pencil
    c_right = (num(s[i, j]), *texts_[None])
    # (ア) mistaken: the first of these named score slips that gives another number than S_ij
    gram = tutor.qkv.score_table(x.T, x.T)                            # Xᵀ X (d, d): features, not tokens
    score_slips = (
        (gram[i, j], "XᵀX との混同", f"転置を左に掛けた $X^\\top X$ の ({i + 1},{j + 1}) 成分（特徴の次元どうしの内積）を（ア）に書いた"),
        (s[i, i], "自分自身とのスコア", f"$x_{{{i + 1}}} \\cdot x_{{{j + 1}}}$ ではなく $x_{{{i + 1}}}$ 自身との内積を（ア）に書いた"),
        (s[j, j], "相手自身とのスコア", f"$x_{{{i + 1}}} \\cdot x_{{{j + 1}}}$ ではなく $x_{{{j + 1}}}$ 自身との内積を（ア）に書いた"),
    )
    wrong_score, score_name, score_why = next((m for m in score_slips if m[0] != s[i, j]), (None, "", ""))
    if wrong_score is None:
        return redraw()
    softmax_slips = {"column_softmax": ("列方向の softmax", f"行 {i + 1} ではなく列 {j + 1} の中で正規化した"),
                     "no_exp": ("exp の付け忘れ", "スコアを $e^s$ にせず行の和で割るだけの比例配分にした")}
    made = next((r for r in (two_slips(c_right, (score_name, score_why, {0: num(wrong_score)}),
                                       (*softmax_slips[m], dict(enumerate(texts_[m], 1))))
                             for m in softmax_slips if m in texts_) if r is not None), None)
    if made is None:
        return redraw()
    wrong, notes = made

    stem = (f"{BLANK}\n\n次の $X$ で素朴な Self-Attention を計算する。「{t[i]}」と「{t[j]}」のスコア $S_{{{i + 1}{j + 1}}}$ は（ア）、"
            f"softmax を行ごとにかけた重み $A_{{{i + 1}{j + 1}}}$ は（イ）、出力 $Z = AX$ の成分 $Z_{{{i + 1}{c + 1}}}$ は（ウ）である"
            f"（重みは小数第 3 位まで求めてから使う）。必要なら {_exp_hint(s[i])} を使ってよい。\n\n" + _x_block(p))
    w_shown = shown(weights)
    expl = (f"（ア）$S_{{{i + 1}{j + 1}}} = x_{{{i + 1}}} \\cdot x_{{{j + 1}}} = {c_right[0]}$。"
            f"（イ）行 {i + 1} のスコア ${tex_vec(s[i])}$ に softmax をかけて {_softmax_text(s[i], j, exps, weights[j])}。"
            f"（ウ）重み ${tex_vec(w_shown)}$ で $X$ の第 {c + 1} 列 ${tex_vec(column)}$ を足し合わせて "
            f"${_sum_text(w_shown, column)} = {c_right[2]}$。電卓で丸めずに計算しても同じ値になる。")
    return draft(blank(*c_right), wrong, stem, notes, expl)
