"""⑩-2 LLM を目的に合わせる: LoRA's trainable parameters of one matrix and its forward pass
h = W₀x + BAx, the adapters of one layer, the trainable parameters of LoRA / adapters / prompt
tuning in one model (a blank), the reward model's loss (moved from ⑩-1: llm.reward_loss), and RAG's
retrieval — the cosine similarity of a question to a document and the two documents it keeps.

Answers: tutor.adapt (lora_params, lora_forward, adapter_params, lora_model, prompt_tuning_params,
reward_loss_exp, retrieve); every distractor is one of the named mistakes next to those formulas
(lora_params_rdk, lora_params_b_only, lora_params_with_frozen, lora_forward_no_delta,
lora_forward_no_base, lora_forward_multiplied, adapter_params_no_bias, adapter_params_one_per_layer,
adapter_params_down_only, prompt_tuning_every_layer, the reward_loss_exp mistakes, cosine_no_norm,
cosine_one_norm, cosine_norms_added, top_by_dot, bottom_by_cosine, top_by_distance).
Vectors for the cosine have whole-number lengths (3² = 1² + 2² + 2², …), so every step is exact
arithmetic. Every item here is beyond the G検定 syllabus (発展): the syllabus names the methods,
not these calculations.
"""
from __future__ import annotations

import numpy as np

from tutor import adapt

from .calc import BEST, BLANK, blank, calc_generator, draft, mc, num, pick, tex_mat, tnum, two_slips, vec
from .core import Draft

WIDTHS = (512, 768, 1024, 1280, 2048, 4096, 5120, 8192, 12288)
RANKS = (1, 2, 4, 8, 16, 32, 64)
ADAPTER_WIDTHS = (256, 384, 512, 640, 768, 1024, 1280, 1536)
BOTTLENECKS = (8, 16, 24, 32, 48, 64, 96, 128, 192, 256)
BLANK_WIDTHS = (512, 768, 1024)
BLANK_LAYERS = (6, 12, 24)
BLANK_RANKS = (4, 8, 16)
BLANK_BOTTLENECKS = (16, 32, 64)
PROMPT_LENGTHS = (10, 20, 50, 100)
REWARD_SCALES = (1, 2, 3, 5)
# 3-number vectors of whole length (‖v‖² a square): the cosine's arithmetic stays exact
QUERIES = ((1, 2, 2), (2, 1, 2), (2, 2, 1), (0, 3, 4), (3, 0, 4), (4, 3, 0), (2, 3, 6), (6, 2, 3), (1, 4, 8), (4, 4, 7))
DOCUMENTS = QUERIES + ((0, 4, 3), (4, 0, 3), (3, 4, 0), (2, 6, 3), (3, 2, 6), (6, 3, 2), (8, 1, 4), (4, 8, 1),
                       (6, 3, 6), (2, 4, 4), (4, 2, 4), (4, 4, 2), (0, 6, 8), (6, 0, 8), (8, 6, 0), (3, 6, 2))
LETTERS = "ABCD"


def _ln(f) -> str:
    """ln of a fraction inside $…$: \\ln 4, \\ln\\frac{4}{3}."""
    return f"\\ln {f.numerator}" if f.denominator == 1 else f"\\ln\\frac{{{f.numerator}}}{{{f.denominator}}}"


# ---------------------------------------------------------------------------
def _params_lora(rng: np.random.Generator) -> dict:
    return {"d": pick(rng, WIDTHS), "k": pick(rng, WIDTHS), "r": pick(rng, RANKS)}


