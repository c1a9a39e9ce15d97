"""⑪-2 GAN・NeRF・音声の生成: the optimal discriminator D* = p_data / (p_data + p_g) at one point, the
generator's gradient through the discriminator's logit (saturating vs non-saturating) as a 穴埋め, the side
of a transposed convolution (DCGAN), CycleGAN's cycle-consistency loss, the colour NeRF renders along one
ray, WaveNet's receptive field and μ-law companding.

Answers: tutor.generation (optimal_discriminator, saturating_gradient, nonsaturating_gradient, tconv_size,
cycle_loss, render_ray, receptive_field, mu_law); every distractor is one of the named mistakes next to
those formulas (optimal_d_swapped, optimal_d_unnormalised, optimal_d_half, gradient_wrt_probability,
tconv_size_conv_formula, tconv_size_no_padding, tconv_size_forgot_minus_one, cycle_loss_forward_only,
cycle_loss_squared, cycle_loss_no_return, render_no_transmittance, render_inclusive_transmittance,
render_reversed, receptive_field_no_dilation, receptive_field_forgot_one, receptive_field_per_stack,
mu_law_no_normalisation, mu_law_unsigned).
"""
from __future__ import annotations

import numpy as np

from tutor import generation as gen

from .calc import BEST, calc_generator, mc, num, pick, redraw, sample, tnum, two_slips, vec
from .core import Draft

POINTS = ("A", "B", "C", "D")
# D(G(z)) values whose 1 / D is a short decimal
D_FAKE = (0.01, 0.02, 0.04, 0.05, 0.08, 0.1, 0.16, 0.2, 0.25, 0.4, 0.64, 0.8)
# σδ = ln m  →  α = 1 − 1/m: (α, the LaTeX of σδ)
ALPHAS = ((0.5, "\\ln 2"), (0.2, "\\ln \\tfrac{5}{4}"), (0.8, "\\ln 5"), (0.6, "\\ln \\tfrac{5}{2}"),
          (0.4, "\\ln \\tfrac{5}{3}"))
# |x| = (2^m − 1) / 255 → F(x) = m / 8 for μ = 255
MU_NUMERATORS = (1, 3, 7, 15, 31, 63, 127, 255)


# ---------------------------------------------------------------------------
def _params_optimal(rng: np.random.Generator) -> dict:
    while True:
        k = int(rng.integers(3, 5))
        cuts = np.sort(sample(rng, 9, k - 1)) + 1                     # k parts of 10 tenths, each ≥ 1
        p_data = tuple(int(x) for x in np.diff(np.r_[0, cuts, 10]))
        p_g = tuple(int(x) for x in rng.permutation(p_data))
        at = int(rng.integers(k))
        if p_data[at] != p_g[at] and p_data[at] + p_g[at] != 10:
            return {"p_data": p_data, "p_g": p_g, "at": at}


@calc_generator("generation.optimal_d", "generation", _params_optimal)
def _optimal_d(p: dict) -> Draft:
    """The optimal discriminator at one point of a discrete distribution: p_data / (p_data + p_g)."""
    pd_, pg, at = np.array(p["p_data"]) / 10, np.array(p["p_g"]) / 10, p["at"]
    r = gen.optimal_discriminator(pd_, pg)
    names = POINTS[: pd_.size]
    table = "、".join(f"{n}: {num(a)}" for n, a in zip(names, pd_))
    table_g = "、".join(f"{n}: {num(b)}" for n, b in zip(names, pg))
    stem = (f"GAN で、データの分布 $p_{{\\text{{data}}}}$ と、いまの生成器が作るデータの分布 $p_g$ が、{len(names)} つの点の上で"
            f"次のようになっている。$p_{{\\text{{data}}}}$ は {table}、$p_g$ は {table_g}。生成器を固定したときの最適な識別器 "
            f"$D^*$ が点 {names[at]} で出す値（本物である確率）{BEST}")
    wrong = (
        (num(gen.optimal_d_swapped(pd_, pg)[at]), mc("D* の分子と分母の取り違え", "分子に $p_g$ を置き、「生成されたデータである確率」"
                                                                        "を求めた。識別器が出すのは本物である確率なので、分子は $p_{\\text{data}}$。")),
        (num(gen.optimal_d_unnormalised(pd_, pg)[at]), mc("p_g を使い忘れ", "$p_{\\text{data}}$ の値をそのまま答えた。その点に生成器の"
                                                                        "データも来るので、$p_{\\text{data}} + p_g$ で割る。")),
        (num(gen.optimal_d_half(pd_, pg)[at]), mc("均衡の答えを先取り", "$D^* = 1/2$ になるのは $p_g = p_{\\text{data}}$ のとき（学習の"
                                                                   "終点）だけ。この点では 2 つの分布がまだ違う。")),
    )
    expl = (f"$D^*(x) = p_{{\\text{{data}}}}(x) / (p_{{\\text{{data}}}}(x) + p_g(x))$ なので、点 {names[at]} では "
            f"${num(pd_[at])} / ({num(pd_[at])} + {num(pg[at])}) = {num(r.d_star[at])}$。生成器が $p_{{\\text{{data}}}}$ を完全に"
            "まねると、どの点でも 1/2 になり、価値関数は $-\\log 4$ になる。")
    return Draft(stem, num(r.d_star[at]), wrong, expl)


