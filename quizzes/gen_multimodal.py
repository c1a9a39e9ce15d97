"""⑪ 画像生成とマルチモーダル: CLIP's logit for one pair (cos / τ), a probability of its contrastive
table along the right axis, both directions of the correct pair as a 穴埋め, ᾱ_t of a β schedule,
one jump of the forward diffusion x_t = √ᾱ_t x₀ + √(1 − ᾱ_t) ε, a 不適切 item about the shapes of the
cross-attention that lets text steer an image and the size of its weights, and classifier-free
guidance (発展).

Answers: tutor.multimodal (clip_batch, contrastive_probs, alpha_bar_at, add_noise, cross_shapes,
guided_noise); every distractor is one of the named mistakes next to those formulas
(clip_logits_unnormalised, clip_logits_no_temperature, clip_logits_times_temperature,
probs_wrong_axis, probs_whole_matrix, alpha_bar_sum, alpha_bar_beta_product, alpha_bar_last_step,
add_noise_swapped, add_noise_no_sqrt, add_noise_one_step, cross_shapes_swapped, cross_shapes_self,
guided_noise_swapped, guided_noise_cond_only, guided_noise_reversed).
"""
from __future__ import annotations

from itertools import permutations

import numpy as np

from tutor import multimodal as mm

from .calc import BEST, WORST, calc_generator, ln_tex, mc, num, pick, redraw, tnum, two_slips, vec
from .core import Draft

# 3-d integer vectors of length 5 (every cosine between two of them, or twice them, is a multiple of 0.04)
UNIT5 = tuple(sorted({p for base in ((3, 4, 0), (5, 0, 0)) for p in permutations(base)}))
TEMPERATURES = (0.1, 0.2, 0.25, 0.5)
DIRECTIONS = ("i2t", "t2i")
NAMES = {"i2t": "画像→文", "t2i": "文→画像"}
# (ᾱ_t, β_t): √ᾱ_t, √(1 − ᾱ_t), √β_t and √(1 − β_t) are all short decimals (the Pythagorean pairs 0.6/0.8 and
# 0.28/0.96), 1 − β_t > ᾱ_t, and the one-step formula's coefficients differ from the right ones and from the swapped ones
NOISE_CASES = ((0.0784, 0.64), (0.0784, 0.36), (0.36, 0.0784), (0.64, 0.0784))
SCHEDULE_STARTS = (0.05, 0.1, 0.15, 0.2)
SCHEDULE_STEPS = (0.0, 0.05, 0.1)
GUIDANCE = (2.0, 3.0, 4.0, 5.0, 7.5)
GRID_SIDES = (8, 16, 24, 32, 48, 64)
TEXT_TOKENS = (8, 16, 32, 64, 77)
VALUE_DIMS = (40, 64, 80, 160, 320)


def _v(x) -> str:
    """A vector of whole numbers inside $…$: (8, 6, 0)."""
    return "(" + ",\\ ".join(num(v) for v in x) + ")"


# ---------------------------------------------------------------------------
def _params_logit(rng: np.random.Generator) -> dict:
    while True:
        u, w = pick(rng, UNIT5), pick(rng, UNIT5)
        if 0 < int(np.dot(u, w)) < 25:                 # a related pair, not the very same direction
            break
    ku, kw = pick(rng, (1, 2)), pick(rng, (1, 2))
    return {"image": tuple(ku * x for x in u), "text": tuple(kw * x for x in w), "tau": pick(rng, TEMPERATURES)}


