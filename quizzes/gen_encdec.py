"""⑦-3 エンコーダとデコーダ: the shape of the Source-Target Attention weights, its output,
where Q, K and V come from (blank), the number of attention sub-layers, and a 不適切 item
about the three weight matrices of an encoder-decoder.

Answers and distractors: tutor.formula (attention_shapes, attention_from_scores, attention_variants),
tutor.scaling (ln_scores, score_divisor), tutor.mask.allowed_pairs, tutor.encdec.attention_sublayers and tutor.head_dim.
"""
from __future__ import annotations

from functools import lru_cache
from types import MappingProxyType

import numpy as np

import tutor

from .calc import BEST, BLANK, WORST, blank, calc_generator, draft, ln_tex, mc, num, pick, sample, tex_vec, two_slips
from .core import Draft

LENGTHS = tuple(range(3, 13))  # source / target lengths (two different ones)
HEAD_SPLITS = ((256, 4), (256, 8), (512, 8), (512, 16), (768, 12), (128, 2), (64, 4))


def shape(t: tuple) -> str:
    return f"${t[0]} \\times {t[1]}$"


def _params_shape(rng: np.random.Generator) -> dict:
    d_model, h = HEAD_SPLITS[int(rng.integers(len(HEAD_SPLITS)))]
    n_src, n_tgt = (LENGTHS[v] for v in sample(rng, len(LENGTHS), 2))
    return {"d_model": d_model, "h": h, "n_src": n_src, "n_tgt": n_tgt}


def _shapes(n_q: int, n_k: int, p: dict) -> MappingProxyType:
    return _measured_shapes(n_q, n_k, tutor.head_dim(p["d_model"], p["h"]))


@lru_cache(maxsize=512)  # bounded: n_q, n_k ∈ LENGTHS (10 values), d_k = d_model/h of HEAD_SPLITS (3 values) → ≤ 300 keys
def _measured_shapes(n_q: int, n_k: int, d_k: int) -> MappingProxyType:
    """tutor.formula.attention_shapes (tutor.attention run on ones) — the same shapes every time for the same sizes."""
    return MappingProxyType(tutor.formula.attention_shapes(n_q, n_k, d_k, d_k))


# ---------------------------------------------------------------------------
@calc_generator("encdec.cross_shape", "encdec", _params_shape)
def _cross_shape(p: dict) -> Draft:
    """Shape of one head's Source-Target Attention weights: n_tgt × n_src."""
    n_src, n_tgt = p["n_src"], p["n_tgt"]
    right = _shapes(n_tgt, n_src, p)["weights"]
    d_k = tutor.head_dim(p["d_model"], p["h"])
    stem = (f"$d_{{\\text{{model}}}} = {p['d_model']}$、ヘッド数 $h = {p['h']}$ のエンコーダ・デコーダ型 Transformer で、"
            f"入力文（ソース）が {n_src} トークン、ここまでに作った出力文（ターゲット）が {n_tgt} トークンある。"
            f"デコーダの Source-Target Attention の 1 つのヘッドの注意の重みの行列（行がクエリ、列がキー）の形{BEST}")
    wrong = (
        (shape(_shapes(n_src, n_tgt, p)["weights"]),
         mc("クエリとキーの出どころの取り違え", "クエリをエンコーダ側、キーをデコーダ側から作ると考えた。クエリはデコーダ側である。")),
        (shape(_shapes(n_tgt, n_tgt, p)["weights"]),
         mc("Self-Attention との混同", "デコーダのマスク付き Self-Attention の重みと取り違えた。Source-Target Attention のキーはエンコーダ出力から作る。")),
        (shape(_shapes(n_tgt, n_src, p)["output"]),
         mc("重みと出力の混同", f"重みにバリュー（$d_v = {d_k}$ 次元）を掛けた後の出力の形を答えた。")),
    )
    expl = (f"Source-Target Attention ではクエリがデコーダ側の {n_tgt} トークン、キーとバリューがエンコーダ出力の {n_src} トークン"
            f"から作られる。重み $\\mathrm{{softmax}}(QK^\\top/\\sqrt{{d_k}})$ は {shape(right)} で、各行（ターゲットの各語）の和が 1 になる。")
    return Draft(stem, shape(right), wrong, expl)


# ---------------------------------------------------------------------------
def _params_out(rng: np.random.Generator) -> dict:
    m = rng.integers(1, 6, size=3).tolist()
    while len(set(m)) == 1:
        m = rng.integers(1, 6, size=3).tolist()
    v_enc = rng.integers(-2, 5, size=3).tolist()
    v_dec = rng.integers(-2, 5, size=3).tolist()
    return {"m": tuple(m), "d_k": pick(rng, (4, 9, 16)), "v_enc": tuple(v_enc), "v_dec": tuple(v_dec)}


