"""⑧ 学習で注意が育つ: the softmax derivative, one SGD step on the output bias, and the
cross-entropy loss.

Inputs: scores ln m (so softmax(s) = m/Σm exactly), probabilities in tenths or quarters,
small integer biases. Answers and distractors: tutor.training (softmax_grad_mistakes,
bias_step_mistakes — the right value and every named mistake from one call —, cross_entropy_mistake;
each wrong choice is one named mistake).
"""
from __future__ import annotations

import numpy as np

import tutor

from .calc import BEST, calc_generator, draft, ln_tex, mc, num, pick, sample, tex_vec
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