@calc_generator("adapt.lora_params", "adapt", _params_lora, advanced=True)
def _lora_params(p: dict) -> Draft:
    """LoRA's trainable parameters for one d × k matrix: r(d + k)."""
    d, k, r = p["d"], p["k"], p["r"]
    c = adapt.lora_params(d, k, r)
    wrong = (
        (num(adapt.lora_params_rdk(d, k, r)),
         mc("LoRA を r·d·k と数えた", f"$W_0$ と同じ大きさの行列を {r} 枚学習すると考え、$r \\times d \\times k$ とした。"
                                   "学習するのは細長い 2 つの行列 B と A だけである。")),
        (num(adapt.lora_params_b_only(d, k, r)),
         mc("B と A の片方だけ数えた", f"$B$（${tnum(d)} \\times {r}$）だけを数え、$A$（${r} \\times {tnum(k)}$）を足し忘れた。")),
        (num(adapt.lora_params_with_frozen(d, k, r)),
         mc("凍結した重みも学習すると数えた", f"凍結して更新しない $W_0$ の ${tnum(d)} \\times {tnum(k)}$ 個まで、"
                                          "学習するパラメータに足した。")),
    )
    stem = (f"事前学習済みのモデルの変換行列 $W_0$（${tnum(d)} \\times {tnum(k)}$）を凍結し、LoRA で更新分 "
            f"$\\Delta W = BA$（$B$ は ${tnum(d)} \\times r$、$A$ は $r \\times {tnum(k)}$、ランク $r = {r}$）だけを学習する。"
            f"この 1 つの行列について、学習するパラメータの数{BEST}")
    expl = (f"$B$ が ${tnum(d)} \\times {r} = {tnum(c.b)}$ 個、$A$ が ${r} \\times {tnum(k)} = {tnum(c.a)}$ 個で、"
            f"合わせて $r(d + k) = {tnum(c.trainable)}$。$W_0$ の ${tnum(c.frozen)}$ 個は凍結したままなので、"
            f"学習する数は行列全体の約 {num(c.ratio, 1)} 分の 1 になる。")
    return Draft(stem, num(c.trainable), wrong, expl)


# ---------------------------------------------------------------------------
def _params_forward(rng: np.random.Generator) -> dict:
    def nonzero(lo, hi, size):
        v = rng.integers(lo, hi + 1, size=size)
        while not v.all():
            v = rng.integers(lo, hi + 1, size=size)
        return v.tolist()
    w0 = rng.integers(-1, 4, size=(2, 2))
    while abs(int(round(np.linalg.det(w0)))) == 0:             # an invertible W₀: W₀x ≠ 0 for x ≠ 0
        w0 = rng.integers(-1, 4, size=(2, 2))
    return {"w0": w0.tolist(), "x": nonzero(-2, 3, 2), "a": [nonzero(-2, 2, 2)], "b": [[v] for v in nonzero(-2, 2, 2)]}


@calc_generator("adapt.lora_forward", "adapt", _params_forward, advanced=True)
def _lora_forward(p: dict) -> Draft:
    """h = W₀x + BAx for a 2 × 2 W₀ and r = 1."""
    w0, a, b, x = p["w0"], p["a"], p["b"], p["x"]
    f = adapt.lora_forward(w0, a, b, x)
    wrong = (
        (vec(adapt.lora_forward_no_delta(w0, a, b, x)),
         mc("ΔW の足し忘れ（LoRA）", "学習した $BA$ の分を足さず、凍結した $W_0 x$ だけを答えた（$B = 0$ のままの学習前の出力）。")),
        (vec(adapt.lora_forward_no_base(w0, a, b, x)),
         mc("元の重みの出力の足し忘れ（LoRA）", "$BAx$ だけを答え、凍結した $W_0 x$ を足さなかった。LoRA の出力は元の出力に更新分を足したもの。")),
        (vec(adapt.lora_forward_multiplied(w0, a, b, x)),
         mc("ΔW を足さずに掛けた", "$W_0$ に $BA$ を足すのではなく掛けて、$(W_0 BA)x$ を計算した。")),
    )
    stem = (f"LoRA で、凍結した $W_0 = {tex_mat(w0)}$ に、学習した $B = {tex_mat(b)}$ と $A = {tex_mat(a)}$（ランク $r = 1$）"
            f"による更新分 $\\Delta W = BA$ を加える（倍率 $\\alpha / r$ は 1 とする）。入力 $x = {tex_mat(np.array(x)[:, None])}$ に対する"
            f"出力 $h = W_0 x + BAx$ を横に並べて書いたもの{BEST}")
    expl = (f"$W_0 x = {vec(f.base)[1:-1]}$、$Ax = {num(f.ax[0])}$ なので $B(Ax) = {vec(f.delta)[1:-1]}$。"
            f"足して $h = {vec(f.h)[1:-1]}$。学習の前は $B = 0$ なので $h = W_0 x$ から始まり、学習後は "
            f"$W_0 + BA = {tex_mat(f.merged)}$ を 1 つの行列として使えば同じ $h$ が出る（推論の手間は増えない）。")
    return Draft(stem, vec(f.h), wrong, expl)


# ---------------------------------------------------------------------------
def _params_adapter(rng: np.random.Generator) -> dict:
    d = pick(rng, ADAPTER_WIDTHS)
    return {"d": d, "m": pick(rng, [m for m in BOTTLENECKS if m < d])}