@calc_generator("multimodal.clip_logit", "multimodal", _params_logit)
def _clip_logit(p: dict) -> Draft:
    """CLIP's logit of one pair: cos(i, t) / τ."""
    img, txt, tau = p["image"], p["text"], p["tau"]
    b = mm.clip_batch([img], [txt], tau)
    cos, dot = float(b.cosine[0, 0]), float(b.dots[0, 0])
    right = float(b.logits[0, 0])
    stem = (f"CLIP で、ある画像の埋め込み（画像エンコーダの出力）が $\\mathbf{{i}} = {_v(img)}$、ある文の埋め込み"
            f"（文エンコーダの出力）が $\\mathbf{{t}} = {_v(txt)}$ だった。CLIP と同じ方法でこの組の類似度を求め、"
            f"温度 $\\tau = {num(tau)}$ で割った値（ロジット）{BEST}")
    wrong = (
        (num(mm.clip_logits_unnormalised([img], [txt], tau)[0, 0]),
         mc("正規化を忘れた内積", f"長さをそろえずに内積 ${tnum(dot)}$ をそのまま $\\tau$ で割った。CLIP は長さ 1 にそろえてから"
                           "内積をとる（コサイン類似度）ので、長いベクトルほど有利になることはない。")),
        (num(mm.clip_logits_no_temperature([img], [txt], tau)[0, 0]),
         mc("類似度を温度で割り忘れ", f"コサイン類似度 ${num(cos)}$ をそのまま答えた。CLIP はこれを温度 $\\tau$ で割ってから softmax にかける。")),
        (num(mm.clip_logits_times_temperature([img], [txt], tau)[0, 0]),
         mc("類似度に温度を掛けた", f"コサイン類似度に $\\tau = {num(tau)}$ を掛けた。温度は割る数で、小さいほどロジットの差が広がる。")),
    )
    expl = (f"長さは $\\|\\mathbf{{i}}\\| = {num(b.image_norms[0])}$、$\\|\\mathbf{{t}}\\| = {num(b.text_norms[0])}$、内積は "
            f"${tnum(dot)}$ なので、コサイン類似度は ${tnum(dot)} / ({num(b.image_norms[0])} \\times {num(b.text_norms[0])}) = "
            f"{num(cos)}$。温度で割って ${num(cos)} / {num(tau)} = {num(right)}$。")
    return Draft(stem, num(right), wrong, expl)


# ---------------------------------------------------------------------------
def _table(rng: np.random.Generator) -> tuple[tuple[int, ...], ...]:
    """A 3 × 3 table of e^{logit} (whole numbers): a trained model, the diagonal larger."""
    return tuple(tuple(int(rng.integers(4, 10)) if i == j else int(rng.integers(1, 4)) for j in range(3)) for i in range(3))


def _ln_matrix(m) -> str:
    rows = " \\\\ ".join(" & ".join(ln_tex(1, v) for v in row) for row in m)
    return "\\begin{pmatrix} " + rows + " \\end{pmatrix}"


def _table_stem(m) -> str:
    return (f"CLIP の学習で、画像 3 枚と文 3 個の組（画像 $k$ と文 $k$ が正しい組）のロジット（コサイン類似度 ÷ 温度）が、"
            f"行を画像 1〜3、列を文 1〜3 として $L = {_ln_matrix(m)}$ だった（$\\ln$ は自然対数、$e^{{\\ln m}} = m$）。")


def _params_prob(rng: np.random.Generator) -> dict:
    i, j = (int(x) for x in rng.choice(3, size=2, replace=False))
    return {"m": _table(rng), "direction": pick(rng, DIRECTIONS), "i": i, "j": j}


@calc_generator("multimodal.clip_prob", "multimodal", _params_prob)
def _clip_prob(p: dict) -> Draft:
    """One probability of the contrastive table: along the row (image → text) or the column (text → image)."""
    m, d, i, j = np.array(p["m"], float), p["direction"], p["i"], p["j"]
    probs = mm.contrastive_probs(np.log(m))
    table = probs.image_to_text if d == "i2t" else probs.text_to_image
    other = mm.probs_wrong_axis(np.log(m), d)
    whole = mm.probs_whole_matrix(np.log(m))
    ask = (f"画像 {i + 1} にとって、文 {j + 1} が自分の組である確率（画像→文の softmax）" if d == "i2t"
           else f"文 {j + 1} にとって、画像 {i + 1} が自分の組である確率（文→画像の softmax）")
    stem = _table_stem(p["m"]) + f"{ask}{BEST}"
    line, other_line = (f"行 {i + 1} ", f"列 {j + 1} ") if d == "i2t" else (f"列 {j + 1} ", f"行 {i + 1} ")
    wrong = (
        (num(other[i, j]), mc("画像→文と文→画像の取り違え", f"{line}ではなく{other_line}の中で正規化した。{NAMES[d]}の確率は"
                                                   f"{line}の $e^{{L}}$ の和で割る。")),
        (num(whole[i, j]), mc("表全体で softmax", "9 つのロジットすべてで 1 つの softmax をとった。CLIP は行ごと・列ごとに、"
                                                 "それぞれ 3 つの候補の中で正規化する。")),
        (num(table[j, i]), mc("画像と文の番号の取り違え", f"画像 {j + 1} と文 {i + 1} の組（{NAMES[d]}の同じ向き）の確率を答えた。"
                                                   "行が画像、列が文である。")),
    )
    if d == "i2t":
        part, total = m[i], m[i].sum()
    else:
        part, total = m[:, j], m[:, j].sum()
    expl = (f"$e^{{\\ln m}} = m$ なので、{line}の $e^{{L}}$ は $({', '.join(num(x) for x in part)})$、和は {num(total)}。"
            f"求める確率は ${num(m[i, j])} / {num(total)} = {num(table[i, j])}$。"
            f"画像→文は行ごと、文→画像は列ごとに softmax をとり、CLIP はその両方の交差エントロピーを平均して学習する。")
    return Draft(stem, num(table[i, j]), wrong, expl)


