"""② Q・K・V: projections Q = X W_Q, K = X W_K, V = X W_V and the score table Q Kᵀ.

Inputs: 3 × 4 embeddings of 0/1 (rows non-zero), 4 × 2 weights with entries −1 … 2.
Answers and distractors: tutor.project_qkv, tutor.qkv.score_table (Q Kᵀ, the K Qᵀ mix-up,
the naive X Xᵀ, Q Qᵀ — score tables alone, as the first step of tutor.attention).
"""
from __future__ import annotations

import numpy as np

import tutor

from .calc import BEST, BLANK, TOKEN_SETS, blank, calc_generator, draft, math_lines, mc, num, sample, tex_mat, two_slips, vec
from .core import Draft
from .gen_naive import _draw_x

N, D_MODEL, D_K = 3, 4, 2
MATS = ("Q", "K", "V")


def _draw_w(rng: np.random.Generator, count: int = 1) -> np.ndarray:
    """count weight matrices (count, d_model, d_k) in one call: the same numbers, in the same
    order, as count calls of rng.integers(-1, 3, size=(d_model, d_k))."""
    return rng.integers(-1, 3, size=(count, D_MODEL, D_K)).astype(float)


def _params(rng: np.random.Generator) -> dict:
    x = _draw_x(rng)
    w = dict(zip(MATS, _draw_w(rng, len(MATS))))
    tokens = TOKEN_SETS[int(rng.integers(len(TOKEN_SETS)))]
    i, j = sample(rng, N, 2)
    which = MATS[int(rng.integers(3))]
    return {"x": x, "w_q": w["Q"], "w_k": w["K"], "w_v": w["V"], "tokens": tokens, "i": i, "j": j, "which": which}


def _qkv(p: dict) -> tutor.QKV:
    return tutor.project_qkv(p["x"], p["w_q"], p["w_k"], p["w_v"])


# ---------------------------------------------------------------------------
@calc_generator("qkv.projection", "qkv", _params)
def _projection(p: dict) -> Draft:
    """One row of Q, K or V."""
    x, t, i, j, m = p["x"], p["tokens"], p["i"], p["j"], p["which"]
    r = _qkv(p)
    rows = {"Q": r.q, "K": r.k, "V": r.v}
    roles = {"Q": "クエリ", "K": "キー", "V": "バリュー"}
    w_name = f"W_{m}"
    others = [o for o in MATS if o != m]
    other_rows = [vec(rows[o][i]) for o in others]
    token_row = vec(rows[m][j])
    right = vec(rows[m][i])

    stem = (f"埋め込み $X$（1 行が 1 トークン）に変換行列を右から掛けて、クエリ・キー・バリューを作る。"
            f"次の $X$ と変換行列について、「{t[i]}」の{roles[m]} ${m.lower()}_{{{i + 1}}}$（${m} = X{w_name}$ の第 {i + 1} 行）{BEST}\n\n"
            + math_lines(f"X = {tex_mat(x)}", f"W_Q = {tex_mat(p['w_q'])}", f"W_K = {tex_mat(p['w_k'])}",
                         f"W_V = {tex_mat(p['w_v'])}") + "\n\n"
            f"（$X$ の行の順に {'・'.join(t)}）")
    notes = tuple(
        mc("変換行列の取り違え", f"$W_{m}$ の代わりに $W_{o}$ を掛けると、{roles[o]}の行 {text} になる。")
        for o, text in zip(others, other_rows)
    ) + (mc("トークンの行の取り違え", f"「{t[i]}」ではなく「{t[j]}」の行 $x_{{{j + 1}}}$ に $W_{m}$ を掛けると {token_row} になる。"),)
    expl = (f"${m.lower()}_{{{i + 1}}} = x_{{{i + 1}}} W_{m}$：「{t[i]}」の行 {vec(x[i])} と $W_{m}$ の各列の内積をとると "
            f"{right}。同じ $x_{{{i + 1}}}$ でも、掛ける行列が違えばクエリ・キー・バリューは別のベクトルになる。")
    return draft(right, (*other_rows, token_row), stem, notes, expl)


# ---------------------------------------------------------------------------
def _qk_block(p: dict, r: tutor.QKV) -> str:
    return (math_lines(f"X = {tex_mat(p['x'])}", f"Q = XW_Q = {tex_mat(r.q)}", f"K = XW_K = {tex_mat(r.k)}") + "\n\n"
            f"（行の順に {'・'.join(p['tokens'])}）")


def _params_asym(rng: np.random.Generator) -> dict:
    """Like _params, redrawn until the example shows the asymmetry (q_i·k_j ≠ q_j·k_i)."""
    while True:
        p = _params(rng)
        r = _qkv(p)
        s = tutor.qkv.score_table(r.q, r.k)                 # Q Kᵀ
        if s[p["i"], p["j"]] != s[p["j"], p["i"]]:
            return p