@calc_generator("adapt.adapter_params", "adapt", _params_adapter, advanced=True)
def _adapter_params(p: dict) -> Draft:
    """The adapters of one layer: 2 × (2dm + d + m)."""
    d, m = p["d"], p["m"]
    c = adapt.adapter_params(d, m)
    wrong = (
        (num(adapt.adapter_params_no_bias(d, m)),
         mc("バイアスの数え忘れ（Adapter）", f"重みの ${d} \\times {m}$ と ${m} \\times {d}$ だけを数え、バイアスの {m} 個と {d} 個を落とした。")),
        (num(adapt.adapter_params_one_per_layer(d, m)),
         mc("1 層に 1 つだけと数えた（Adapter）", "Adapter 1 つ分で止め、1 層に 2 つ（注意の後と FFN の後）入ることを掛けなかった。")),
        (num(adapt.adapter_params_down_only(d, m)),
         mc("下向きの射影だけ数えた（Adapter）", f"幅 {d} を {m} に縮める全結合層だけを数え、{d} に戻す全結合層を足さなかった。")),
    )
    stem = (f"Houlsby らの Adapter は、幅 $d$ の表現をいったん幅 $m$ に縮める全結合層と、幅 $d$ に戻す全結合層"
            f"（どちらもバイアスあり）からなる。これを Transformer の各層に 2 つ（注意のサブ層の後と FFN のサブ層の後）入れ、"
            f"元のモデルは凍結して Adapter だけを学習する。$d = {d}$、$m = {m}$ のとき、1 層あたりに学習するパラメータの数{BEST}")
    expl = (f"1 つの Adapter は、縮める層が ${d} \\times {m} + {m} = {tnum(c.down)}$、戻す層が ${m} \\times {d} + {d} = {tnum(c.up)}$ で、"
            f"合わせて $2dm + d + m = {tnum(c.per_adapter)}$。1 層に 2 つなので ${tnum(c.per_layer_total)}$。")
    return Draft(stem, num(c.per_layer_total), wrong, expl)


# ---------------------------------------------------------------------------
def _params_blank(rng: np.random.Generator) -> dict:
    return {"d": pick(rng, BLANK_WIDTHS), "l": pick(rng, BLANK_LAYERS), "r": pick(rng, BLANK_RANKS),
            "m": pick(rng, BLANK_BOTTLENECKS), "n": pick(rng, PROMPT_LENGTHS)}


@calc_generator("adapt.peft_blank", "adapt", _params_blank, advanced=True)
def _peft_blank(p: dict) -> Draft:
    """(ア) LoRA on W_Q, W_V of every layer, (イ) two adapters per layer, (ウ) prompt tuning, in one model."""
    d, l, r, m, n = p["d"], p["l"], p["r"], p["m"], p["n"]
    lora, one = adapt.lora_trainable(l, 2, d, d, r), adapt.lora_trainable(1, 2, d, d, r)
    adapters, one_adapters = adapt.adapter_params(d, m, l), adapt.adapter_params(d, m, 1)
    right = (num(lora), num(adapters.total), num(adapt.prompt_tuning_params(n, d)))
    wrong, notes = two_slips(
        right,
        ("1 層分だけ数えた（PEFT）", f"LoRA と Adapter を 1 層分で止め、{l} 層ぶんを掛けなかった",
         {0: num(one), 1: num(one_adapters.total)}),
        ("ソフトプロンプトを全層に置くと誤解", f"プロンプトチューニングのベクトルを入力の前だけでなく {l} 層すべてに置くと考えた",
         {2: num(adapt.prompt_tuning_every_layer(n, d, l))}))
    stem = (f"{BLANK}\n\n幅 $d = {d}$、{l} 層の Transformer を凍結し、次の 3 つの方法で学習するパラメータの数を比べる。"
            f"各層の $W_Q$ と $W_V$（どちらも $d \\times d$）にランク $r = {r}$ の LoRA を付けると（ア）、"
            f"各層に 2 つずつ、幅 $m = {m}$ の Adapter（縮める層と戻す層、どちらもバイアスあり）を入れると（イ）、"
            f"入力の埋め込みの前に長さ $n = {n}$ のソフトプロンプトを置くプロンプトチューニングでは（ウ）である。")
    expl = (f"LoRA は 1 行列 $r \\cdot 2d = {tnum(adapt.lora_params(d, d, r).trainable)}$、1 層 2 行列で {l} 層なので {right[0]}。"
            f"Adapter は 1 つ $2dm + d + m = {tnum(adapters.per_adapter)}$、1 層に 2 つで {l} 層なので {right[1]}。"
            f"プロンプトチューニングは入力の前の $n \\times d = {n} \\times {d} = {tnum(adapt.prompt_tuning_params(n, d))}$ だけ。")
    return draft(blank(*right), wrong, stem, notes, expl)