# ---------------------------------------------------------------------------
def _params_blank(rng: np.random.Generator) -> dict:
    return {"m": _table(rng), "k": int(rng.integers(3))}


@calc_generator("multimodal.clip_blank", "multimodal", _params_blank)
def _clip_blank(p: dict) -> Draft:
    """(ア) image k → its text along the row, (イ) text k → its image along the column."""
    m, k = np.array(p["m"], float), p["k"]
    probs = mm.contrastive_probs(np.log(m))
    right = (num(probs.image_to_text[k, k]), num(probs.text_to_image[k, k]))
    made = two_slips(right,
                     ("画像→文を列で正規化", "画像→文の確率を行ではなく列の中で正規化した", {0: right[1]}),
                     ("文→画像を行で正規化", "文→画像の確率を列ではなく行の中で正規化した", {1: right[0]}))
    if made is None:
        return redraw()
    wrong, notes = made
    stem = (f"次の文章の（ア）・（イ）に最もよく当てはまる組み合わせを1つ選べ。\n\n" + _table_stem(p["m"])
            + f"正しい組（画像 {k + 1}・文 {k + 1}）について、画像 {k + 1} が文 {k + 1} を選ぶ確率（画像→文）は（ア）、"
              f"文 {k + 1} が画像 {k + 1} を選ぶ確率（文→画像）は（イ）である。")
    expl = (f"画像→文は行 {k + 1} の $({', '.join(num(x) for x in m[k])})$ の中で ${num(m[k, k])} / {num(m[k].sum())} = {right[0]}$、"
            f"文→画像は列 {k + 1} の $({', '.join(num(x) for x in m[:, k])})$ の中で ${num(m[k, k])} / {num(m[:, k].sum())} = "
            f"{right[1]}$。CLIP の損失は、この 2 つの確率の $-\\ln$ を（すべての組で）平均したものである。")
    return Draft(stem, f"（ア）{right[0]}　（イ）{right[1]}", tuple(zip(wrong, notes)), expl)


# ---------------------------------------------------------------------------
def _params_schedule(rng: np.random.Generator) -> dict:
    while True:
        start, step, t = pick(rng, SCHEDULE_STARTS), pick(rng, SCHEDULE_STEPS), int(rng.integers(2, 5))
        betas = tuple(round(start + s * step, 2) for s in range(4))
        if sum(betas[:t]) < 1:
            return {"betas": betas, "t": t}


@calc_generator("multimodal.alpha_bar", "multimodal", _params_schedule)
def _alpha_bar(p: dict) -> Draft:
    """ᾱ_t = Π_{s≤t} (1 − β_s) of a short schedule."""
    betas, t = p["betas"], p["t"]
    right = mm.alpha_bar_at(betas, t)
    if num(mm.alpha_bar_beta_product(betas, t)) == "0":
        return redraw()                                  # Π β would show as 0: not a readable choice
    shown = ",\\ ".join(f"\\beta_{s + 1} = {num(b)}" for s, b in enumerate(betas))
    stem = (f"拡散モデルの拡散過程（データに少しずつノイズを加える過程）で、ステップごとのノイズの分散を ${shown}$ とする"
            f"（説明のため大きな値にしてある）。$x_0$ から $x_{t}$ へ 1 度に飛ぶ式 $x_t = \\sqrt{{\\bar\\alpha_t}}\\,x_0 + "
            f"\\sqrt{{1 - \\bar\\alpha_t}}\\,\\varepsilon$ に使う $\\bar\\alpha_{t}$ の値{BEST}")
    factors = " \\times ".join(f"(1 - {num(b)})" for b in betas[:t])
    wrong = (
        (num(mm.alpha_bar_sum(betas, t)), mc("ᾱ を β の和で計算", f"$1 - (\\beta_1 + \\dots + \\beta_{t})$ と、β を足してから 1 から引いた。"
                                                              "残る信号の割合 $1 - \\beta_s$ を掛け合わせるのが正しい。")),
        (num(mm.alpha_bar_beta_product(betas, t)), mc("β の積と取り違え", "$1 - \\beta_s$ ではなく $\\beta_s$ そのもの（加えるノイズの割合）を"
                                                                       "掛け合わせた。")),
        (num(mm.alpha_bar_last_step(betas, t)), mc("最後のステップだけ", f"ステップ {t} の $1 - \\beta_{t}$ だけを使い、それまでの"
                                                                      "ステップで信号が減った分を掛け忘れた。")),
    )
    expl = (f"$\\bar\\alpha_{t} = \\prod_{{s=1}}^{{{t}}} (1 - \\beta_s) = {factors} = {num(right)}$。"
            f"$x_0$ の信号は $\\sqrt{{\\bar\\alpha_{t}}}$ 倍に減り、ノイズの分散が $1 - \\bar\\alpha_{t}$ まで増える。")
    return Draft(stem, num(right), wrong, expl)