# ---------------------------------------------------------------------------
def _params_gradient(rng: np.random.Generator) -> dict:
    i, j = sample(rng, len(D_FAKE), 2)
    return {"d": (D_FAKE[i], D_FAKE[j])}


@calc_generator("generation.gan_gradient", "generation", _params_gradient)
def _gan_gradient(p: dict) -> Draft:
    """(ア) |∂ log(1 − D) / ∂a| = D, (イ) |∂ (−log D) / ∂a| = 1 − D, for two generated samples."""
    d = p["d"]
    sat, non = np.abs(gen.saturating_gradient(d)), np.abs(gen.nonsaturating_gradient(d))
    right = (vec(sat), vec(non))
    made = two_slips(right,
                     ("飽和と非飽和の取り違え", "飽和する損失の勾配に、非飽和の損失の値 $1 - D$ を当てた", {0: vec(non)}),
                     ("ロジットではなく D で微分", "非飽和の損失 $-\\log D$ を $D$ そのもので微分して $1/D$ とした",
                      {1: vec(np.abs(gen.gradient_wrt_probability(d, saturating=False)))}))
    if made is None:
        return redraw()
    wrong, notes = made
    stem = ("次の文章の（ア）・（イ）に最もよく当てはまる組み合わせを1つ選べ。\n\n"
            "GAN の識別器は、ロジット $a$ をシグモイドに通して $D = \\sigma(a)$ を出す。生成した 2 枚の画像に対する出力が "
            f"$D(G(z)) = {vec(d)[1:-1]}$ だった。生成器の損失を $\\log(1 - D(G(z)))$ とすると、ロジット $a$ についての勾配の"
            "大きさは 2 枚それぞれ（ア）、非飽和の損失 $-\\log D(G(z))$ にすると（イ）である。")
    expl = (f"$\\partial \\log(1 - \\sigma(a)) / \\partial a = -\\sigma(a)$ なので大きさは $D$ そのもの {right[0]}、"
            f"$\\partial(-\\log \\sigma(a)) / \\partial a = -(1 - \\sigma(a))$ なので大きさは $1 - D$ で {right[1]}。"
            "識別器に見破られて $D(G(z))$ が 0 に近い学習の初めほど、非飽和の損失のほうが大きな勾配を生成器に返す。")
    return Draft(stem, f"（ア）{right[0]}　（イ）{right[1]}", tuple(zip(wrong, notes)), expl)


# ---------------------------------------------------------------------------
def _params_tconv(rng: np.random.Generator) -> dict:
    while True:
        n, k, s, pad = int(rng.integers(3, 17)), int(rng.integers(3, 6)), int(rng.integers(1, 4)), int(rng.integers(1, 3))
        if k >= s and 2 * pad < k and n + 2 * pad >= k:
            return {"n": n, "k": k, "s": s, "p": pad}