@calc_generator("encdec.cross_output", "encdec", _params_out)
def _cross_output(p: dict) -> Draft:
    """Output of Source-Target Attention for one decoder query over three encoder tokens."""
    m, d_k = p["m"], p["d_k"]
    s = tutor.scaling.ln_scores(m, d_k)                                     # (3,)
    root = tutor.scaling.score_divisor(d_k)
    v_enc = np.array(p["v_enc"], float)[:, None]                 # (3, 1)
    v_dec = np.array(p["v_dec"], float)[:, None]                 # (3, 1)

    right, no_scale, uniform = tutor.formula.attention_variants(s, v_enc, d_k=d_k, mistakes=(None, "no_scale", "uniform"))
    dec = tutor.formula.attention_from_scores(s, v_dec, d_k=d_k)            # the values taken from the wrong side
    n_right = num(float(right.output[0, 0]))
    n_dec, n_no_scale, n_uniform = (num(float(r.output[0, 0])) for r in (dec, no_scale, uniform))

    row = ",\\ ".join(ln_tex(root, x) for x in m)
    stem = (f"翻訳モデルのデコーダの Source-Target Attention（$d_k = {d_k}$）で、いま作っている位置のクエリと、"
            f"エンコーダ出力の 3 トークンのキーとの内積 $QK^\\top$ が $({row})$ だった（$\\ln$ は自然対数）。"
            f"エンコーダ出力から作ったバリュー（1 次元）は ${tex_vec(p['v_enc'])}$、デコーダ側の 3 トークンから作った値は "
            f"${tex_vec(p['v_dec'])}$ である。この Source-Target Attention の出力{BEST}")
    notes = (
        mc("バリューの出どころの取り違え", "バリューをデコーダ側から取った。キーとバリューはどちらもエンコーダ出力から作る。"),
        mc("√d_k で割り忘れ", f"内積を $\\sqrt{{d_k}} = {num(root)}$ で割らずに softmax に入れた。"),
        mc("重みを均等と誤解", "スコアを使わず、3 つのバリューの単純平均をとった。"),
    )
    w = right.weights[0]                                     # the same weights for any V
    expl = (f"$\\sqrt{{d_k}} = {num(root)}$ で割るとスコアは $({', '.join(ln_tex(1, x) for x in m)})$ になり、softmax の重みは "
            f"$e^{{\\ln m}} = m$ の比 ${tex_vec(w)}$。これでエンコーダ側のバリュー ${tex_vec(p['v_enc'])}$ を重み付き平均して {n_right}。")
    return draft(n_right, (n_dec, n_no_scale, n_uniform), stem, notes, expl)


# ---------------------------------------------------------------------------
@calc_generator("encdec.roles_blank", "encdec", _params_shape)
def _roles_blank(p: dict) -> Draft:
    """(ア) where Q comes from, (イ) where K and V come from, (ウ) the weight shape."""
    n_src, n_tgt = p["n_src"], p["n_tgt"]
    dec, enc = "デコーダ側の表現", "エンコーダの出力"
    stem = (f"{BLANK}\n\nエンコーダ・デコーダ型の Transformer の Source-Target Attention では、クエリは（ア）から、"
            f"キーとバリューは（イ）から作られる。ソースが {n_src} トークン、ターゲットが {n_tgt} トークンのとき、"
            f"1 つのヘッドの注意の重みの行列（行がクエリ、列がキー）の形は（ウ）である。")
    right = (dec, enc, shape(_shapes(n_tgt, n_src, p)["weights"]))
    wrong, notes = two_slips(
        right,
        ("クエリとキー・バリューの出どころの取り違え", "訳文の各語が原文を参照する向きを逆に考え、問いかける側（クエリ）をエンコーダにした",
         {0: enc, 1: dec}),
        ("重みの行と列の取り違え", f"行をキー（ソースの {n_src} 語）、列をクエリ（ターゲットの {n_tgt} 語）として数えた",
         {2: shape(_shapes(n_src, n_tgt, p)["weights"])}))
    expl = (f"Source-Target Attention は、デコーダ側の {n_tgt} 語のそれぞれがエンコーダ出力の {n_src} 語のどこを見るかを決める。"
            f"クエリがデコーダ側、キーとバリューがエンコーダ側から作られるので、注意の重みは {shape(_shapes(n_tgt, n_src, p)['weights'])}。")
    return draft(blank(*right), wrong, stem, notes, expl)


