"""⑦-2 FFN・残差接続・層正規化: a LayerNorm component, the post-LN output of a residual
block, the FFN parameter count, LayerNorm's mean / spread / output as a blank, and inverted
dropout's output in training and at inference.

Inputs: vectors x = μ + c·pattern with patterns whose population variance is 1, 2 or 5
(so σ is 1, √2 or √5), small integers elsewhere. Answers and distractors:
tutor.block.layer_norm_mistake, tutor.block.residual_block_mistake, tutor.block.ffn_param_count,
tutor.block.swiglu_param_count, tutor.multihead.mha_param_count, tutor.training.dropout_mistake
(dropout is part of the paper's training recipe, tutor/training/recipe.py). Dropout inputs are
multiples of 0.9 (p = 0.1) or 3 (p = 0.25) so that x/(1 − p), x·(1 − p) and x/p all end.
"""
from __future__ import annotations

import numpy as np

import tutor

from .calc import BEST, BLANK, blank, calc_generator, draft, mc, num, pick, tex_vec, vec, two_slips, redraw
from .core import Draft

PATTERNS = ((-3, -1, 1, 3), (-1, -1, 1, 1), (-2, 0, 0, 2), (-2, -2, 2, 2), (-3, -3, 3, 3))


def _nice_vector(rng: np.random.Generator) -> tuple[int, ...]:
    pattern = list(PATTERNS[int(rng.integers(len(PATTERNS)))])
    rng.shuffle(pattern)                              # the very draws of shuffling np.array(pattern), on a list
    mu = int(rng.integers(-2, 5))
    return tuple(mu + v for v in pattern)


def _root_hint(variance: float) -> str:
    """The one square root the stem's numbers need (σ = √2 or √5), or nothing when σ is whole."""
    roots = {2: "（$\\sqrt{2} \\approx 1.414$）", 5: "（$\\sqrt{5} \\approx 2.236$）"}
    return roots.get(round(variance), "")


# ---------------------------------------------------------------------------
def _params_ln(rng: np.random.Generator) -> dict:
    x = _nice_vector(rng)
    other = tuple(rng.integers(-3, 6, size=4).tolist())
    while any(o == v for o, v in zip(other, x)):     # every feature differs between the two examples
        other = tuple(rng.integers(-3, 6, size=4).tolist())
    return {"x": x, "other": other, "j": int(rng.integers(4))}


@calc_generator("block.layer_norm", "block", _params_ln)
def _layer_norm(p: dict) -> Draft:
    """One component of LayerNorm(x) for example 1 of a batch of two."""
    batch = np.array([p["x"], p["other"]], float)
    j = p["j"]
    r = tutor.block.layer_norm_mistakes(batch, 0, (None, "batch", "variance", "rms"))   # one set of steps for all four
    right = r[None]
    choices = (num(right.output[j]), num(r["batch"].output[j]), num(r["variance"].output[j]), num(r["rms"].output[j]))

    stem = (f"ミニバッチに 2 つの例があり、ある層の出力が 例 1 ${tex_vec(p['x'])}$、例 2 ${tex_vec(p['other'])}$ だった。"
            f"例 1 に層正規化（LayerNorm、$\\varepsilon = 0$、$\\gamma = 1$、$\\beta = 0$、分散は $d$ で割る）をかけたときの"
            f"第 {j + 1} 成分{BEST}{_root_hint(r['variance'].spread)}")
    notes = (
        mc("バッチ方向で正規化", "特徴ごとに例 1 と例 2 の 2 つで平均・分散をとった。それはバッチ正規化で、層正規化は 1 つの例の中だけで計算する。"),
        mc("分散で割った", f"標準偏差 {num(right.spread)} ではなく分散 {num(r['variance'].spread)} で割ってしまった。"),
        mc("平均の引き忘れ（RMSNorm との混同）", "平均を引かずに二乗平均平方根で割った。それは RMSNorm の計算である。"),
    )
    expl = (f"例 1 の平均は $\\mu = {num(right.mean)}$、$x - \\mu = {tex_vec(right.centered)}$、"
            f"標準偏差は {num(right.spread)}。よって LayerNorm は ${tex_vec(right.output)}$ で、第 {j + 1} 成分は {num(right.output[j])}。"
            "例 2 の値は使わない。")
    return draft(choices[0], choices[1:], stem, notes, expl)