@calc_generator("generation.tconv_size", "generation", _params_tconv)
def _tconv_size(p: dict) -> Draft:
    """The side of a transposed convolution's output: (n − 1)·s − 2p + k."""
    n, k, s, pad = p["n"], p["k"], p["s"], p["p"]
    right = gen.tconv_size(n, k, s, pad)
    stem = (f"DCGAN の生成器で、1 辺 ${n}$ の特徴マップに、カーネルの大きさ ${k}$、ストライド ${s}$、パディング ${pad}$ の"
            f"転置畳み込み（出力側の余分な足し込みはなし）をかけた。出力の特徴マップの 1 辺{BEST}")
    wrong = (
        (num(gen.tconv_size_conv_formula(n, k, s, pad)), mc("通常の畳み込みの式", "$(n + 2p - k)/s + 1$ と、識別器で使う通常の"
                                                                            "畳み込みの式を当てた。転置畳み込みは逆向きに広げる。")),
        (num(gen.tconv_size_no_padding(n, k, s, pad)), mc("パディングの引き忘れ", "$(n - 1)s + k$ で止め、パディングの $2p$ を"
                                                                          "引き忘れた。転置畳み込みではパディングの分だけ出力が小さくなる。")),
        (num(gen.tconv_size_forgot_minus_one(n, k, s, pad)), mc("(n − 1) の −1 を忘れた", "$ns - 2p + k$ と、入力の 1 辺をそのまま"
                                                                                    "ストライド倍した。間隔の数は $n - 1$ である。")),
    )
    expl = (f"転置畳み込みの出力の 1 辺は $(n - 1)s - 2p + k = ({n} - 1) \\times {s} - 2 \\times {pad} + {k} = {right}$。"
            "DCGAN の生成器はこれを重ねて 4 × 4 の特徴マップを 64 × 64 の画像まで広げ、識別器は通常のストライド付きの"
            "畳み込みで逆に縮める（プーリングは使わない）。")
    return Draft(stem, num(right), wrong, expl)


# ---------------------------------------------------------------------------
def _params_cycle(rng: np.random.Generator) -> dict:
    vals = (-2, -1, 1, 2, 3)
    while True:
        a = (pick(rng, (2.0, 0.5, 3.0, 1.0)), pick(rng, (2.0, 0.5, 3.0, 1.0)))
        b = (pick(rng, (0.5, 0.25, 1.0, 2.0)), pick(rng, (0.5, 0.25, 1.0, 2.0)))
        x, y = (pick(rng, vals), pick(rng, vals)), (pick(rng, vals), pick(rng, vals))
        c = gen.cycle_loss(x, y, np.diag(a), np.diag(b))
        if c.forward > 0 and c.backward > 0:
            return {"a": a, "b": b, "x": x, "y": y}


@calc_generator("generation.cycle_loss", "generation", _params_cycle)
def _cycle_loss(p: dict) -> Draft:
    """CycleGAN's L_cyc = ‖F(G(x)) − x‖₁ + ‖G(F(y)) − y‖₁ with per-pixel factors."""
    a, b, x, y = p["a"], p["b"], p["x"], p["y"]
    g, f = np.diag(a), np.diag(b)
    c = gen.cycle_loss(x, y, g, f)
    stem = (f"CycleGAN を 2 画素だけの小さな画像で考える。変換 $G: X \\to Y$ は画素ごとに {vec(a)} 倍、逆向きの変換 "
            f"$F: Y \\to X$ は画素ごとに {vec(b)} 倍する。領域 $X$ の画像 $x = {vec(x)[1:-1]}$ と領域 $Y$ の画像 "
            f"$y = {vec(y)[1:-1]}$ について、サイクル一貫性損失 $\\|F(G(x)) - x\\|_1 + \\|G(F(y)) - y\\|_1$ の値{BEST}")
    wrong = (
        (num(gen.cycle_loss_forward_only(x, y, g, f)), mc("片方向のサイクルだけ", "$x \\to G \\to F$ の往復だけを数え、$y$ から始まる"
                                                                          "逆向きの往復を足し忘れた。CycleGAN は両方向に戻す。")),
        (num(gen.cycle_loss_squared(x, y, g, f)), mc("L1 ではなく二乗誤差", "差を 2 乗して足した。CycleGAN のサイクル一貫性損失は"
                                                                       "差の絶対値の和（L1 ノルム）である。")),
        (num(gen.cycle_loss_no_return(x, y, g, f)), mc("戻さずに比べた", "$G(x)$ を $x$ と、$F(y)$ を $y$ と比べた。変換した画像を"
                                                                    "もう一方の変換で元の領域に戻してから比べる。")),
    )
    expl = (f"$G(x) = {vec(c.g_x)[1:-1]}$、$F(G(x)) = {vec(c.f_g_x)[1:-1]}$ で、$x$ との差の絶対値の和は ${num(c.forward)}$。"
            f"$F(y) = {vec(c.f_y)[1:-1]}$、$G(F(y)) = {vec(c.g_f_y)[1:-1]}$ で、$y$ との差は ${num(c.backward)}$。"
            f"合わせて ${num(c.total)}$。対になった正解の画像がなくても、往復して元に戻ることを学習の手がかりにする。")
    return Draft(stem, num(c.total), wrong, expl)


