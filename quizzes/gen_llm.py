"""⑩-1 大規模言語モデルとその後: the weights of a GPT-style decoder (12·L·d²), the compute-optimal
number of tokens for a budget, Swin's window attention against global attention, and MAE's visible
patches (the reward model's loss moved to ⑩-2, quizzes/gen_adapt.py as adapt.reward_loss; the KV cache's
memory to ⑩-3, quizzes/gen_efficient.py as efficient.kv_cache).

Answers: tutor.llm (rule_of_thumb_params, compute_optimal, swin_cost, mae_image_visible); every distractor
is one of the named mistakes next to those formulas (rule_params_no_ffn, rule_params_square_ffn,
rule_params_linear_d, rule_params_one_layer, optimal_tokens_params_instead, optimal_tokens_no_sqrt,
optimal_tokens_six_divided, swin_ratio_m_not_m2, swin_ratio_one_window, swin_ratio_sides_added,
mae_visible_masked_instead, mae_visible_all_patches, mae_visible_p_not_p2).
The decoder's weights and Swin's window ratio are in the G検定 syllabus (GPT-n, Swin Transformer: the syllabus
map, quizzes/data/syllabus.json); the optimal tokens and MAE are beyond it (発展).
"""
from __future__ import annotations

import numpy as np

from tutor import llm, numfmt

from .calc import BEST, calc_generator, mc, num, pick, tnum
from .core import Draft

LAYERS = (6, 8, 12, 16, 24, 32, 40, 48, 64, 96)
WIDTHS = (256, 512, 768, 1024, 1280, 1600, 2048, 4096, 5120, 12288)
PARAM_SCALES = (1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 25, 35, 45, 65, 70)    # N = k × 10^e
PARAM_POWERS = (8, 9, 10)
SWIN_MAPS = (14, 16, 24, 28, 32, 48, 56, 64, 96, 112)
SWIN_WINDOWS = (2, 4, 6, 7, 8, 12, 14)
SWIN_CHANNELS = (96, 128, 192)
MAE_IMAGES = (192, 224, 256, 320, 384, 448, 512)
MAE_PATCHES = (8, 14, 16, 32)
MAE_PERCENTS = (75, 75, 75, 50, 80, 90)       # MAE's own choice, 75 %, drawn most often


def _sci(x: int) -> str:
    """A whole number in powers of ten inside $…$, every digit kept: 588000… → 5.88 \\times 10^{23}."""
    if int(x) != x:
        raise ValueError(f"{x!r} は整数ではありません。")
    digits = str(int(x))
    mantissa = digits.rstrip("0")
    head = mantissa[0] + ("." + mantissa[1:] if len(mantissa) > 1 else "")
    return f"{head} \\times 10^{{{len(digits) - 1}}}"


# ---------------------------------------------------------------------------
def _params_decoder(rng: np.random.Generator) -> dict:
    return {"l": pick(rng, LAYERS), "d": pick(rng, WIDTHS), "drop": int(rng.integers(4))}