# ---------------------------------------------------------------------------
def _params_block(rng: np.random.Generator) -> dict:
    s = _nice_vector(rng)
    while True:
        x = rng.integers(-2, 4, size=4).tolist()
        f = [a - b for a, b in zip(s, x)]             # Sublayer(x), chosen so that x + F = s is "nice"
        if len(set(f)) > 1:
            return {"x": tuple(x), "f": tuple(f)}


@calc_generator("block.post_ln", "block", _params_block)
def _post_ln(p: dict) -> Draft:
    """Post-LN output LayerNorm(x + Sublayer(x))."""
    x, f = np.array(p["x"], float), np.array(p["f"], float)
    r = tutor.block.residual_block_mistakes(x, f)                  # the right output and every mistake at once
    choices = (vec(r[None]), vec(r["no_residual"]), vec(r["no_norm"]), vec(r["norm_sublayer_only"]))
    s = tutor.block.residual(x, f)
    st = tutor.block.layer_norm_steps(s, eps=0.0)

    stem = (f"原論文の Transformer のサブレイヤー（Post-LN：$\\mathrm{{LayerNorm}}(x + \\mathrm{{Sublayer}}(x))$）で、"
            f"入力が $x = {tex_vec(p['x'])}$、サブレイヤーの出力が $\\mathrm{{Sublayer}}(x) = {tex_vec(p['f'])}$ だった。"
            f"このサブレイヤーの出力（$\\varepsilon = 0$、$\\gamma = 1$、$\\beta = 0$、小数第 3 位まで）{BEST}{_root_hint(float(st.var))}")
    notes = (
        mc("残差接続の足し忘れ", "$\\mathrm{Sublayer}(x)$ だけを正規化した。入力 $x$ を足してから正規化する。"),
        mc("層正規化の忘れ", "$x + \\mathrm{Sublayer}(x)$ で止めた。Post-LN では和をさらに LayerNorm に通す（Pre-LN と混同）。"),
        mc("正規化の位置の誤解", "サブレイヤーの出力だけを正規化してから $x$ を足した。正規化するのは和のほうである。"),
    )
    expl = (f"まず残差接続で $x + \\mathrm{{Sublayer}}(x) = {tex_vec(s)}$。平均 {num(st.mean)}、標準偏差 {num(st.std)} で"
            f"正規化して {choices[0]}。")
    return draft(choices[0], choices[1:], stem, notes, expl)


# ---------------------------------------------------------------------------
FFN_DS = (32, 64, 96, 128, 192, 256, 384, 512, 768, 1024)
FFN_MULTS = (3, 4, 8)   # d_ff = 2·d_model would make the no-bias count 2·d·d_ff equal Attention's 4·d² (a redraw)


def _params_ffn(rng: np.random.Generator) -> dict:
    return {"d": pick(rng, FFN_DS), "mult": pick(rng, FFN_MULTS)}