# ---------------------------------------------------------------------------
def _params_nerf(rng: np.random.Generator) -> dict:
    while True:
        picks = [int(rng.integers(len(ALPHAS))) for _ in range(3)]
        colors = tuple(int(rng.integers(0, 11)) * 10 for _ in range(3))
        if len(set(colors)) == 3:
            return {"alpha": tuple(picks), "c": colors}


@calc_generator("generation.nerf_color", "generation", _params_nerf)
def _nerf_color(p: dict) -> Draft:
    """NeRF's colour along one ray: Σ T_i α_i c_i with α_i = 1 − e^{−σ_i δ_i}."""
    alphas = [ALPHAS[i] for i in p["alpha"]]
    sigma = np.log([1.0 / (1.0 - a) for a, _ in alphas])                    # δ = 1, σ_i δ_i = ln m
    c = np.array(p["c"], dtype=float)
    r = gen.render_ray(sigma, 1.0, c)
    optical = ",\\ ".join(f"\\sigma_{i + 1}\\delta_{i + 1} = {tex}" for i, (_, tex) in enumerate(alphas))
    stem = ("NeRF で、カメラから出た 1 本の光線の上に、手前から順に 3 つのサンプルをとった。各サンプルの密度と間隔の積が "
            f"${optical}$、各サンプルの明るさが手前から ${', '.join(num(x) for x in c)}$ だった"
            "（$e^{-\\ln m} = 1/m$）。ボリュームレンダリングでこの光線に合成される明るさ $C$ の値" + BEST)
    wrong = (
        (num(gen.render_no_transmittance(sigma, 1.0, c)), mc("透過率の掛け忘れ", "$\\sum \\alpha_i c_i$ と、手前のサンプルに"
                                                                            "さえぎられて届く光が減ることを忘れた。重みは $T_i \\alpha_i$ である。")),
        (num(gen.render_inclusive_transmittance(sigma, 1.0, c)), mc("自分の不透明度まで透過率に含めた", "$T_i$ に自分の $(1 - \\alpha_i)$ "
                                                                                               "まで掛けた。$T_i$ は手前の $j < i$ だけの積。")),
        (num(gen.render_reversed(sigma, 1.0, c)), mc("光線の向きの取り違え", "奥のサンプルから順に合成した。透過率はカメラに近い"
                                                                        "手前のサンプルから掛けていく。")),
    )
    steps = "、".join(f"$w_{i + 1} = {num(t)} \\times {num(a)} = {num(w)}$"
                     for i, (t, a, w) in enumerate(zip(r.transmittance, r.alpha, r.weights)))
    expl = (f"$\\alpha_i = 1 - e^{{-\\sigma_i \\delta_i}}$ は ${', '.join(num(a) for a in r.alpha)}$、透過率 $T_i = \\prod_{{j<i}}"
            f"(1 - \\alpha_j)$ は ${', '.join(num(t) for t in r.transmittance)}$。重みは {steps}。"
            f"$C = \\sum w_i c_i = {num(r.color)}$。")
    return Draft(stem, num(r.color), wrong, expl)


# ---------------------------------------------------------------------------
def _params_field(rng: np.random.Generator) -> dict:
    return {"layers": int(rng.integers(6, 11)), "stacks": int(rng.integers(2, 5)), "k": pick(rng, (2, 3))}