# ---------------------------------------------------------------------------
def _params_noise(rng: np.random.Generator) -> dict:
    alpha_bar, beta = pick(rng, NOISE_CASES)
    vals = (-2, -1, 0, 1, 2)
    return {"alpha_bar": alpha_bar, "beta": beta, "x0": (pick(rng, vals), pick(rng, vals)),
            "eps": (pick(rng, vals), pick(rng, vals))}


@calc_generator("multimodal.noisy_sample", "multimodal", _params_noise)
def _noisy_sample(p: dict) -> Draft:
    """x_t = √ᾱ_t x₀ + √(1 − ᾱ_t) ε."""
    a, beta, x0, eps = p["alpha_bar"], p["beta"], p["x0"], p["eps"]
    r = mm.add_noise(x0, eps, a)
    stem = (f"拡散モデルの拡散過程で、ステップ $t$ のノイズの分散が $\\beta_t = {num(beta, 4)}$、そこまでの累積が "
            f"$\\bar\\alpha_t = \\prod_{{s \\le t}}(1 - \\beta_s) = {num(a, 4)}$ である。元のデータ $x_0 = {_v(x0)}$ と、"
            f"標準正規分布から引いたノイズ $\\varepsilon = {_v(eps)}$ から、$x_t$ を 1 度に求めた値{BEST}")
    wrong = (
        (vec(mm.add_noise_swapped(x0, eps, a)), mc("x₀ とノイズの係数の取り違え", f"$x_0$ に $\\sqrt{{1 - \\bar\\alpha_t}} = {num(r.noise)}$、"
                                                                          f"ノイズに $\\sqrt{{\\bar\\alpha_t}} = {num(r.signal)}$ を掛けた。"
                                                                          "残るのは $x_0$ の $\\sqrt{\\bar\\alpha_t}$ 倍である。")),
        (vec(mm.add_noise_no_sqrt(x0, eps, a)), mc("平方根の付け忘れ", "分散の割合 $\\bar\\alpha_t$ と $1 - \\bar\\alpha_t$ を"
                                                                "そのまま係数にした。分散が $\\bar\\alpha_t$ になるのは、係数が "
                                                                "$\\sqrt{\\bar\\alpha_t}$ のときである。")),
        (vec(mm.add_noise_one_step(x0, eps, beta)), mc("β_t と ᾱ_t の取り違え", "1 ステップ分の式 $\\sqrt{1 - \\beta_t}\\,x + "
                                                                           "\\sqrt{\\beta_t}\\,\\varepsilon$ を $x_0$ に当てた。"
                                                                           "$x_0$ から飛ぶときは累積の $\\bar\\alpha_t$ を使う。")),
    )
    expl = (f"$\\sqrt{{\\bar\\alpha_t}} = {num(r.signal)}$、$\\sqrt{{1 - \\bar\\alpha_t}} = {num(r.noise)}$ なので "
            f"$x_t = {num(r.signal)}\\,{_v(x0)} + {num(r.noise)}\\,{_v(eps)} = {vec(r.x_t)[1:-1]}$。"
            "各ステップのノイズを 1 つずつ足す代わりに、正規分布の和の性質でまとめて 1 度に加えられる。")
    return Draft(stem, vec(r.x_t), wrong, expl)


# ---------------------------------------------------------------------------
def _params_cross(rng: np.random.Generator) -> dict:
    return {"side": pick(rng, GRID_SIDES), "tokens": pick(rng, TEXT_TOKENS), "d_v": pick(rng, VALUE_DIMS),
            "false": int(rng.integers(3))}