@calc_generator("block.ffn_params", "block", _params_ffn)
def _ffn_params(p: dict) -> Draft:
    """Parameters of the position-wise FFN with biases."""
    d, d_ff = p["d"], p["d"] * p["mult"]
    right = tutor.block.ffn_param_count(d, d_ff)
    choices = (num(right), num(tutor.block.ffn_param_count(d, d_ff, bias=False)), num(tutor.block.swiglu_param_count(d, d_ff)),
               num(tutor.multihead.mha_param_count(d)))

    stem = (f"$d_{{\\text{{model}}}} = {d}$、中間の次元 $d_{{ff}} = {d_ff}$ の位置ごとの全結合層 "
            f"$\\mathrm{{FFN}}(x) = \\mathrm{{ReLU}}(xW_1 + b_1)W_2 + b_2$ のパラメータ数（バイアスを含む）{BEST}")
    notes = (
        mc("バイアスの数え忘れ", f"$b_1$（{d_ff} 個）と $b_2$（{d} 個）を数えなかった。"),
        mc("SwiGLU との混同", "ゲート付きの SwiGLU は行列が 3 つでバイアスがない。この FFN は行列 2 つとバイアス 2 つである。"),
        mc("Attention の変換行列との混同", f"Multi-Head Attention の $W_Q, W_K, W_V, W_O$（$4 d_{{\\text{{model}}}}^2$）を数えた。"),
    )
    expl = (f"$W_1$ は ${d} \\times {d_ff}$、$W_2$ は ${d_ff} \\times {d}$、$b_1$ は {d_ff} 個、$b_2$ は {d} 個。"
            f"合計 {choices[0]}。"
            + ("これは原論文と同じ大きさである。" if (d, d_ff) == (512, 2048)
               else f"原論文（512, 2048）では {num(tutor.block.ffn_param_count(512, 2048))} になる。"))
    return draft(choices[0], choices[1:], stem, notes, expl)


# ---------------------------------------------------------------------------
def _params_blank(rng: np.random.Generator) -> dict:
    x = _nice_vector(rng)
    off_mean = [k for k in range(4) if 4 * x[k] != sum(x)]     # x_j ≠ μ: a component whose output is not 0
    return {"x": x, "j": pick(rng, off_mean)}


@calc_generator("block.ln_blank", "block", _params_blank)
def _ln_blank(p: dict) -> Draft:
    """(ア) the mean, (イ) the standard deviation, (ウ) one LayerNorm output of x."""
    x, j = np.array(p["x"], float)[None, :], p["j"]
    rs = tutor.block.layer_norm_mistakes(x, 0, (None, "variance", "sample"))   # one set of steps for all three
    total = tutor.block.mean_mistake(x[0], "no_divide")

    def spread_output(mistake=None) -> dict:
        r = rs[mistake]
        return {1: num(r.spread), 2: num(r.output[j])}

    right = (num(rs[None].mean), *spread_output().values())
    summed = ("合計と平均の混同", "平均を問われた所に、4 成分を足しただけで要素数 4 で割らない値を書いた（引き算には平均を使った）",
              {0: num(total)})
    slips = (two_slips(right, summed, ("分散と標準偏差の取り違え", "標準偏差ではなく分散（標準偏差の 2 乗）で割った",
                                       spread_output("variance")))
             or two_slips(right, summed, ("標本分散で計算", "分散を要素数 − 1 = 3 で割った（層正規化は要素数 4 で割る母分散）",
                                          spread_output("sample"))))
    if slips is None:
        return redraw()
    wrong, notes = slips

    stem = (f"{BLANK}{_root_hint(rs['variance'].spread)}\n\nベクトル $x = {tex_vec(x[0])}$ に層正規化（$\\varepsilon = 0$、$\\gamma = 1$、$\\beta = 0$）をかける。"
            f"まず平均（ア）を引き、次に標準偏差（イ）（分散は要素数 4 で割る）で割るので、正規化後の第 {j + 1} 成分は（ウ）になる。")
    r = rs[None]
    expl = (f"平均は {num(r.mean)}、各成分から引くと ${tex_vec(r.centered)}$。その 2 乗の平均が分散で、平方根の標準偏差は "
            f"{num(r.spread)}。割ると ${tex_vec(r.output)}$ なので、第 {j + 1} 成分は {num(r.output[j])}。")
    return draft(blank(*right), wrong, stem, notes, expl)


# ---------------------------------------------------------------------------
# dropout as the paper uses it (tutor.training.recipe: inverted dropout)
# ---------------------------------------------------------------------------
DROP_RATES = (0.1, 0.2, 0.25)