def _score_tables(p: dict):
    """Q, K, V and the score tables behind both asymmetry items: right, swapped (K Qᵀ), naive (X Xᵀ), Q Qᵀ."""
    r = _qkv(p)
    right = tutor.qkv.score_table(r.q, r.k)                                  # Q Kᵀ
    swapped = tutor.qkv.score_table(r.q, r.k, mistake="transposed_scores")  # K Qᵀ
    naive = tutor.qkv.score_table(p["x"], p["x"])                            # X Xᵀ, no weights at all
    qq = tutor.qkv.score_table(r.q, r.q)                                     # Q Qᵀ
    return r, right, swapped, naive, qq


@calc_generator("qkv.score_element", "qkv", _params_asym)
def _score_element(p: dict) -> Draft:
    """An element of Q Kᵀ (non-symmetric in general)."""
    t, i, j = p["tokens"], p["i"], p["j"]
    r, right, swapped, naive, qq = _score_tables(p)
    n_swapped, n_naive, n_qq, n_right = num(swapped[i, j]), num(naive[i, j]), num(qq[i, j]), num(right[i, j])

    stem = (f"クエリ $Q$ とキー $K$ が次のとき、スコア表 $QK^\\top$ の ({i + 1},{j + 1}) 成分"
            f"（「{t[i]}」がクエリとして「{t[j]}」のキーを見るときのスコア）{BEST}\n\n" + _qk_block(p, r))
    notes = (
        mc("クエリとキーの取り違え", f"$k_{{{i + 1}}} \\cdot q_{{{j + 1}}}$（$KQ^\\top$ の成分）を計算すると、対称とは限らない $QK^\\top$ では別の値 {n_swapped} になる。"),
        mc("重みを通さない素朴なスコア", f"$W_Q, W_K$ を使わず $XX^\\top$ の成分を計算すると {n_naive} になる。"),
        mc("キーの代わりにクエリ", f"$q_{{{i + 1}}} \\cdot q_{{{j + 1}}}$ とクエリどうしの内積をとると {n_qq} になる。"),
    )
    expl = (f"$(QK^\\top)_{{{i + 1}{j + 1}}} = q_{{{i + 1}}} \\cdot k_{{{j + 1}}}$：{vec(r.q[i])} と {vec(r.k[j])} の内積で "
            f"{n_right}。逆向きの $q_{{{j + 1}}} \\cdot k_{{{i + 1}}}$ は {num(right[j, i])} で、$W_Q \\neq W_K$ のとき両者は一般に等しくない。")
    return draft(n_right, (n_swapped, n_naive, n_qq), stem, notes, expl)


# ---------------------------------------------------------------------------
@calc_generator("qkv.asymmetry_blank", "qkv", _params_asym)
def _asymmetry_blank(p: dict) -> Draft:
    """(ア) q_i·k_j, (イ) q_j·k_i, (ウ) whether Q Kᵀ is symmetric."""
    t, i, j = p["tokens"], p["i"], p["j"]
    r, right, swapped, naive, qq = _score_tables(p)
    not_sym, sym = "対称とは限らない", "常に対称である"
    sw, na, q2, ri = ((num(s[i, j]), num(s[j, i])) for s in (swapped, naive, qq, right))

    stem = (f"{BLANK}\n\n次の $Q, K$ で、「{t[i]}」から「{t[j]}」へのスコア $q_{{{i + 1}}} \\cdot k_{{{j + 1}}}$ は（ア）、"
            f"「{t[j]}」から「{t[i]}」へのスコア $q_{{{j + 1}}} \\cdot k_{{{i + 1}}}$ は（イ）である。"
            f"このように、スコア表 $QK^\\top$ は（ウ）。\n\n" + _qk_block(p, r))
    wrong, notes = two_slips(
        (*ri, not_sym),
        ("クエリとキーの取り違え", "$q$ と $k$ を入れ替えて $k \\cdot q$ を計算した", {0: sw[0], 1: sw[1]}),
        ("重みを通さない素朴なスコアとの混同", f"$XX^\\top$（両方 {na[0]} の対称な表）と同じだと考えた"
         f"（$W_Q \\neq W_K$ なら $QK^\\top$ は対称とは限らない）", {2: sym}))
    expl = (f"（ア）{vec(r.q[i])}·{vec(r.k[j])} = {ri[0]}、（イ）{vec(r.q[j])}·{vec(r.k[i])} = {ri[1]}。"
            f"クエリとキーを別々の行列 $W_Q, W_K$ で作るので、「誰が誰を見るか」は向きによって違い、（ウ）{not_sym}。")
    return draft(blank(*ri, not_sym), wrong, stem, notes, expl)
