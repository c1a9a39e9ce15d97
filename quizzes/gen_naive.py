"""① 素朴なAttention: S = X Xᵀ, A = softmax(S), Z = A X — calculation questions.

Inputs: a 3 × 4 matrix of 0/1 embeddings (every row non-zero), three token labels.
Answers and distractors: tutor.quizmath.naive_attention_variants (tutor.naive_attention and
naive_attention_mistake for one X at once).
"""
from __future__ import annotations

import numpy as np

import tutor
from tutor import quizmath as qm

from .calc import BEST, BLANK, TOKEN_SETS, _nums, blank, calc_generator, mc, num, pick, sample, tex_mat, tex_vec
from .core import LazyDraft

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
    exps = qm.exp_values(vals)
    return "、".join(f"$e^{{{v}}} \\approx {num(e)}$" for v, e in zip(vals, exps))


def _softmax_text(row, j: int, weight) -> str:
    """e^{s_j} / (Σ e^s) = … ≈ A_ij for one score row (nothing masked) and its weight A_ij from the
    engine's softmax: the e^s a learner writes down (no max subtracted) from qm.exp_values and their
    sum from tutor.row_sums — the very exps / denominators of tutor.masked_softmax_steps with an
    all-True mask (S + 0 = S), without its mask checks (tested against it)."""
    exps = qm.exp_values(row)                                  # (n,) e^s
    e = _nums(exps.tolist(), 3)                                # num() of each e^s
    return (f"$e^{{{num(row[j])}}} / ({' + '.join(e)}) = "
            f"{e[j]} / {num(tutor.row_sums(exps))} \\approx {num(weight)}$")


# ---------------------------------------------------------------------------
def _params_score(rng: np.random.Generator) -> dict:
    return _params(rng, high=3)     # entries 0 … 2: more varied scores for a score question


@calc_generator("naive.score_element", "naive", _params_score)
def _score_element(p: dict) -> LazyDraft:
    """An element of S = X Xᵀ."""
    x, t, i, j = p["x"], p["tokens"], p["i"], p["j"]
    right, gram_r = qm.naive_attention_variants(x, (None, "gram_transposed"))   # X checked, S = X Xᵀ once
    gram = gram_r.scores
    s = right.scores
    n_gram, n_self, n_weight = num(gram[i, j]), num(s[i, i]), num(right.weights[i, j])

    def texts():
        stem = (f"素朴な Self-Attention では、埋め込み行列 $X$（1 行が 1 トークン）からスコア $S = XX^\\top$ を作る。"
                f"次の $X$ について、$S_{{{i + 1}{j + 1}}}$（「{t[i]}」から「{t[j]}」へのスコア）{BEST}\n\n" + _x_block(p))
        notes = (
            mc("XᵀX との混同", f"転置を左に掛けた $X^\\top X$ はトークンどうしではなく特徴の次元どうしの内積で、その ({i + 1},{j + 1}) 成分は {n_gram} になる。"),
            mc("自分自身とのスコア", f"$x_{{{i + 1}}}$ と $x_{{{j + 1}}}$ ではなく $x_{{{i + 1}}}$ 自身との内積を計算すると {n_self} になる。"),
            mc("スコアと重みの混同", f"softmax の後の重み $A_{{{i + 1}{j + 1}}} \\approx {n_weight}$ を答えたが、問われているのは softmax 前のスコア。"),
        )
        expl = (f"$S_{{{i + 1}{j + 1}}}$ は「{t[i]}」の行 ${tex_vec(x[i])}$ と「{t[j]}」の行 ${tex_vec(x[j])}$ の内積で、"
                f"同じ位置どうしを掛けて足すと {num(s[i, j])}。$S$ は対称なので $S_{{{j + 1}{i + 1}}}$ も {num(s[j, i])} になる。")
        return stem, notes, expl

    return LazyDraft(num(s[i, j]), (n_gram, n_self, n_weight), texts)


# ---------------------------------------------------------------------------
def _params_weight(rng: np.random.Generator) -> dict:
    """Like _params, redrawn until S_ij ≠ 0 (a zero score would make two distractors coincide)."""
    while True:
        p = _params(rng)
        if qm.score_table(p["x"], p["x"])[p["i"], p["j"]] != 0:     # S = X Xᵀ, as in tutor.naive_attention
            return p


@calc_generator("naive.weight", "naive", _params_weight)
def _weight(p: dict) -> LazyDraft:
    """An attention weight A_ij = softmax(S)_ij of naive self-attention."""
    x, t, i, j = p["x"], p["tokens"], p["i"], p["j"]
    right, col_r, prop_r = qm.naive_attention_variants(x, (None, "column_softmax", "no_exp"))
    col, prop = col_r.weights, prop_r.weights
    s = right.scores
    n_col, n_prop, n_s = num(col[i, j]), num(prop[i, j]), num(s[i, j])

    def texts():
        stem = (f"次の $X$ で素朴な Self-Attention を計算する（$S = XX^\\top$、$A = \\mathrm{{softmax}}(S)$ を行ごとに）。"
                f"「{t[i]}」が「{t[j]}」に向ける重み $A_{{{i + 1}{j + 1}}}${BEST}"
                f"必要なら {_exp_hint(s[i])} を使ってよい。\n\n" + _x_block(p))
        notes = (
            mc("列方向の softmax", f"行 {i + 1} ではなく列 {j + 1} の中で正規化すると {n_col} になり、各クエリの重みの和が 1 にならない。"),
            mc("exp の付け忘れ", f"スコアを $e^s$ にせずそのまま行の和で割る比例配分にすると {n_prop} になる。"),
            mc("softmax の省略", f"スコア $S_{{{i + 1}{j + 1}}} = {n_s}$ をそのまま重みにした（行の和が 1 にならない）。"),
        )
        expl = (f"行 {i + 1} のスコアは ${tex_vec(s[i])}$。softmax は行ごとに $e^s$ をとって和で割るので、"
                f"$A_{{{i + 1}{j + 1}}} = $ {_softmax_text(s[i], j, right.weights[i, j])}。")
        return stem, notes, expl

    return LazyDraft(num(right.weights[i, j]), (n_col, n_prop, n_s), texts)