@calc_generator("multimodal.cross_worst", "multimodal", _params_cross)
def _cross_worst(p: dict) -> Draft:
    """Statements about the cross-attention that lets a text steer an image; the wrong one
    reverses the roles of query and key/value, or forgets the text (a self-attention's table).
    The three true statements never contradict the false one outright."""
    side, n_txt, d_v, f = p["side"], p["tokens"], p["d_v"], p["false"]
    n_img = side * side
    ok = mm.cross_shapes(n_img, n_txt, d_v)
    swapped = mm.cross_shapes_swapped(n_img, n_txt, d_v)
    self_ = mm.cross_shapes_self(n_img, n_txt, d_v)
    stem = (f"文から画像を生成するモデルで、画像側の特徴（${side} \\times {side} = {tnum(n_img)}$ 個の位置）に、文エンコーダが出した "
            f"${n_txt}$ 個のトークンの情報をクロスアテンション（Source-Target Attention）で取り込む（バリューの次元 "
            f"$d_v = {d_v}$、ヘッドは 1 つ）。この層についての記述{WORST}")
    falses = (  # a 不適切 item's answer carries no note: the slip behind each is named in the explanation
        f"注意の重みの表は {num(swapped.weights[0])} 行 {num(swapped.weights[1])} 列で、各行の和が 1 になる。",
        f"出力は {num(swapped.output[0])} 行 {num(swapped.output[1])} 列で、文のトークンごとに 1 つのベクトルができる。",
        f"注意の重みの表は {num(self_.weights[0])} 行 {num(self_.weights[1])} 列で、画像の位置どうしの関係を表す。",
    )
    trues = {
        "w": (f"注意の重みの表は {num(ok.weights[0])} 行 {num(ok.weights[1])} 列で、各行の和が 1 になる。",
              mc("正しい記述（重みの表の形）", "クエリは画像の位置、キーは文のトークンから作るので、行が位置、列がトークン。")),
        "o": (f"出力は {num(ok.output[0])} 行 {num(ok.output[1])} 列で、画像の各位置が文から集めた情報を 1 つずつ受け取る。",
              mc("正しい記述（出力の形）", "出力の行数はクエリ（画像の位置）の数、列数はバリューの次元。")),
        "s": (f"1 つのヘッドで計算するクエリとキーの内積は {num(ok.scores)} 個である。",
              mc("正しい記述（内積の数）", f"{tnum(n_img)} 個のクエリのそれぞれが {n_txt} 個のキーと内積をとる。")),
        "kv": (f"キーもバリューも文のトークンから作るので、どちらも {n_txt} 行になる。",
               mc("正しい記述（キーとバリューの出どころ）", "キーとバリューは同じ文のトークンを別々の行列で射影したもの。")),
        "q": (f"クエリは画像側の {num(n_img)} 個の位置から作るので、$Q$ は {num(n_img)} 行になる。",
              mc("正しい記述（クエリの出どころ）", "画像を文に合わせて変えるので、問いかける側（クエリ）は画像の各位置。")),
    }
    kept = (("o", "s", "kv"), ("w", "s", "kv"), ("o", "kv", "q"))[f]
    answer = falses[f]
    wrong = tuple(trues[k] for k in kept)
    expl = (f"クエリは画像側の ${tnum(n_img)}$ 個の位置から、キーとバリューは文の ${n_txt}$ 個のトークンから作る。"
            f"重みの表は ${tnum(n_img)} \\times {n_txt}$（各行の和が 1）、出力は ${tnum(n_img)} \\times {d_v}$ で、"
            "画像の各位置が「文のどの語を見るか」を決めて情報を取り込む。誤りの記述は"
            + ("クエリとキー・バリューの出どころを入れ替えている（Q と K・V の出どころの取り違え）。" if f < 2
               else "画像の位置どうしの自己注意と取り違えている（画像の自己注意と混同）。"))
    return Draft(stem, answer, wrong, expl)


# ---------------------------------------------------------------------------
def _params_shape(rng: np.random.Generator) -> dict:
    return {"side": pick(rng, GRID_SIDES), "tokens": pick(rng, TEXT_TOKENS), "d_v": pick(rng, VALUE_DIMS)}


def _rows_cols(shape) -> str:
    return f"{num(shape[0])} 行 {num(shape[1])} 列"