def _params_dropout(rng: np.random.Generator) -> dict:
    p = pick(rng, DROP_RATES)
    k = rng.integers(-3, 6, size=4)
    # inputs that make x/(1 − p), x·(1 − p) and x/p end: multiples of 0.9 (p = 0.1) or of 3 (p = 0.25)
    unit = {0.1: 0.9, 0.2: 1.0, 0.25: 3.0}[p]
    n_keep = int(rng.integers(1, 4))                  # 1 … 3 of the 4 kept: something dropped, something kept
    keep = rng.permutation([True] * n_keep + [False] * (4 - n_keep))
    return {"p": p, "x": tuple(float(round(unit * int(v), 10)) for v in k), "keep": tuple(bool(v) for v in keep),
            "training": bool(rng.integers(2))}


@calc_generator("block.dropout", "block", _params_dropout)
def _dropout(p: dict) -> Draft:
    """Inverted dropout's output in training (x ⊙ m / (1 − p)) or at inference (x)."""
    x, keep, rate, training = np.array(p["x"]), np.array(p["keep"]), p["p"], p["training"]
    out = {m: tutor.training.dropout_mistake(x, keep, rate, m, training=training)
           for m in (None,) + (tutor.training.DROPOUT_MISTAKES if training else tutor.training.INFERENCE_MISTAKES)}
    mask = "(" + ",\\ ".join("1" if k else "0" for k in keep) + ")"
    keep_text = num(1 - rate)
    stem = (f"逆ドロップアウト（学習時に、残した値を $1/(1-p)$ 倍する実装）を率 $p = {num(rate)}$ でかける。"
            f"入力は $x = {tex_vec(x)}$ で、ある学習ステップで引かれたマスク（1 = 残す、0 = 落とす）は $m = {mask}$ だった。"
            + ("このステップでのドロップアウトの出力" if training else "学習を終えたモデルで推論するときの、同じ $x$ に対するドロップアウトの層の出力")
            + BEST)
    if training:
        wrong = (
            (vec(out["no_rescale"]), mc("1/(1−p) の掛け忘れ", "落とすだけで、残した値を大きくしなかった。それでは出力の期待値が入力より小さくなる。")),
            (vec(out["times_keep"]), mc("掛けると割るの取り違え", f"残した値に $1 - p = {keep_text}$ を掛けた。期待値をそろえるには $1 - p$ で割る。")),
            (vec(out["divide_by_p"]), mc("p と 1−p の取り違え", f"落とす率 $p = {num(rate)}$ で割った。割るのは残す確率 $1 - p = {keep_text}$ である。")),
        )
        expl = (f"マスクが 0 の成分は 0 にし、1 の成分は $1/(1-p) = 1/{keep_text}$ 倍する。出力は {vec(out[None])}。"
                "こうしておくと出力の期待値が入力 $x$ と等しくなり、推論時には何もしなくてよい。")
    else:
        wrong = (
            (vec(out["shrunk_at_inference"]),
             mc("推論時の縮め方との混同", f"推論時に $1 - p = {keep_text}$ を掛けた。それは学習時に倍率をかけない元の方式のやり方で、逆ドロップアウトでは推論時に何もしない。")),
            (vec(out["scaled_at_inference"]), mc("推論時にも拡大した", "推論時にも $1/(1-p)$ 倍した。倍率は学習時に落とした分を補うためのもので、推論時には掛けない。")),
            (vec(out["dropped_at_inference"]), mc("推論時にも落とした", "推論時にもマスクをかけた。ドロップアウトは学習のときだけ働き、推論では何も落とさない。")),
        )
        expl = (f"逆ドロップアウトは学習時に残した値を $1/(1-p)$ 倍しておくので、推論時は入力をそのまま通す。出力は {vec(out[None])}。"
                "学習のときのマスクは推論に使わない。")
    return Draft(stem, vec(out[None]), wrong, expl)