# ---------------------------------------------------------------------------
def _params_layers(rng: np.random.Generator) -> dict:
    # N ≥ 2 (with N = 1 the answer 3N equals the one-layer count 3); up to 36 layers (deep models
    # such as 24- or 32-layer stacks) so that the item has about 30 variants
    return {"n": int(rng.integers(2, 37))}


@calc_generator("encdec.sublayer_count", "encdec", _params_layers)
def _sublayer_count(p: dict) -> Draft:
    """Attention sub-layers in an encoder-decoder with N layers each: 3N."""
    n = p["n"]
    right = tutor.encdec.attention_sublayers(n)
    stem = (f"原論文と同じ構成で、エンコーダとデコーダをそれぞれ $N = {n}$ 層重ねた Transformer がある。"
            f"モデル全体に含まれる Multi-Head Attention のサブレイヤーの数{BEST}")
    wrong = (
        (num(tutor.encdec.attention_sublayers(n, mistake="no_cross")),
         mc("Source-Target Attention の数え忘れ", "デコーダの各層には、マスク付き Self-Attention に加えて Source-Target Attention がある。")),
        (num(tutor.encdec.attention_sublayers(n, mistake="cross_in_encoder")),
         mc("エンコーダにも交差注意があると誤解", "エンコーダの各層の注意は Self-Attention の 1 つだけである。")),
        (num(tutor.encdec.attention_sublayers(n, mistake="one_layer")),
         mc("層の数の掛け忘れ", f"1 層ぶん（エンコーダ 1 + デコーダ 2）だけを数え、$N = {n}$ を掛けなかった。")),
    )
    expl = (f"エンコーダの各層に Self-Attention が 1 つ、デコーダの各層にマスク付き Self-Attention と Source-Target Attention の 2 つ。"
            f"合計 $(1 + 2) \\times {n} = {num(right)}$。原論文（N = 6）なら {num(tutor.encdec.attention_sublayers(6))} になる。")
    return Draft(stem, num(right), wrong, expl)


@lru_cache(maxsize=128)  # bounded: n_tgt, n_src ∈ LENGTHS (10 values) → ≤ 100 keys
def _row_sum(n_tgt: int, n_src: int) -> float:
    """Row sum of a cross-attention weight matrix, measured on the engine (ones as Q, K, V)."""
    w = tutor.attention(np.ones((n_tgt, 2)), np.ones((n_src, 2)), np.ones((n_src, 2))).weights
    return float(tutor.row_sums(w)[0])


# ---------------------------------------------------------------------------
@calc_generator("encdec.weights_worst", "encdec", _params_shape)
def _weights_worst(p: dict) -> Draft:
    """Which statement about the three attention weight matrices is wrong (Source-Target shape swapped)."""
    n_src, n_tgt = p["n_src"], p["n_tgt"]
    stem = (f"ソースが {n_src} トークン、ターゲットが {n_tgt} トークンのエンコーダ・デコーダ型 Transformer の、"
            f"1 つのヘッドの注意の重みの行列（行がクエリ、列がキー）についての記述{WORST}")
    answer = f"Source-Target Attention の注意の重みは {shape(_shapes(n_src, n_tgt, p)['weights'])} である。"
    wrong = (
        (f"エンコーダの Self-Attention の注意の重みは {shape(_shapes(n_src, n_src, p)['weights'])} で、0 に固定される成分はない。",
         mc("正しい記述（エンコーダ）", "エンコーダではマスクをかけないので、どのトークンも文全体を見られる。")),
        (f"デコーダのマスク付き Self-Attention の注意の重みは {shape(_shapes(n_tgt, n_tgt, p)['weights'])} で、"
         f"0 でない成分は最大 {num(tutor.mask.allowed_pairs(n_tgt))} 個である。",
         mc("正しい記述（デコーダのマスク）", "因果マスクで未来の位置が 0 になるので、見てよい組は対角とその左下だけになる。")),
        (f"Source-Target Attention の注意の重みの各行の和は {num(_row_sum(n_tgt, n_src))} である。",
         mc("正しい記述（行の和）", "softmax は各クエリ（行）ごとにキー方向で正規化するので、どの行も和が 1 になる。")),
    )
    expl = (f"Source-Target Attention はデコーダ側の {n_tgt} 語がクエリ、エンコーダ出力の {n_src} 語がキーなので、"
            f"注意の重みの行列は {shape(_shapes(n_tgt, n_src, p)['weights'])} であり、{shape(_shapes(n_src, n_tgt, p)['weights'])} ではない。")
    return Draft(stem, answer, wrong, expl)