@calc_generator("llm.decoder_weights", "llm", _params_decoder)
def _decoder_weights(p: dict) -> Draft:
    """The weight matrices of L decoder blocks: 12·L·d²."""
    l, d = p["l"], p["d"]
    right = llm.rule_of_thumb_params(l, d)
    mistakes = [
        (num(llm.rule_params_no_ffn(l, d)), mc("FFN の 8d² の数え忘れ", f"注意の $W_Q, W_K, W_V, W_O$（$4d^2$）だけを数え、"
                                                                   f"FFN の ${tnum(d)} \\times {tnum(4 * d)}$ と逆向きの行列を落とした。")),
        (num(llm.rule_params_square_ffn(l, d)), mc("FFN の幅を d とした", "FFN の中間の幅を $4d$ ではなく $d$ と考え、"
                                                                        "FFN の 2 つの行列を $d \\times d$ として数えた。")),
        (num(llm.rule_params_linear_d(l, d)), mc("d の 2 乗の付け忘れ", f"行列 1 つを ${tnum(d)} \\times {tnum(d)}$ ではなく "
                                                                      f"${tnum(d)}$ 個と数えた。")),
        (num(llm.rule_params_one_layer(l, d)), mc("1 層分だけ数えた", f"1 層分の $12d^2$ を求めたところで止め、{l} 層分にしなかった。")),
    ]
    wrong = tuple(m for i, m in enumerate(mistakes) if i != p["drop"])
    stem = (f"GPT と同じデコーダだけの Transformer（層数 $L = {l}$、幅 $d_{{\\text{{model}}}} = {tnum(d)}$、FFN の中間の幅 "
            f"$4d_{{\\text{{model}}}}$）について、全 $L$ 層の注意と FFN の変換行列のパラメータ数"
            f"（バイアス・層正規化・埋め込みは数えない）{BEST}")
    gpt3 = llm.GPT_SIZES["GPT-3 175B"]
    g3 = llm.gpt_param_count(gpt3["layers"], gpt3["d_model"], context=gpt3["context"])
    expl = (f"1 層には注意の $W_Q, W_K, W_V, W_O$（各 $d \\times d$、計 $4d^2$）と FFN の $d \\times 4d$、$4d \\times d$（計 $8d^2$）"
            f"があり、合わせて $12d^2$。$12 \\times {l} \\times {tnum(d)}^2 = {tnum(right)}$（約 ${numfmt.sci(right, 2, tex=True)}$）。"
            f"GPT-3（{gpt3['layers']} 層、幅 {num(gpt3['d_model'])}）では約 ${numfmt.sci(g3.rule_of_thumb, 2, tex=True)}$ になり、"
            f"埋め込みなどを足した全体は約 ${numfmt.sci(g3.total, 2, tex=True)}$（175B と呼ばれる大きさ）。")
    return Draft(stem, num(right), wrong, expl)


# ---------------------------------------------------------------------------
def _params_budget(rng: np.random.Generator) -> dict:
    return {"n": pick(rng, PARAM_SCALES) * 10 ** pick(rng, PARAM_POWERS)}


@calc_generator("llm.optimal_tokens", "llm", _params_budget, advanced=True)
def _optimal_tokens(p: dict) -> Draft:
    """The compute-optimal number of training tokens for a budget C: D = 20·√(C / 120)."""
    c = llm.budget_for(p["n"])
    best = llm.compute_optimal(c)
    wrong = (
        (f"${_sci(llm.optimal_tokens_params_instead(c))}$",
         mc("パラメータ数とトークン数の取り違え", f"$N = \\sqrt{{C/120}} = {_sci(best.params)}$ まで求め、それをトークン数と答えた。"
                                               "トークン数はその 20 倍。")),
        (f"${_sci(llm.optimal_tokens_no_sqrt(c))}$",
         mc("平方根の取り忘れ", "$120N^2 = C$ から $N = C/120$ と平方根を取らずに求め、その 20 倍をトークン数とした。")),
        (f"${_sci(llm.optimal_tokens_six_divided(c))}$",
         mc("C = 6ND の 6 の置き場所の取り違え", "計算量を $C = ND/6$ と 6 で割るものと考えて N を求めたため、"
                                            "N もトークン数も 6 倍大きくなった。")),
    )
    stem = (f"学習の計算量を $C = 6ND$（$N$：パラメータ数、$D$：学習に使うトークン数、単位は FLOP）とし、"
            f"計算量を最適に配分するとトークン数がパラメータ数の 20 倍（$D = 20N$）になるとする。"
            f"計算量の予算が $C = {_sci(c)}$ のとき、最適な学習トークン数 $D$ {BEST}")
    expl = (f"$D = 20N$ を代入すると $C = 6N \\cdot 20N = 120N^2$。よって $N = \\sqrt{{C/120}} = {_sci(best.params)}$、"
            f"$D = 20N = {_sci(best.tokens)}$。予算を 4 倍にすると N と D がどちらも 2 倍になる"
            "（Chinchilla：700 億パラメータを 1.4 兆トークンで学習）。")
    return Draft(stem, f"${_sci(best.tokens)}$", wrong, expl)


# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
def _params_swin(rng: np.random.Generator) -> dict:
    h = pick(rng, SWIN_MAPS)
    return {"h": h, "m": pick(rng, [m for m in SWIN_WINDOWS if h % m == 0 and h // m >= 2]), "c": pick(rng, SWIN_CHANNELS)}


@calc_generator("llm.swin_ratio", "llm", _params_swin)
def _swin_ratio(p: dict) -> Draft:
    """Global against window attention (the QKᵀ and A·V part): (hw)² / (M²·hw) = hw / M²."""
    h, m, c = p["h"], p["m"], p["c"]
    cost = llm.swin_cost(h, h, c, m)
    wrong = (
        (f"{num(llm.swin_ratio_m_not_m2(h, h, m))} 倍", mc("M² ではなく M で割った", f"窓 1 つのトークン数を ${m}^2$ ではなく ${m}$ と考えた。")),
        (f"{num(llm.swin_ratio_one_window(h, h, m))} 倍", mc("窓 1 つ分とだけ比べた", f"窓の注意の計算量を窓 1 つ分（$({m}^2)^2 C$）で止め、"
                                                                         f"窓が {num(cost.windows)} 個あることを掛けなかった。")),
        (f"{num(llm.swin_ratio_sides_added(h, h, m))} 倍", mc("窓の数を縦と横の足し算で数えた", "縦に並ぶ窓の数と横に並ぶ窓の数を"
                                                                                  "掛けずに足した。")),
    )
    stem = (f"Swin Transformer のように、${h} \\times {h}$ トークン（各 {c} チャンネル）の特徴マップを ${m} \\times {m}$ の窓に"
            f"重なりなく分け、窓の中だけで自己注意をとる。スコア $QK^\\top$ と重み付き和の計算量が、マップ全体で自己注意をとる場合の"
            f"何分の 1 になるか（全体の計算量が窓の場合の何倍か）{BEST}")
    expl = (f"全体では ${tnum(cost.tokens)}$ 個のトークンどうしのすべての組を作るので $(hw)^2 C$、窓の中では 1 トークンが "
            f"${m}^2$ 個とだけ組むので $M^2 \\cdot hw \\cdot C$。比は $hw / M^2 = {tnum(cost.tokens)} / {m}^2 = "
            f"{tnum(cost.attention_ratio)}$ で、窓の数と同じ。"
            "Swin の論文の式では、Q・K・V と出力の射影 $4hwC^2$ はどちらにも同じだけかかる。")
    return Draft(stem, f"{num(cost.attention_ratio)} 倍", wrong, expl)


# ---------------------------------------------------------------------------
def _params_mae(rng: np.random.Generator) -> dict:
    image = pick(rng, MAE_IMAGES)
    patch = pick(rng, [q for q in MAE_PATCHES if image % q == 0])
    n = (image // patch) ** 2
    pct = pick(rng, [x for x in MAE_PERCENTS if n * (100 - x) % 100 == 0] or [75])
    return {"image": image, "patch": patch, "pct": pct}


@calc_generator("llm.mae_visible", "llm", _params_mae, advanced=True)
def _mae_visible(p: dict) -> Draft:
    """MAE: the patches the encoder sees, N·(100 − p) / 100."""
    image, patch, pct = p["image"], p["patch"], p["pct"]
    right = llm.mae_image_visible(image, patch, pct)
    n = llm.mae_visible_all_patches(image, patch, pct)
    wrong = (
        (num(llm.mae_visible_masked_instead(image, patch, pct)),
         mc("隠すパッチと見えるパッチの取り違え", f"隠す {pct} % の側を数えた。エンコーダが受け取るのは残りの {100 - pct} %。")),
        (num(n), mc("エンコーダにもマスクトークンを入れると誤解", f"エンコーダが全 {num(n)} パッチ（隠した位置も含む）を受け取ると考えた。"
                                                      "隠した位置の印を加えるのはデコーダの入力だけ。")),
        (num(llm.mae_visible_p_not_p2(image, patch, pct)),
         mc("P² ではなく P で割った", f"画素数 ${image} \\times {image}$ をパッチ 1 辺の {patch} で割ってパッチの数とした。")),
    )
    stem = (f"MAE（Masked Autoencoder）で、${image} \\times {image}$ 画素の画像を ${patch} \\times {patch}$ のパッチに分け、"
            f"パッチの {pct} % をランダムに隠して事前学習する。このときエンコーダ（ViT）が処理するパッチの数{BEST}")
    expl = (f"パッチは $({image}/{patch})^2 = {tnum(n)}$ 個。そのうち {pct} % を隠すので、エンコーダに入るのは "
            f"${tnum(n)} \\times {100 - pct}/100 = {tnum(right)}$ 個。重いエンコーダは見えるパッチだけを処理し、"
            "軽いデコーダが隠した位置の印を加えた全パッチから画素を復元する。")
    return Draft(stem, num(right), wrong, expl)
