"""⑧ 学習で注意が育つ: the softmax derivative, one SGD step on the output bias, the
cross-entropy loss, and the paper's recipe: the warm-up schedule (its peak, the rate at a step)
and label smoothing (the smoothed target, its cross-entropy).

Inputs: scores ln m (so softmax(s) = m/Σm exactly), probabilities in tenths or quarters,
small integer biases. Answers and distractors: tutor.training (softmax_grad_mistakes,
bias_step_mistakes — the right value and every named mistake from one call —, cross_entropy_mistake;
each wrong choice is one named mistake). The recipe's items (tutor.training.recipe): d_model and
warmup with whole square roots, so every rate is an exact fraction (1/1,280); a 5-word vocabulary
(ε/K and ε/(K − 1) both end) and probabilities that are powers of 1/2 (−ln p = whole · ln 2).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

import tutor

from .calc import BEST, BLANK, blank, calc_generator, draft, ln_tex, mc, num, pick, redraw, sample, tex_vec, tnum, two_slips, vec
from .core import Draft


# probability vectors whose −ln is a combination of ln 2 and ln 5
PROB_TEMPLATES = (
    (0.5, 0.25, 0.25),
    (0.8, 0.1, 0.1),
    (0.4, 0.4, 0.2),
    (0.5, 0.4, 0.1),
    (0.5, 0.2, 0.2, 0.1),
    (0.4, 0.2, 0.2, 0.2),
    (0.25, 0.25, 0.4, 0.1),
)
LEARNING_RATES = (0.1, 0.2, 0.5, 2.0)


def _s(i: int) -> str:
    return f"s_{{{i + 1}}}"


# ---------------------------------------------------------------------------
def _params_softmax_grad(rng: np.random.Generator) -> dict:
    m = rng.integers(1, 5, size=3)
    while len(set(m.tolist())) == 1:
        m = rng.integers(1, 5, size=3)
    i = int(rng.integers(3))
    j = i if rng.integers(2) == 0 else int((i + rng.integers(1, 3)) % 3)
    return {"m": tuple(int(v) for v in m), "i": i, "j": j}


@calc_generator("training.softmax_grad", "training", _params_softmax_grad, advanced=True)
def _softmax_grad(p: dict) -> Draft:
    """∂a_i/∂s_j = a_i(δ_ij − a_j) for scores ln m (diagonal or off-diagonal entry)."""
    m, i, j = p["m"], p["i"], p["j"]
    s = np.log(np.array(m, dtype=float))
    a = tutor.softmax(s)
    g = tutor.training.softmax_grad_mistakes(s, i, j)                # the right value and every mistake, one softmax
    right = g[None]
    s_tex = ",\\ ".join(ln_tex(1, v) for v in m)
    stem = (f"3 つのスコア $s = ({s_tex})$ を softmax に通して重み $a = \\mathrm{{softmax}}(s)$ を得た。"
            f"重み $a_{{{i + 1}}}$ をスコア ${_s(j)}$ で偏微分した値 $\\partial a_{{{i + 1}}} / \\partial {_s(j)}$"
            f"（小数第 4 位まで）{BEST}")
    if i == j:
        wrong = (
            (num(g["no_delta"], 4),
             mc("δ_ij の付け忘れ", f"$-a_i a_j$ を対角成分にも使った。$i = j$ のときは $a_i(1 - a_i)$ になる。")),
            (num(g["exp_only"], 4),
             mc("分母の微分を忘れた", "分子 $e^{s_i}$ だけを微分して $a_i$ とした。分母の $\\sum_k e^{s_k}$ も $s_i$ を含む。")),
            (num(g["sign"], 4),
             mc("符号の取り違え", "$a_i(a_j - \\delta_{ij})$ と逆向きにした。自分のスコアを上げれば自分の重みは増える（正の値）。")),
        )
    else:
        wrong = (
            (num(g["exp_only"], 4),
             mc("ほかのスコアは無関係と考えた", f"$a_{{{i + 1}}}$ は ${_s(j)}$ を含まないと考えて 0 とした。分母を通してすべてのスコアがつながっている。")),
            (num(g["sign"], 4),
             mc("符号の取り違え", "ほかのスコアが上がると自分の重みは減るので、値は負になる。")),
            (num(g["diagonal_formula"], 4),
             mc("対角成分の式を流用", f"$i \\ne j$ なのに $a_i(1 - a_i)$ を使った。正しくは $-a_{{{i + 1}}} a_{{{j + 1}}}$。")),
        )
    a_tex = tex_vec(a, 4)
    formula = f"a_{{{i + 1}}}(1 - a_{{{i + 1}}})" if i == j else f"-a_{{{i + 1}}} a_{{{j + 1}}}"
    expl = (f"$e^{{\\ln m}} = m$ なので $a = ({', '.join(str(v) for v in m)})/{sum(m)} \\approx {a_tex}$。"
            f"softmax の微分は $\\partial a_i/\\partial s_j = a_i(\\delta_{{ij}} - a_j)$ なので、"
            f"${formula} \\approx {num(right, 4)}$。"
            "どれか 1 つの重みが 1 に近い（飽和した）ときは、どの成分もほぼ 0 になり、スコアより手前の $W_Q$・$W_K$ へ勾配が届かない。")
    return Draft(stem, num(right, 4), wrong, expl)


# ---------------------------------------------------------------------------
def _params_bias_step(rng: np.random.Generator) -> dict:
    k = sorted(i + 1 for i in sample(rng, 9, 2))   # = np.sort(rng.choice(np.arange(1, 10), 2, replace=False)): cut 10 into 3 positive parts
    tenths = (int(k[0]), int(k[1] - k[0]), int(10 - k[1]))
    return {"p_tenths": tuple(int(v) for v in rng.permutation(tenths)),
            "b": tuple(int(v) for v in rng.integers(-2, 3, size=3)),
            "target": int(rng.integers(3)), "j": int(rng.integers(3)),
            "lr": float(pick(rng, LEARNING_RATES))}


@calc_generator("training.bias_sgd", "training", _params_bias_step, advanced=True)
def _bias_sgd(p: dict) -> Draft:
    """One SGD step on the output bias with ∂L/∂b = p − y."""
    probs = np.array(p["p_tenths"], dtype=float) / 10.0
    b, t, j, lr = np.array(p["b"], dtype=float), p["target"], p["j"], p["lr"]
    steps = tutor.training.bias_step_mistakes(b, probs, t, j, lr)    # the right step and every mistake, checked once
    n_right = num(steps[None], 3)

    n_lr = num(lr)
    grad = tutor.training.cross_entropy_grad(np.log(probs), t)   # p − y (the logits ln p give back p)
    stem = (f"3 クラス分類の出力層で、バイアスが $b = {tex_vec(b)}$、softmax の出力確率が $p = {tex_vec(probs)}$、"
            f"正解はクラス {t + 1} だった。交差エントロピー損失 $L = -\\log p_{{{t + 1}}}$ を、学習率 $\\eta = {n_lr}$ の"
            f"勾配降下法で 1 回更新したあとの $b_{{{j + 1}}}$ {BEST}")
    onehot_why = ("正解の 1 を引き忘れ、勾配を $p_j$ とした。" if j == t
                  else f"クラス {j + 1} を正解と取り違え、$p_{{{j + 1}}} - 1$ を勾配とした。")
    notes = (
        mc("勾配の向きの取り違え", "$b + \\eta\\,\\partial L/\\partial b$ と足してしまった。損失を減らすには勾配と逆向きに進む。"),
        mc("one-hot の扱いの誤り", onehot_why),
        mc("学習率の掛け忘れ", f"勾配をそのまま引いた。1 回に動く量は勾配の $\\eta = {n_lr}$ 倍。"),
    )
    n_grad = num(grad[j])
    expl = (f"softmax と交差エントロピーを組み合わせると、ロジット（したがってバイアス）についての勾配は $p - y$"
            f"（$y$ は正解だけ 1 の one-hot）になる。$\\partial L/\\partial b_{{{j + 1}}} = {num(probs[j])} - {1 if j == t else 0}"
            f" = {n_grad}$ なので、$b_{{{j + 1}}} \\leftarrow {num(b[j])} - {n_lr} \\times ({n_grad}) = {n_right}$。"
            "正解クラスのバイアスは上がり、ほかのクラスのバイアスは下がる。")
    return draft(n_right, (num(steps["ascent"], 3), num(steps["onehot"], 3), num(steps["no_lr"], 3)), stem, notes, expl)


# ---------------------------------------------------------------------------
def _params_cross_entropy(rng: np.random.Generator) -> dict:
    probs = PROB_TEMPLATES[int(rng.integers(len(PROB_TEMPLATES)))]
    probs = tuple(float(x) for x in rng.permutation(probs))
    return {"probs": probs, "target": int(rng.integers(len(probs)))}


@calc_generator("training.cross_entropy", "training", _params_cross_entropy)
def _cross_entropy(p: dict) -> Draft:
    """L = −ln p_target for a small probability vector."""
    probs, t = np.array(p["probs"]), p["target"]
    others = [k for k in range(len(probs)) if k != t]
    other = max(others, key=lambda k: (probs[k], -k))       # the most likely wrong class
    right = tutor.training.cross_entropy_mistake(probs, t)
    stem = (f"{len(probs)} クラス分類のモデルが、ある入力に対して確率 $p = {tex_vec(probs)}$ を出力した。正解はクラス {t + 1} である。"
            f"交差エントロピー損失（自然対数）の値{BEST}"
            "（小数第 3 位まで。$\\ln 2 \\approx 0.6931$、$\\ln 5 \\approx 1.6094$ を使ってよい）")
    wrong = (
        (num(tutor.training.cross_entropy_mistake(probs, t, "other_class", other), 3),
         mc("正解以外のクラスの確率を使った", f"最も確率の大きい不正解クラス {other + 1} の $p_{{{other + 1}}} = {num(probs[other])}$ で計算した。")),
        (num(tutor.training.cross_entropy_mistake(probs, t, "no_minus"), 3),
         mc("マイナスの付け忘れ", "$\\log p$ は 0 以下なので、そのままでは損失が負になる。損失は $-\\log p_{\\text{正解}}$。")),
        (num(tutor.training.cross_entropy_mistake(probs, t, "all_classes"), 3),
         mc("全クラスの対数を足した", "one-hot の正解ラベルを掛けずに $-\\sum_k \\log p_k$ とした。残るのは正解クラスの項だけ。")),
    )
    expl = (f"交差エントロピーは $L = -\\sum_k y_k \\log p_k$ で、$y$ は正解だけ 1 なので $L = -\\ln p_{{{t + 1}}} = -\\ln {num(probs[t])}"
            f" \\approx {num(right, 3)}$。正解の確率が 1 に近いほど 0 に近づき、小さいほど大きくなる。")
    return Draft(stem, num(right, 3), wrong, expl)


# ---------------------------------------------------------------------------
# the paper's recipe: the learning-rate schedule with warm-up (tutor.training.recipe)
# ---------------------------------------------------------------------------
# d_model and warmup_steps whose square roots are whole (√d_model = 8 … 32, √warmup = 20 … 100),
# so that every rate is 1/(a whole number) or a simple fraction of it: hand-calculable, exact
SCHEDULE_D = (64, 256, 1024)
SCHEDULE_WARMUP = (400, 1600, 2500, 10000)
SCHEDULE_K = (2, 4, 5)      # a step of warmup/k² (during warm-up) or k²·warmup (after the peak)


def _frac(x: float) -> str:
    """A rate as the exact fraction it is (1/1280, 5/256) inside math: the schedule's inputs make
    every rate rational; the float is read back as the nearest fraction with a small denominator."""
    f = Fraction(float(x)).limit_denominator(10 ** 9)
    return f"{f.numerator}/{tnum(f.denominator)}"


def _frac_choice(x: float) -> str:
    return f"${_frac(x)}$"


def _schedule_stem(d: int, w: int) -> str:
    return (f"原論文の学習率のスケジュール $\\mathrm{{lrate}} = d_{{\\text{{model}}}}^{{-0.5}} \\cdot "
            f"\\min(\\mathrm{{step}}^{{-0.5}},\\ \\mathrm{{step}} \\cdot \\mathrm{{warmup}}^{{-1.5}})$ を、"
            f"$d_{{\\text{{model}}}} = {tnum(d)}$、$\\mathrm{{warmup}} = {tnum(w)}$ で使う。")


def _params_lr_peak(rng: np.random.Generator) -> dict:
    return {"d": pick(rng, SCHEDULE_D), "w": pick(rng, SCHEDULE_WARMUP), "m": pick(rng, SCHEDULE_K),
            "decay_slip": pick(rng, ("inverse_step", "peak_everywhere"))}


@calc_generator("training.lr_peak", "training", _params_lr_peak, advanced=True)
def _lr_peak(p: dict) -> Draft:
    """(ア) the step where the paper's schedule peaks, (イ) the peak rate, (ウ) the rate at m²·warmup."""
    d, w, m, slip = p["d"], p["w"], p["m"], p["decay_slip"]
    later = m * m * w
    step, rate = tutor.training.peak_mistake(d, w)
    first, first_rate = tutor.training.peak_mistake(d, w, "no_warmup")
    right = (num(step), _frac_choice(rate), _frac_choice(tutor.training.lr_mistake(later, d, w)))
    decay_why = {"inverse_step": ("1/ステップで減るという誤解", "ピークのあとの減り方を $1/\\mathrm{step}$ に比例すると考えた"),
                 "peak_everywhere": ("ピークの値のままという誤解", "ピークを過ぎても学習率はピークの値のまま変わらないと考えた")}[slip]
    slips = two_slips(
        right,
        ("warm-up の見落とし", "直線で増える warm-up の枝を見落とし、$d_{\\text{model}}^{-0.5}\\,\\mathrm{step}^{-0.5}$ だけで"
                              "考えて最初の 1 歩が最大とした",
         {0: num(first), 1: _frac_choice(first_rate)}),
        (*decay_why, {2: _frac_choice(tutor.training.lr_mistake(later, d, w, slip))}),
    )
    if slips is None:
        return redraw()
    wrong, notes = slips
    stem = (f"{BLANK}\n\n{_schedule_stem(d, w)}学習率が最大になるのはステップ（ア）で、そのときの学習率は（イ）である。"
            f"その後、ステップ ${tnum(later)}$ での学習率は（ウ）になる。")
    expl = (f"2 つの枝 $\\mathrm{{step}}^{{-0.5}}$ と $\\mathrm{{step}} \\cdot \\mathrm{{warmup}}^{{-1.5}}$ は "
            f"$\\mathrm{{step}} = \\mathrm{{warmup}} = {tnum(w)}$ で等しくなり、そこまでは直線で増え、そこからは "
            f"$1/\\sqrt{{\\mathrm{{step}}}}$ に比例して減る。ピークの学習率は $(d_{{\\text{{model}}}} \\cdot \\mathrm{{warmup}})^{{-0.5}} = "
            f"1/(\\sqrt{{{d}}} \\cdot \\sqrt{{{w}}}) = {_frac(rate)}$。ステップ ${tnum(later)}$ は warmup の ${m * m}$ 倍なので、"
            f"学習率はピークの $1/\\sqrt{{{m * m}}} = 1/{m}$ 倍の {right[2]}。")
    return draft(blank(*right), wrong, stem, notes, expl)