@calc_generator("generation.receptive_field", "generation", _params_field)
def _receptive_field(p: dict) -> Draft:
    """WaveNet's receptive field: (k − 1)·Σ d + 1 over every layer of every stack."""
    layers, stacks, k = p["layers"], p["stacks"], p["k"]
    dil = gen.wavenet_dilations(layers, stacks)
    right = gen.receptive_field(dil, k)
    stem = (f"WaveNet のような因果的な畳み込みの層を、dilation を $1, 2, 4, \\dots, {2 ** (layers - 1)}$ と倍にしながら "
            f"${layers}$ 層重ね（1 スタック）、それを ${stacks}$ スタックつないだ。カーネルの大きさは ${k}$ である。"
            f"最後の層の 1 つの出力が見ている過去の標本の数（受容野）{BEST}")
    wrong = (
        (num(gen.receptive_field_no_dilation(dil, k)), mc("dilation の無視", "各層を間隔なしの普通の因果的畳み込みとして "
                                                                          "$(k - 1) \\times$ 層の数 $+ 1$ とした。dilation の分だけ間隔が広がる。")),
        (num(gen.receptive_field_forgot_one(dil, k)), mc("+1 の足し忘れ", "$(k - 1) \\sum d$ で止め、いま予測に使う位置の標本"
                                                                         "そのものを数え忘れた。")),
        (num(gen.receptive_field_per_stack(dil, k, stacks)), mc("スタックごとに +1", "1 スタックの受容野をスタックの数だけ"
                                                                                   "足した。重なる 1 標本を重ねて数えている。")),
    )
    sum_one = sum(dil[:layers])
    expl = (f"1 スタックの dilation の和は ${tnum(sum_one)}$、{stacks} スタックで ${tnum(sum_one * stacks)}$。受容野は "
            f"$({k} - 1) \\times {tnum(sum_one * stacks)} + 1 = {tnum(right)}$。dilation を倍にしていくので、層の数に対して"
            "受容野が指数的に広がる（WaveNet では 1 スタックで 1,024 標本）。")
    return Draft(stem, num(right), wrong, expl)


# ---------------------------------------------------------------------------
def _params_mu(rng: np.random.Generator) -> dict:
    while True:
        i, j = sample(rng, len(MU_NUMERATORS), 2)
        signs = (pick(rng, (1, -1)), pick(rng, (1, -1)))
        if -1 in signs:
            return {"num": (MU_NUMERATORS[i], MU_NUMERATORS[j]), "sign": signs}


def _frac(n: int, sign: int) -> str:
    body = "1" if n == 255 else f"\\tfrac{{{n}}}{{255}}"
    return ("-" if sign < 0 else "") + body


@calc_generator("generation.mu_law", "generation", _params_mu)
def _mu_law(p: dict) -> Draft:
    """μ-law companding of two samples (μ = 255): sign(x)·ln(1 + μ|x|) / ln(1 + μ)."""
    x = np.array([s * n / 255 for n, s in zip(p["num"], p["sign"])])
    r = gen.mu_law(x, gen.MU)
    shown = ",\\ ".join(_frac(n, s) for n, s in zip(p["num"], p["sign"]))
    stem = ("WaveNet は音の標本（-1〜1）を μ-law で圧伸してから 256 段階に量子化する。$\\mu = 255$ の圧伸 "
            "$F(x) = \\mathrm{sign}(x)\\,\\ln(1 + \\mu|x|) / \\ln(1 + \\mu)$ を、2 つの標本 "
            f"$x = ({shown})$ に当てた値" + BEST)
    wrong = (
        (vec(r.x), mc("圧伸せずに線形のまま", "$x$ をそのまま答えた。μ-law は小さな振幅を広げて、256 段階のうち多くを"
                                              "小さな音に割り当てる。")),
        (vec(gen.mu_law_no_normalisation(x, gen.MU)), mc("ln(1 + μ) で割り忘れ", "$\\ln(1 + \\mu|x|)$ で止めた。"
                                                                                "$\\ln 256$ で割って -1〜1 に収める。")),
        (vec(gen.mu_law_unsigned(x, gen.MU)), mc("符号の付け忘れ", "負の標本にも正の値を答えた。$F$ は $x$ の符号を保つ。")),
    )
    parts = "、".join(f"$\\ln(1 + {n}) / \\ln 256 = \\ln {n + 1} / \\ln 256 = {num(abs(f))}$"
                      for n, f in zip(p["num"], r.companded))
    expl = (f"$\\ln 256 = 8 \\ln 2$ なので、{parts}。符号をつけて $F(x) = {vec(r.companded)[1:-1]}$。"
            "小さな振幅ほど大きく引き伸ばされ、量子化の段階が細かくなる。")
    return Draft(stem, vec(r.companded), wrong, expl)