# ---------------------------------------------------------------------------
def _params_reward(rng: np.random.Generator) -> dict:
    a, b = (int(x) + 1 for x in rng.choice(9, size=2, replace=False))
    return {"a": a, "b": b, "m": pick(rng, REWARD_SCALES)}


@calc_generator("adapt.reward_loss", "adapt", _params_reward, advanced=True, moved_from="llm.reward_loss")
def _reward_loss(p: dict) -> Draft:
    """The reward model's loss on one ranked pair: −log σ(r_w − r_l), with rewards written as logs."""
    a, b, m = p["a"], p["b"], p["m"]
    right = adapt.reward_loss_exp(a, b)
    wrong = (
        (f"${_ln(adapt.reward_loss_exp(a, b, 'swapped'))}$",
         mc("好ましい応答と好ましくない応答の取り違え", "差を $r_l - r_w$ の向きにとり、人が選ばなかった応答が勝つ確率で損失を計算した。")),
        (f"${_ln(adapt.reward_loss_exp(a, b, 'no_minus'))}$",
         mc("損失のマイナスの付け忘れ", "$\\log\\sigma(r_w - r_l)$ で止め、先頭のマイナスを付けなかった。確率の対数は 0 以下なので、"
                                  "このままでは損失が負になる。")),
        (f"${_ln(adapt.reward_loss_exp(a, b, 'no_sigmoid'))}$",
         mc("シグモイドと対数の付け忘れ", "報酬の差 $r_w - r_l$ にマイナスを付けただけで、シグモイドで確率に直して対数をとる手順を飛ばした。")),
    )
    w, lo = a * m, b * m
    stem = (f"RLHF の報酬モデルを、人が 2 つの応答を比べた結果で学習する。ある比較で、人が選んだ応答のスコアが "
            f"$r_w = \\ln {w}$、選ばなかった応答のスコアが $r_l = \\ln {lo}$ だった（$\\ln$ は自然対数）。"
            f"この 1 組の損失 $-\\log\\sigma(r_w - r_l)$（$\\sigma$ はシグモイド関数）の値{BEST}")
    p_win = adapt.reward_loss_exp(a, b, "win")
    expl = (f"$r_w - r_l = \\ln {w} - \\ln {lo} = {_ln(adapt.reward_loss_exp(a, b, 'margin'))}$ なので "
            f"$\\sigma(r_w - r_l) = \\frac{{1}}{{1 + e^{{-(r_w - r_l)}}}} = \\frac{{{p_win.numerator}}}{{{p_win.denominator}}}$"
            f"（人が選んだ応答が勝つと見積もる確率）。損失はその $-\\log$ で "
            f"$-\\ln\\frac{{{p_win.numerator}}}{{{p_win.denominator}}} = {_ln(right)}$。差が大きいほど 0 に近づく。")
    return Draft(stem, f"${_ln(right)}$", wrong, expl)


# ---------------------------------------------------------------------------
def _params_cosine(rng: np.random.Generator) -> dict:
    q = pick(rng, QUERIES)
    d = pick(rng, [v for v in DOCUMENTS if v != q and sum(a * b for a, b in zip(q, v)) > 0])
    return {"q": q, "d": d}


def _tvec(v) -> str:
    return "(" + ",\\ ".join(str(int(x)) for x in v) + ")"