def _params_lr_at_step(rng: np.random.Generator) -> dict:
    d, w, k = pick(rng, SCHEDULE_D), pick(rng, SCHEDULE_WARMUP), pick(rng, SCHEDULE_K)
    during = bool(rng.integers(2)) and w % (k * k) == 0     # a step during warm-up needs warmup/k² whole
    return {"d": d, "w": w, "step": w // (k * k) if during else w * k * k}


@calc_generator("training.lr_at_step", "training", _params_lr_at_step, advanced=True)
def _lr_at_step(p: dict) -> Draft:
    """The rate of the paper's schedule at one step, during warm-up or after the peak."""
    d, w, s = p["d"], p["w"], p["step"]
    rates = {m: tutor.training.lr_mistake(s, d, w, m)
             for m in (None, "no_warmup", "no_d_model", "peak_everywhere", "max_not_min", "inverse_step")}
    during = s < w
    no_d = mc("d_model^-0.5 の掛け忘れ", "$\\min(\\ldots)$ だけを計算し、前に掛かる $d_{\\text{model}}^{-0.5}$ を落とした。")
    if during:
        wrong = (
            (_frac_choice(rates["no_warmup"]),
             mc("warm-up の見落とし", "$\\mathrm{step}^{-0.5}$ の枝を使った。warm-up の間は小さいほうの直線の枝 "
                                   "$\\mathrm{step} \\cdot \\mathrm{warmup}^{-1.5}$ が選ばれる。")),
            (_frac_choice(rates["no_d_model"]), no_d),
            (_frac_choice(rates["peak_everywhere"]),
             mc("ピークの値のままという誤解", "ステップによらずピークの学習率 $(d_{\\text{model}} \\cdot \\mathrm{warmup})^{-0.5}$ とした。"
                                        "warm-up の途中ではまだそこまで上がっていない。")),
        )
        why = (f"ステップ ${tnum(s)}$ は warmup の途中なので直線の枝が小さく、"
               f"$\\mathrm{{lrate}} = d_{{\\text{{model}}}}^{{-0.5}} \\cdot \\mathrm{{step}} \\cdot \\mathrm{{warmup}}^{{-1.5}}$。"
               f"ピーク $(d_{{\\text{{model}}}} \\cdot \\mathrm{{warmup}})^{{-0.5}} = {_frac(rates['peak_everywhere'])}$ の "
               f"$\\mathrm{{step}}/\\mathrm{{warmup}} = 1/{w // s}$ 倍で ${_frac(rates[None])}$。")
    else:
        wrong = (
            (_frac_choice(rates["max_not_min"]),
             mc("min と max の取り違え", "大きいほうの枝（直線の枝）を使い、ピークを過ぎても学習率が増え続けるとした。")),
            (_frac_choice(rates["no_d_model"]), no_d),
            (_frac_choice(rates["inverse_step"]),
             mc("1/ステップで減るという誤解", "ピークのあとを $1/\\mathrm{step}$ に比例して減るとした。正しくは $1/\\sqrt{\\mathrm{step}}$ に比例する。")),
        )
        why = (f"ステップ ${tnum(s)}$ はピーク（warmup $= {tnum(w)}$）を過ぎているので "
               f"$\\mathrm{{lrate}} = d_{{\\text{{model}}}}^{{-0.5}} \\cdot \\mathrm{{step}}^{{-0.5}} = 1/(\\sqrt{{{d}}} \\cdot \\sqrt{{{s}}})"
               f" = {_frac(rates[None])}$。ピーク ${_frac(rates['peak_everywhere'])}$ の $1/\\sqrt{{{s // w}}}$ 倍である。")
    stem = f"{_schedule_stem(d, w)}ステップ ${tnum(s)}$ での学習率{BEST}"
    return Draft(stem, _frac_choice(rates[None]), wrong, why)


# ---------------------------------------------------------------------------
# label smoothing (ε_ls): the smoothed target and its cross-entropy
# ---------------------------------------------------------------------------
SMOOTH_WORDS = ("猫", "魚", "それ", "を", "食べた")     # a 5-word vocabulary (K = 5: ε/K and ε/(K−1) both end)
SMOOTH_EPS = (0.1, 0.2)
# probabilities that are powers of 1/2, so that −ln p_k = b_k · ln 2 with b_k whole
POW2_PROBS = ((0.5, 0.125, 0.125, 0.125, 0.125), (0.25, 0.25, 0.25, 0.125, 0.125),
              (0.5, 0.25, 0.125, 0.0625, 0.0625), (0.25, 0.25, 0.125, 0.125, 0.25))


def _smoothing_formula(eps: float) -> str:
    return (f"ラベル平滑化（$\\varepsilon = {num(eps)}$）では、正解だけ 1 の one-hot ベクトル $y$ の代わりに、"
            f"語彙の大きさを $K$ として $q = (1 - \\varepsilon)\\,y + \\varepsilon / K$ を目標の分布にする。")


def _params_smoothed_target(rng: np.random.Generator) -> dict:
    return {"eps": pick(rng, SMOOTH_EPS + (0.05, 0.25)), "target": int(rng.integers(len(SMOOTH_WORDS)))}


@calc_generator("training.smoothed_target", "training", _params_smoothed_target, advanced=True)
def _smoothed_target(p: dict) -> Draft:
    """The label-smoothed target distribution over a 5-word vocabulary."""
    eps, t = p["eps"], p["target"]
    k = len(SMOOTH_WORDS)
    q = {m: tutor.training.smoothed_target_mistake(k, t, eps, m) for m in (None,) + tutor.training.SMOOTHING_MISTAKES}
    words = "・".join(SMOOTH_WORDS)
    stem = (f"{_smoothing_formula(eps)}語彙が {words} の $K = {k}$ 語で、正解の次の語が「{SMOOTH_WORDS[t]}」のとき、"
            f"目標の分布 $q$（語彙の順）{BEST}")
    wrong = (
        (vec(q["others_only"], 4),
         mc("正解以外にだけ配った", f"$\\varepsilon$ を正解以外の {k - 1} 語だけで分けた。式の $\\varepsilon / K$ は正解を含む {k} 語すべてに配る。")),
        (vec(q["swap_eps"], 4),
         mc("ε と 1−ε の取り違え", "one-hot に $\\varepsilon$ を掛け、残りの $1 - \\varepsilon$ を全語に配った。正解に残すのが $1 - \\varepsilon$ である。")),
        (vec(q["no_share_to_answer"], 4),
         mc("正解の取り分の足し忘れ", "正解を $1 - \\varepsilon$ のままにした。均等に配る $\\varepsilon / K$ は正解にも入るので、合計が 1 にならない。")),
    )
    expl = (f"$\\varepsilon / K = {num(eps)} / {k} = {num(eps / k, 4)}$ をすべての語に配り、正解の語には $1 - \\varepsilon = {num(1 - eps)}$ を足す。"
            f"正解は ${num(q[None][t], 4)}$、ほかは ${num(q[None][(t + 1) % k], 4)}$ で、合計は 1。")
    return Draft(stem, vec(q[None], 4), wrong, expl)


def _params_smoothed_ce(rng: np.random.Generator) -> dict:
    probs = POW2_PROBS[int(rng.integers(len(POW2_PROBS)))]
    return {"probs": tuple(float(x) for x in rng.permutation(probs)), "target": int(rng.integers(len(SMOOTH_WORDS))),
            "eps": pick(rng, SMOOTH_EPS)}


def _ln2(x: float) -> str:
    """A loss c · ln 2 written as such (c exact: every −ln p_k is a whole multiple of ln 2)."""
    c = num(x / np.log(2.0), 4)
    return "$\\ln 2$" if c == "1" else f"${c}\\ln 2$"


@calc_generator("training.smoothed_ce", "training", _params_smoothed_ce, advanced=True)
def _smoothed_ce(p: dict) -> Draft:
    """Cross-entropy −Σ q_k ln p_k against the label-smoothed target, in units of ln 2."""
    probs, t, eps = np.array(p["probs"]), p["target"], p["eps"]
    k = probs.size
    loss = {m: tutor.training.smoothed_ce_mistake(probs, t, eps, m)
            for m in (None, "no_smoothing", "answer_term_only", "others_only")}
    res = tutor.training.smoothed_cross_entropy(probs, t, eps)
    stem = (f"{_smoothing_formula(eps)}$K = {k}$ 語の語彙で、モデルの予測が $p = {tex_vec(probs, 4)}$、正解は {t + 1} 番目の語だった。"
            f"平滑化した目標 $q$ に対する交差エントロピー $L = -\\sum_k q_k \\ln p_k$ {BEST}")
    wrong = (
        (_ln2(loss["no_smoothing"]),
         mc("平滑化の掛け忘れ", f"one-hot の目標のまま $-\\ln p_{{{t + 1}}}$ を計算した。平滑化すると正解以外の語の項も加わる。")),
        (_ln2(loss["answer_term_only"]),
         mc("正解の項だけ計算", f"$-q_{{{t + 1}}} \\ln p_{{{t + 1}}}$ だけを計算した。$q$ は正解以外の語にも正の確率があるので、その項も足す。")),
        (_ln2(loss["others_only"]),
         mc("正解以外にだけ配った", f"$\\varepsilon$ を正解以外の {k - 1} 語で分けた目標を使った。式の $\\varepsilon / K$ は {k} 語すべてに配る。")),
    )
    bits = " + ".join(f"{num(qk, 4)} \\times {num(-np.log(pk) / np.log(2.0))}" for qk, pk in zip(res.target, probs))
    expl = (f"$q = {tex_vec(res.target, 4)}$。$-\\ln p_k$ は $\\ln 2$ の整数倍なので、"
            f"$L = ({bits})\\ln 2 = {_ln2(loss[None]).strip('$')} \\approx {num(loss[None], 3)}$。"
            f"平滑化しないときの $-\\ln p_{{{t + 1}}} = {_ln2(res.one_hot_loss).strip('$')}$ とは違い、"
            f"どんな予測でも $L$ は目標自身のエントロピー $\\approx {num(res.floor, 3)}$ より下がらない。")
    return Draft(stem, _ln2(loss[None]), wrong, expl)
