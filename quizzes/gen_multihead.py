"""⑤ Multi-Head Attention: d_k = d_model / h, Concat(head_1 … head_h) W_O, parameter counts.

Inputs: d_model = h · d_k from small tables; per-head outputs and a 0/1 W_O for one token.
Answers: tutor.head_dim, tutor.multihead.mha_param_count, Concat · W_O (tutor.multihead.combine_heads_variants,
= tutor.multihead.combine_heads); distractors: tutor.multihead (head_dim_mistake, concat_width,
mha_param_count_mistake, combine_heads_variants).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

import tutor

from .calc import BEST, BLANK, WORST, blank, calc_generator, draft, mc, num, pick, tex_mat, tex_rows, tex_vec, tnum, two_slips
from .core import Draft

HEAD_DIMS = (8, 16, 32, 48, 64, 96, 128)
HEADS = (2, 4, 6, 8, 12, 16)
MODEL_DIMS = (64, 128, 256, 384, 512, 768, 1024)


def _params_dims(rng: np.random.Generator) -> dict:
    d_k = pick(rng, HEAD_DIMS)
    h = pick(rng, HEADS)
    return {"d_model": d_k * h, "h": h}


def _dm(d_model: int, h: int) -> str:
    return f"$d_{{\\text{{model}}}} = {tnum(d_model)}$、ヘッド数 $h = {h}$"


# ---------------------------------------------------------------------------
@calc_generator("multihead.head_dim", "multihead", _params_dims)
def _head_dim(p: dict) -> Draft:
    """d_k = d_model / h."""
    d_model, h = p["d_model"], p["h"]
    dm = tnum(d_model)                                   # d_model as written in math: 1{,}152
    d_k = tutor.head_dim(d_model, h)
    stem = (f"{_dm(d_model, h)} の Multi-Head Attention で、各ヘッドのクエリ・キーの次元 $d_k$ "
            f"（論文と同じく $d_k = d_v$ とし、全ヘッドの次元の合計が $d_{{\\text{{model}}}}$ になるように分ける）{BEST}")
    wrong = (
        (num(tutor.multihead.head_dim_mistake(d_model, h, "no_split")), mc("分割の見落とし", f"各ヘッドが $d_{{\\text{{model}}}} = {dm}$ 次元をまるごと持つと考えた。")),
        (num(tutor.multihead.head_dim_mistake(d_model, h, "multiplied")), mc("割り算と掛け算の取り違え", f"$d_{{\\text{{model}}}} \\times h = {tnum(tutor.multihead.head_dim_mistake(d_model, h, 'multiplied'))}$ と掛けてしまった。")),
        (num(tutor.multihead.head_dim_mistake(d_model, h, "swapped")), mc("ヘッド数と次元の取り違え", f"ヘッドの数 $h = {h}$ をヘッドあたりの次元と読み違えた。")),
    )
    expl = (f"$d_{{\\text{{model}}}}$ 次元を $h$ 個のヘッドで分け合うので $d_k = d_{{\\text{{model}}}}/h = {dm}/{h} = {d_k}$。"
            f"連結すると $h \\cdot d_k = {tnum(tutor.multihead.concat_width(d_model, h))}$ 次元に戻る。")
    return Draft(stem, num(d_k), wrong, expl)


# ---------------------------------------------------------------------------
def _params_count(rng: np.random.Generator) -> dict:
    d_model = pick(rng, MODEL_DIMS)
    h = pick(rng, [x for x in (4, 8, 16) if d_model % x == 0])
    return {"d_model": d_model, "h": h, "bias": bool(rng.integers(2))}


@calc_generator("multihead.param_count", "multihead", _params_count)
def _param_count(p: dict) -> Draft:
    """Parameters of W_Q, W_K, W_V, W_O (optionally with biases)."""
    d_model, h, bias = p["d_model"], p["h"], p["bias"]
    dm = tnum(d_model)                                   # d_model as written in math: 1{,}152
    right = tutor.multihead.mha_param_count(d_model, bias=bias)

    @lru_cache(maxsize=None)  # each mistake computed once per question
    def count(mistake):
        return tutor.multihead.mha_param_count_mistake(d_model, h, mistake, bias=bias)

    b_text = "バイアスも含めた" if bias else "バイアスを除いた"
    stem = (f"{_dm(d_model, h)} の Multi-Head Attention 1 層で、射影 $W_Q, W_K, W_V, W_O$（すべて "
            f"${dm} \\times {dm}$ 相当）の{b_text}パラメータ数{BEST}")
    wrong = [
        (num(count("no_w_o")), mc("W_O の数え忘れ", f"$W_Q, W_K, W_V$ の 3 つだけを数えると {num(count('no_w_o'))} になる。")),
        (num(count("per_head_full")), mc("ヘッドごとに全行列があると誤解", f"各ヘッドが ${dm} \\times {dm}$ の行列を 4 つずつ持つと考え、{h} 倍の {num(count('per_head_full'))} にした。")),
    ]
    if bias:
        wrong.append((num(count("no_bias")), mc("バイアスの数え忘れ", f"変換行列 4 つ分の {num(count('no_bias'))} だけを数え、バイアス $4 d_{{\\text{{model}}}}$ を足し忘れた。")))
    else:
        wrong.append((num(count("one_matrix")), mc("4 つの行列の見落とし", f"${dm} \\times {dm}$ の行列 1 つ分 {num(count('one_matrix'))} だけを数えた。")))
    expl = (f"4 つの行列はどれも ${dm} \\times {dm}$ なので $4 \\times {dm}^2$"
            + (f"、バイアス $4 \\times {dm}$ を足して" if bias else "")
            + f" $= {tnum(right)}$。ヘッドに分けても列を分け合うだけなので、ヘッド数 $h = {h}$ によらない。")
    return Draft(stem, num(right), tuple(wrong), expl)


# ---------------------------------------------------------------------------
def _params_combine(rng: np.random.Generator) -> dict:
    heads = rng.integers(0, 4, size=(2, 2)).tolist()             # (h = 2, d_v = 2): one token
    while heads[0] == heads[1]:                                  # equal heads hide the order mistake
        heads = rng.integers(0, 4, size=(2, 2)).tolist()
    w_o = rng.integers(-1, 3, size=(4, 4)).astype(float)         # (h·d_v, d_model)
    return {"heads": np.array(heads, dtype=float), "w_o": w_o, "c": int(rng.integers(4))}


@calc_generator("multihead.combine", "multihead", _params_combine)
def _combine(p: dict) -> Draft:
    """One element of Concat(head_1, head_2) · W_O for one token."""
    heads, w_o, c = p["heads"], p["w_o"], p["c"]
    right, concat, reversed_, transposed = tutor.multihead.combine_heads_variants(heads, w_o)   # (1, ·) each; checked once
    n_no_w_o, n_reversed, n_transposed = num(concat[0, c]), num(reversed_[0, c]), num(transposed[0, c])
    n_right = num(right[0, c])

    head_1, head_2 = tex_rows(heads)
    concat_text = tex_vec(concat[0])
    stem = (f"2 ヘッドの Multi-Head Attention で、あるトークンのヘッド 1 の出力が ${head_1}$、"
            f"ヘッド 2 の出力が ${head_2}$ だった。$\\mathrm{{Concat}}(\\text{{head}}_1, \\text{{head}}_2)\\,W_O$ の"
            f"第 {c + 1} 成分{BEST}\n\n$$W_O = {tex_mat(w_o)}$$")
    notes = (
        mc("W_O の掛け忘れ", f"連結したベクトル ${concat_text}$ の第 {c + 1} 成分をそのまま答えた。"),
        mc("連結順の取り違え", f"ヘッド 2、ヘッド 1 の順に並べてから $W_O$ を掛けると {n_reversed} になる。"),
        mc("W_O の行と列の取り違え", f"$W_O$ の第 {c + 1} 列ではなく第 {c + 1} 行との内積をとると {n_transposed} になる。"),
    )
    expl = (f"連結すると ${concat_text}$。これと $W_O$ の第 {c + 1} 列 ${tex_vec(w_o[:, c])}$ の内積で "
            f"{n_right}。$W_O$ は各ヘッドの結果を混ぜ合わせて $d_{{\\text{{model}}}}$ 次元に戻す。")
    return draft(n_right, (n_no_w_o, n_reversed, n_transposed), stem, notes, expl)


# ---------------------------------------------------------------------------
@calc_generator("multihead.sizes_blank", "multihead", _params_dims)
def _sizes_blank(p: dict) -> Draft:
    """(ア) d_k, (イ) concat width, (ウ) parameter count without biases."""
    d_model, h = p["d_model"], p["h"]
    dm = tnum(d_model)                                   # d_model as written in math: 1{,}152
    d_k = tutor.head_dim(d_model, h)
    width = tutor.multihead.concat_width(d_model, h)
    params = tutor.multihead.mha_param_count(d_model)
    stem = (f"{BLANK}\n\n{_dm(d_model, h)} の Multi-Head Attention では、各ヘッドの次元は $d_k = d_v =$（ア）である。"
            f"$h$ 個のヘッドの出力を連結したベクトルの次元は（イ）で、$W_Q, W_K, W_V, W_O$ のバイアスを除いた"
            f"パラメータ数は（ウ）である。")
    no_split = (tutor.multihead.head_dim_mistake(d_model, h, "no_split"), tutor.multihead.concat_width(d_model, h, "no_split"))
    one = tutor.multihead.mha_param_count_mistake(d_model, h, "one_matrix")
    right = (num(d_k), num(width), num(params))
    wrong, notes = two_slips(
        right,
        ("分割の見落とし", f"各ヘッドが {dm} 次元をまるごと持つと考え、$h = {h}$ 個を連結した幅も {h} 倍に膨らませた",
         {0: num(no_split[0]), 1: num(no_split[1])}),
        ("4 つの行列の見落とし", f"$W_Q, W_K, W_V, W_O$ のうち ${dm} \\times {dm}$ の行列 1 つ分だけを数えた",
         {2: num(one)}))
    expl = (f"（ア）$d_k = {dm}/{h} = {d_k}$。（イ）$h \\cdot d_v = {h} \\times {d_k} = {tnum(width)}$ で $d_{{\\text{{model}}}}$ に戻る。"
            f"（ウ）$4 \\times {dm}^2 = {tnum(params)}$ で、ヘッド数によらない。")
    return draft(blank(*right), wrong, stem, notes, expl)


# ---------------------------------------------------------------------------
def _params_worst(rng: np.random.Generator) -> dict:
    p = _params_dims(rng)
    options = [x for x in HEADS if x != p["h"] and p["d_model"] % x == 0]
    p["h2"] = pick(rng, options)
    return p


@calc_generator("multihead.heads_worst", "multihead", _params_worst)
def _heads_worst(p: dict) -> Draft:
    """What changes when the number of heads changes (d_model fixed): the wrong statement."""
    d_model, h, h2 = p["d_model"], p["h"], p["h2"]
    dm = tnum(d_model)                                   # d_model as written in math: 1{,}152
    d_k, d_k2 = tutor.head_dim(d_model, h), tutor.head_dim(d_model, h2)
    params, params2 = tutor.multihead.mha_param_count(d_model), tutor.multihead.mha_param_count(d_model)
    lie = tutor.multihead.mha_param_count_mistake(d_model, h2, "per_head_full")
    stem = (f"$d_{{\\text{{model}}}} = {dm}$ の Multi-Head Attention で、ヘッド数を $h = {h}$ から $h = {h2}$ に変える"
            f"（$d_k = d_v = d_{{\\text{{model}}}}/h$、バイアスなし）。この変更についての記述{WORST}")
    answer = f"$W_Q, W_K, W_V, W_O$ のパラメータ数は ${tnum(lie)}$ になる。"
    wrong = (
        (f"各ヘッドの次元 $d_k$ は {d_k} から {d_k2} になる。",
         mc("正しい記述（ヘッドの次元）", f"$d_k = {dm}/h$ なので、$h = {h2}$ では確かに {d_k2}。")),
        (f"ヘッドの出力を連結した幅は {num(tutor.multihead.concat_width(d_model, h2))} のまま変わらない。",
         mc("正しい記述（連結幅）", f"$h \\cdot d_k = {h2} \\times {d_k2} = {tnum(tutor.multihead.concat_width(d_model, h2))}$ で、常に $d_{{\\text{{model}}}}$ に戻る。")),
        (f"$h = {h}$ のときのパラメータ数は ${tnum(params)}$ である。",
         mc("正しい記述（パラメータ数）", f"$4 \\times {dm}^2 = {tnum(params)}$ で正しい。")),
    )
    expl = (f"ヘッドごとに全行列を持つと考える誤り：ヘッドは $d_{{\\text{{model}}}}$ 個の列を分け合うだけなので、"
            f"パラメータ数はヘッド数によらず $4 \\times {dm}^2 = {tnum(params2)}$ のまま。"
            f"${tnum(lie)}$ は各ヘッドが ${dm} \\times {dm}$ の行列を 4 つずつ持つとした値。")
    return Draft(stem, answer, wrong, expl)