@calc_generator("adapt.rag_cosine", "adapt", _params_cosine, advanced=True)
def _rag_cosine(p: dict) -> Draft:
    """cos(q, d) = q·d / (‖q‖ ‖d‖) of a question and a document."""
    q, d = p["q"], p["d"]
    r = adapt.retrieve(q, [d], 1)
    wrong = (
        (num(adapt.cosine_no_norm(q, d)),
         mc("長さで割り忘れた（内積のまま）", "内積 $q \\cdot d$ で止め、2 つのベクトルの長さで割らなかった。内積は長い文書ほど大きくなる。")),
        (num(adapt.cosine_one_norm(q, d)),
         mc("片方の長さだけで割った", f"内積を文書の長さ {num(r.doc_norms[0])} だけで割り、質問の長さ {num(r.query_norm)} で割らなかった。")),
        (num(adapt.cosine_norms_added(q, d)),
         mc("長さを掛けずに足した", f"内積を $\\|q\\| + \\|d\\| = {num(r.query_norm)} + {num(r.doc_norms[0])}$ で割った。"
                                   "分母は長さの積 $\\|q\\|\\|d\\|$。")),
    )
    stem = (f"RAG で、質問の埋め込み $q = {_tvec(q)}$ と文書の埋め込み $d = {_tvec(d)}$ のコサイン類似度 "
            f"$\\dfrac{{q \\cdot d}}{{\\|q\\|\\,\\|d\\|}}$ を計算する（$\\|q\\|$ はベクトルの長さ）。その値{BEST}")
    expl = (f"内積は $q \\cdot d = {num(r.dots[0])}$、長さは $\\|q\\| = {num(r.query_norm)}$、$\\|d\\| = {num(r.doc_norms[0])}$。"
            f"よって $\\dfrac{{{num(r.dots[0])}}}{{{num(r.query_norm)} \\times {num(r.doc_norms[0])}}} = {num(r.cosine[0])}$。"
            "向きだけを比べるので、文書が長くてベクトルが大きくても値は 1 を超えない。")
    return Draft(stem, num(r.cosine[0]), wrong, expl)


# ---------------------------------------------------------------------------
def _params_topk(rng: np.random.Generator) -> dict:
    """A question and four documents whose four rankings (cosine, dot product, least similar,
    raw distance) keep four different pairs; the search is over the seed's own draws."""
    while True:
        q = pick(rng, QUERIES)
        docs = [tuple(s * x for x in pick(rng, DOCUMENTS)) for s in (int(rng.integers(1, 3)) for _ in range(4))]
        r = adapt.retrieve(q, docs, 2)
        if (r.dots <= 0).any() or len(set(np.round(r.cosine, 9))) < 4:
            continue
        pairs = {frozenset(r.top), frozenset(adapt.top_by_dot(q, docs, 2)), frozenset(adapt.bottom_by_cosine(q, docs, 2)),
                 frozenset(adapt.top_by_distance(q, docs, 2))}
        if len(pairs) == 4:
            return {"q": q, "docs": docs}


def _pair(indices) -> str:
    a, b = sorted(indices)
    return f"文書 {LETTERS[a]} と文書 {LETTERS[b]}"


@calc_generator("adapt.rag_topk", "adapt", _params_topk, advanced=True)
def _rag_topk(p: dict) -> Draft:
    """The two documents of highest cosine similarity to the question."""
    q, docs = p["q"], p["docs"]
    r = adapt.retrieve(q, docs, 2)
    wrong = (
        (_pair(adapt.top_by_dot(q, docs, 2)),
         mc("長さで割り忘れた（内積のまま）", "内積の大きい順に選んだ。内積は文書のベクトルが長いほど大きくなるので、向きが近い文書を選べない。")),
        (_pair(adapt.bottom_by_cosine(q, docs, 2)),
         mc("類似度の小さい順に選んだ", "コサイン類似度の小さいほうから 2 件を選んだ。プロンプトに入れるのは最も似ている 2 件。")),
        (_pair(adapt.top_by_distance(q, docs, 2)),
         mc("ユークリッド距離と類似度の取り違え", "長さをそろえないまま、質問とのユークリッド距離が小さい 2 件を選んだ。距離は向きだけでなく長さの差にも左右される。")),
    )
    listing = "、".join(f"{LETTERS[i]} = ${_tvec(v)}$" for i, v in enumerate(docs))
    stem = (f"RAG で、質問の埋め込み $q = {_tvec(q)}$ と 4 つの文書の埋め込み（{listing}）のコサイン類似度を計算し、"
            f"類似度の高い上位 2 件を検索結果としてプロンプトに入れる。プロンプトに入る 2 件{BEST}")
    cos = "、".join(f"{LETTERS[i]} {num(r.cosine[i])}" for i in range(4))
    expl = ("内積 $q \\cdot d$ は " + "、".join(f"{LETTERS[i]} {num(r.dots[i])}" for i in range(4))
            + f"、長さは $\\|q\\| = {num(r.query_norm)}$、文書は " + "、".join(f"{LETTERS[i]} {num(r.doc_norms[i])}" for i in range(4))
            + f"。内積を長さの積で割ったコサイン類似度は {cos} で、上位 2 件は{_pair(r.top)}。"
            "内積のまま比べると、長い（ベクトルの大きい）文書が向きに関係なく上に来てしまう。")
    return Draft(stem, _pair(r.top), wrong, expl)