# ---------------------------------------------------------------------------
@calc_generator("naive.output", "naive", _params)
def _output(p: dict) -> LazyDraft:
    """An element of the output Z = A X."""
    x, t, i, c = p["x"], p["tokens"], p["i"], p["c"]
    right, raw_r, col_r = qm.naive_attention_variants(x, (None, "no_softmax", "column_softmax"))
    raw, col = raw_r.output, col_r.output
    own = tutor.attention(x, x, x, mask=_EYE).output   # each token sees only itself
    a = right.weights
    n_raw, n_col, n_own, n_right = num(raw[i, c]), num(col[i, c]), num(own[i, c]), num(right.output[i, c])

    def texts():
        stem = (f"次の $X$ で素朴な Self-Attention の出力 $Z = AX$（$A = \\mathrm{{softmax}}(XX^\\top)$）を求める。"
                f"「{t[i]}」の出力ベクトルの第 {c + 1} 成分 $Z_{{{i + 1}{c + 1}}}${BEST}"
                f"重み $A$ の第 {i + 1} 行は ${tex_vec(a[i])}$（小数第 3 位まで）である。\n\n" + _x_block(p))
        notes = (
            mc("softmax の省略", f"正規化していないスコア $S$ でそのまま $SX$ を計算すると {n_raw} になる。"),
            mc("列方向の softmax", f"列ごとに正規化した重みで加重和をとると {n_col} になる。"),
            mc("自分だけを見ると誤解", f"「{t[i]}」が自分自身だけを見る（重みが自分に 1）と考え、自分の埋め込みの成分 {n_own} をそのまま答えた。"),
        )
        expl = (f"出力は $X$ の第 {c + 1} 列 ${tex_vec(x[:, c])}$ を重み ${tex_vec(a[i])}$ で足し合わせたもの："
                f"$Z_{{{i + 1}{c + 1}}} = \\sum_k A_{{{i + 1}k}} X_{{k{c + 1}}} \\approx {n_right}$。")
        return stem, notes, expl

    return LazyDraft(n_right, (n_raw, n_col, n_own), texts)


# ---------------------------------------------------------------------------
@calc_generator("naive.chain_blank", "naive", _params)
def _chain_blank(p: dict) -> LazyDraft:
    """(ア) S_ij, (イ) A_ij, (ウ) Z_ic along one naive-attention calculation."""
    x, t, i, j, c = p["x"], p["tokens"], p["i"], p["j"], p["c"]
    right, col, prop, raw = qm.naive_attention_variants(x, (None, "column_softmax", "no_exp", "no_softmax"))

    def chain(r) -> tuple[str, str, str]:
        return num(r.scores[i, j]), num(r.weights[i, j]), num(r.output[i, c])

    c_right, c_col, c_prop, c_raw = chain(right), chain(col), chain(prop), chain(raw)

    def texts():
        stem = (f"{BLANK}\n\n次の $X$ で素朴な Self-Attention を計算する。「{t[i]}」と「{t[j]}」のスコア $S_{{{i + 1}{j + 1}}}$ は（ア）、"
                f"softmax を行ごとにかけた重み $A_{{{i + 1}{j + 1}}}$ は（イ）、出力 $Z = AX$ の成分 $Z_{{{i + 1}{c + 1}}}$ は（ウ）である。"
                f"必要なら {_exp_hint(right.scores[i])} を使ってよい。\n\n" + _x_block(p))
        notes = (
            mc("列方向の softmax", f"列 {j + 1} の中で正規化したため、（イ）が {c_col[1]}、（ウ）が {c_col[2]} になった。"),
            mc("exp の付け忘れ", f"スコアを行の和で割るだけの比例配分にしたため、（イ）が {c_prop[1]} になった。"),
            mc("softmax の省略", f"スコアをそのまま重みに使ったため、（イ）が {c_raw[1]}、（ウ）が {c_raw[2]} になった。"),
        )
        expl = (f"（ア）$S_{{{i + 1}{j + 1}}} = x_{{{i + 1}}} \\cdot x_{{{j + 1}}} = {c_right[0]}$。"
                f"（イ）行 {i + 1} のスコア ${tex_vec(right.scores[i])}$ に softmax をかけて {c_right[1]}。"
                f"（ウ）重み ${tex_vec(right.weights[i])}$ で $X$ の第 {c + 1} 列を足し合わせて {c_right[2]}。")
        return stem, notes, expl

    return LazyDraft(blank(*c_right), (blank(*c_col), blank(*c_prop), blank(*c_raw)), texts)