@calc_generator("multimodal.cross_shape", "multimodal", _params_shape)
def _cross_shape(p: dict) -> Draft:
    """The shape of the weights of the cross-attention that lets a text steer an image: (n_img, n_txt)."""
    side, n_txt, d_v = p["side"], p["tokens"], p["d_v"]
    n_img = side * side
    ok = mm.cross_shapes(n_img, n_txt, d_v)
    stem = (f"文から画像を生成するモデルで、画像側の特徴（${side} \\times {side} = {tnum(n_img)}$ 個の位置）が、文エンコーダの出した "
            f"${n_txt}$ 個のトークンの情報をクロスアテンションで取り込み、画像の各位置の特徴を文に合わせて更新する（ヘッドは 1 つ）。"
            f"この層が計算する注意の重みの表（softmax の後）の大きさ{BEST}")
    wrong = (
        (_rows_cols(mm.cross_shapes_swapped(n_img, n_txt, d_v).weights),
         mc("Q と K・V の出どころの取り違え", "クエリを文から、キーとバリューを画像から作ると考えた。更新したいのは画像の各位置なので、"
                                            "クエリは画像から作り、表は位置の数だけ行を持つ。")),
        (_rows_cols(mm.cross_shapes_self(n_img, n_txt, d_v).weights),
         mc("画像の自己注意と混同", f"画像の位置どうしの自己注意の表と取り違えた。キーは文のトークンなので列は {n_txt} 個。")),
        (_rows_cols((n_txt, n_txt)),
         mc("クロスアテンションを文の自己注意と混同", "文のトークンどうしの自己注意の表と取り違えた。クエリは画像の各位置から作る。")),
    )
    expl = (f"クエリは画像の ${tnum(n_img)}$ 個の位置、キーは文の ${n_txt}$ 個のトークンから作るので、表は "
            f"${tnum(n_img)} \\times {n_txt}$（行 = 画像の位置、各行の和が 1）。出力は ${tnum(ok.output[0])} \\times {d_v}$ で、"
            "画像の位置ごとに 1 つの新しいベクトルができる。")
    return Draft(stem, _rows_cols(ok.weights), wrong, expl)


# ---------------------------------------------------------------------------
def _params_guidance(rng: np.random.Generator) -> dict:
    vals = (-1.0, -0.5, 0.0, 0.5, 1.0)
    while True:
        u = (pick(rng, vals), pick(rng, vals))
        c = (pick(rng, vals), pick(rng, vals))
        if u != c:
            return {"u": u, "c": c, "w": pick(rng, GUIDANCE)}


@calc_generator("multimodal.guidance", "multimodal", _params_guidance, advanced=True)
def _guidance(p: dict) -> Draft:
    """Classifier-free guidance: ε̂ = ε_u + w (ε_c − ε_u)."""
    u, c, w = p["u"], p["c"], p["w"]
    right = mm.guided_noise(u, c, w)
    stem = (f"分類器なしガイダンス（classifier-free guidance）で画像を生成する。あるステップで、文を与えないときのノイズの予測が "
            f"$\\varepsilon_u = {vec(u)[1:-1]}$、文を与えたときの予測が $\\varepsilon_c = {vec(c)[1:-1]}$ だった。"
            f"ガイダンスの強さ $w = {num(w)}$ で使うノイズの予測 $\\hat\\varepsilon${BEST}")
    wrong = (
        (vec(mm.guided_noise_swapped(u, c, w)), mc("ガイダンスを条件なしの側に", "$\\varepsilon_c + w(\\varepsilon_u - \\varepsilon_c)$ と、"
                                                                       "条件なしの予測の方向へ押し出した。文の効き目が逆に強く打ち消される。")),
        (vec(mm.guided_noise_cond_only(u, c, w)), mc("条件なしの予測の使い忘れ", "文を与えた予測を $w$ 倍しただけにした。ガイダンスは"
                                                                         "2 つの予測の差（文が加える向き）を $w$ 倍する。")),
        (vec(mm.guided_noise_reversed(u, c, w)), mc("差の向きの取り違え", "$\\varepsilon_u + w(\\varepsilon_u - \\varepsilon_c)$ と、"
                                                                  "差を逆向きにとった。文から遠ざかる画像になる。")),
    )
    expl = (f"$\\hat\\varepsilon = \\varepsilon_u + w(\\varepsilon_c - \\varepsilon_u) = {vec(u)[1:-1]} + {num(w)} \\times "
            f"{vec(np.subtract(c, u))[1:-1]} = {vec(right)[1:-1]}$。$w = 1$ なら文を与えた予測そのもの、$w > 1$ なら"
            "文が加える向きをさらに強めた予測になる。")
    return Draft(stem, vec(right), wrong, expl)
