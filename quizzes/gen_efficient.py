"""⑩-3 モデルと推論を軽くする: a soft target of distillation at temperature T, the soft term of the
distillation loss (T² · H(p, q)), symmetric int-b quantization of a vector ((ア) scale, (イ) integer,
(ウ) restored value), the weights' memory after quantization, magnitude pruning of a weight vector,
the scores of a sliding window, and the KV cache of a grouped-query decoder (moved from ⑩-1).

Answers: tutor.efficient (soft_targets, soft_term, quantize, weight_bytes, magnitude_prune,
window_pairs, kv_cache_bytes); every distractor is one of the named mistakes next to those formulas
(soft_targets_undivided, soft_targets_multiplied, soft_targets_divided_after, soft_term_no_t2,
soft_term_t_once, soft_term_divided, soft_term_swapped, scale_power_of_two, scale_unsigned_steps,
quantize_truncated, weight_bytes_bits_as_bytes, weight_bytes_ratio_inverted, prune_signed,
prune_largest, prune_kept_share, window_pairs_no_edges, window_pairs_one_side, kv_cache_bytes_k_only,
kv_cache_bytes_query_heads, kv_cache_bytes_one_layer, kv_cache_bytes_no_batch).
Distillation's soft targets, quantization and pruning are the syllabus's モデルの軽量化; the loss's T²,
the sliding window and the KV cache are beyond it (発展).
"""
from __future__ import annotations

from fractions import Fraction
from itertools import permutations

import numpy as np

from tutor import efficient as ef

from .calc import BEST, BLANK, blank, calc_generator, draft, mc, num, pick, redraw, sample, tnum, two_slips, vec
from .core import Draft

CLASSES = ("A", "B", "C")
TEMPERATURES = (2, 3, 4)
BASES = (1, 2, 3, 4, 5, 6)                   # z_i = T · ln m_i: softmax(z / T) ∝ m_i
# four-class distributions of powers of two (losses are exact multiples of ln 2)
DYADIC = tuple(sorted(set(permutations((Fraction(1, 2), Fraction(1, 4), Fraction(1, 8), Fraction(1, 8))))))
DYADIC += ((Fraction(1, 4),) * 4,)
QUANT_SCALES = {8: (Fraction(1, 100), Fraction(2, 100), Fraction(5, 100), Fraction(1, 10)),
                4: (Fraction(1, 10), Fraction(2, 10), Fraction(5, 10))}
FRACTIONS = (Fraction(6, 10), Fraction(7, 10), Fraction(8, 10))   # x / S = k + f: rounding and cutting differ
MODEL_BILLIONS = (1, 3, 7, 8, 13, 70)
PRECISIONS = ((32, 8), (32, 4), (16, 8), (16, 4), (32, 16))
PRUNE_SHARES = {Fraction(1, 3): "3 分の 1", Fraction(2, 3): "3 分の 2"}    # of 6 weights: 2 or 4 removed
WINDOW_NS = (8, 10, 12, 16, 20, 32, 50, 64, 100, 128)
WINDOW_RADII = (1, 2, 3, 4)
KV_LAYERS = (24, 32, 40, 48, 64, 80)          # multiples of 8: every choice a whole number of MiB or a quarter
KV_HEADS = (16, 32, 40, 64)
KV_GROUPS = (1, 2, 4, 8)
KV_D_HEAD = (64, 128)
KV_CONTEXT = (1024, 2048, 4096, 8192, 16384, 32768)
KV_BATCH = (1, 2, 4, 8)


def _ln2(c: Fraction) -> str:
    """c · ln 2 inside $…$: 7\\ln 2, \\frac{7}{4}\\ln 2."""
    c = Fraction(c)
    if c.denominator == 1:
        return f"{c.numerator}\\ln 2"
    return f"\\frac{{{c.numerator}}}{{{c.denominator}}}\\ln 2"


def _frac(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"\\frac{{{x.numerator}}}{{{x.denominator}}}"


def _probs(p) -> str:
    return "(" + ",\\ ".join(_frac(x) for x in p) + ")"


# ---------------------------------------------------------------------------
def _params_soft(rng: np.random.Generator) -> dict:
    m = sorted((BASES[i] for i in sample(rng, len(BASES), 3)), reverse=True)
    return {"t": pick(rng, TEMPERATURES), "m": m, "j": int(rng.integers(3))}


def _ln_logit(m: int, t: int) -> str:
    return "0" if m == 1 else f"\\ln {m ** t}"


@calc_generator("efficient.soft_target", "efficient", _params_soft)
def _soft_target(p: dict) -> Draft:
    """A soft target of distillation: softmax(z / T)_j with z_i = ln(m_i^T), so that it is m_j / Σ m."""
    t, m, j = p["t"], p["m"], p["j"]
    z = ef.logits_for(m, t)
    right = ef.soft_targets(z, t).probs[j]
    wrong = (
        (num(ef.soft_targets_undivided(z, t)[j]), mc("温度で割り忘れ", f"ロジットを $T = {t}$ で割らずに普通の softmax をとった"
                                                               "（温度 1 の確率で、ソフトターゲットより尖っている）。")),
        (num(ef.soft_targets_multiplied(z, t)[j]), mc("温度を掛けた", f"ロジットを $T$ で割るところを $T = {t}$ 倍した。"
                                                              "分布はやわらぐどころか、さらに尖る。")),
        (num(ef.soft_targets_divided_after(z, t)[j]), mc("softmax の後で温度で割った", f"普通の softmax の確率を後から {t} で割った。"
                                                                            "これでは確率の合計が 1 にならない。")),
    )
    logits = ",\\ ".join(_ln_logit(x, t) for x in m)
    stem = (f"知識蒸留で、ある入力に対する教師モデルのロジット（softmax の前の値）が、クラス A, B, C の順に "
            f"$z = ({logits})$ だった（$\\ln$ は自然対数）。温度 $T = {t}$ の softmax で作るソフトターゲットのうち、"
            f"クラス {CLASSES[j]} の確率{BEST}")
    expl = (f"$z_i / T$ は $\\ln {m[0]},\\ \\ln {m[1]},\\ \\ln {m[2]}$ になるので、$e^{{z_i/T}}$ は ${m[0]},\\ {m[1]},\\ {m[2]}$。"
            f"よってクラス {CLASSES[j]} の確率は ${m[j]} / ({m[0]} + {m[1]} + {m[2]}) = {num(right)}$。"
            "温度を上げると順位はそのままで、小さな確率が持ち上がる（教師がどのクラスを似ていると見ているかが生徒に伝わる）。")
    return Draft(stem, num(right), wrong, expl)


# ---------------------------------------------------------------------------
def _params_loss(rng: np.random.Generator) -> dict:
    i, j = sample(rng, len(DYADIC), 2)
    return {"t": pick(rng, TEMPERATURES), "p": DYADIC[i], "q": DYADIC[j], "drop": int(rng.integers(4))}


@calc_generator("efficient.distill_loss", "efficient", _params_loss, advanced=True)
def _distill_loss(p: dict) -> Draft:
    """The soft part of the distillation loss, T² · H(p, q), with power-of-two probabilities."""
    t, pt, qt = p["t"], [float(x) for x in p["p"]], [float(x) for x in p["q"]]
    right = ef.as_ln2_multiple(ef.soft_term(pt, qt, t))
    mistakes = (
        (f"${_ln2(ef.as_ln2_multiple(ef.soft_term_no_t2(pt, qt, t)))}$",
         mc("T² の掛け忘れ", "交差エントロピー $-\\sum p_i \\log q_i$ だけで止め、温度で小さくなった勾配を補う $T^2$ を掛けなかった。")),
        (f"${_ln2(ef.as_ln2_multiple(ef.soft_term_t_once(pt, qt, t)))}$",
         mc("T を 1 回だけ掛けた", f"交差エントロピーに $T^2 = {t * t}$ ではなく $T = {t}$ を掛けた。")),
        (f"${_ln2(ef.as_ln2_multiple(ef.soft_term_swapped(pt, qt, t)))}$",
         mc("交差エントロピーの向きの取り違え", "$-\\sum q_i \\log p_i$ と、生徒の確率で教師の確率の対数を重み付けした。"
                                           "目標は教師のソフトターゲット $p$ なので、$p$ で重み付けする。")),
        (f"${_ln2(ef.as_ln2_multiple(ef.soft_term_divided(pt, qt, t)))}$",
         mc("T² で割った", f"交差エントロピーに $T^2 = {t * t}$ を掛けるところを、$T^2$ で割った。")),
    )
    stem = (f"Hinton らの知識蒸留で、温度 $T = {t}$ の softmax で作った教師のソフトターゲットが "
            f"$p = {_probs(p['p'])}$、同じ温度での生徒の確率が $q = {_probs(p['q'])}$ だった。"
            "ソフトターゲットとの交差エントロピー（自然対数）に、温度によって勾配が小さくなる分を補う係数を掛けた、"
            f"損失のソフトターゲットの項の値{BEST}")
    ce = ef.as_ln2_multiple(ef.soft_cross_entropy(pt, qt))
    expl = (f"$q$ の各成分は $2^{{-k}}$ なので $-\\log q_i = k \\ln 2$。交差エントロピーは "
            f"$-\\sum p_i \\log q_i = {_ln2(ce)}$。ソフトターゲットから来る勾配は $1/T^2$ に比例して小さくなるので、"
            f"論文は $T^2 = {t * t}$ を掛ける：${t * t} \\times {_ln2(ce)} = {_ln2(right)}$。"
            "こうすると温度を変えても、正解ラベルとの項との釣り合いがほぼ変わらない。")
    wrong = tuple(m for i, m in enumerate(mistakes) if i != p["drop"])
    return Draft(stem, f"${_ln2(right)}$", wrong, expl)


# ---------------------------------------------------------------------------
def _params_quant(rng: np.random.Generator) -> dict:
    bits = pick(rng, (8, 8, 4))
    qmax = 2 ** (bits - 1) - 1
    scale = pick(rng, QUANT_SCALES[bits])
    ks = [int(k) for k in rng.choice(np.arange(1, qmax - 1), size=3, replace=False)]
    fs = [pick(rng, FRACTIONS) for _ in range(3)]
    signs = [int(s) for s in rng.choice((-1, 1), size=4)]
    steps = [Fraction(qmax)] + [k + f for k, f in zip(ks, fs)]          # x / S, the largest exactly qmax
    order = sample(rng, 4, 4)
    x = [float(signs[i] * steps[i] * scale) for i in order]
    return {"bits": bits, "x": x, "j": order.index(1 + int(rng.integers(3)))}


@calc_generator("efficient.quant_blank", "efficient", _params_quant)
def _quant_blank(p: dict) -> Draft:
    """(ア) the scale S = max|x| / (2^{b−1} − 1), (イ) q_j = round(x_j / S), (ウ) S · q_j."""
    bits, x, j = p["bits"], p["x"], p["j"]
    r = ef.quantize(x, bits)
    cut = ef.quantize_truncated(x, bits)
    right = (num(r.scale, 4), num(r.q[j]), num(r.dequantized[j], 4))
    scale_slips = (
        (ef.scale_power_of_two(x, bits), "最大の整数ではなく 2 のべきで割った",
         f"最大の絶対値を {r.qmax} ではなく $2^{{{bits - 1}}} = {2 ** (bits - 1)}$ で割った"),
        (ef.scale_unsigned_steps(x, bits), "符号なしの段数で割った",
         f"最大の絶対値を、符号なしの整数の段数 $2^{{{bits}}} - 1 = {2 ** bits - 1}$ で割った"),
    )
    s, name, why = scale_slips[j % 2]
    slips = two_slips(right, (name, why, {0: num(s, 4)}),
                      ("四捨五入せず切り捨てた", f"$x / S$ の小数部分を四捨五入せずに切り捨てた（0 の側へ）",
                       {1: num(cut.q[j]), 2: num(cut.dequantized[j], 4)}))
    if slips is None:
        return redraw()
    wrong, notes = slips
    xs = ",\\ ".join(num(v, 4) for v in x)
    stem = (f"{BLANK}\n\nベクトル $x = ({xs})$ を {bits} ビットの整数 $-{r.qmax}$ 〜 ${r.qmax}$ に対称に量子化する"
            f"（ゼロ点は 0）。絶対値が最大の値がちょうど端の整数 $\\pm {r.qmax}$ になるように、1 目盛りの大きさ（スケール）"
            f"$S$ を決めると $S =$（ア）である。第 {j + 1} 成分 ${num(x[j], 4)}$ を $x / S$ の四捨五入で整数にすると"
            f"（イ）になり、これを $S$ 倍して元の尺度に戻すと（ウ）になる。")
    expl = (f"（ア）$S = \\max|x| / {r.qmax} = {num(r.absmax, 4)} / {r.qmax} = {right[0]}$。"
            f"（イ）${num(x[j], 4)} / {right[0]} = {num(r.steps[j], 4)}$ を四捨五入して ${right[1]}$。"
            f"（ウ）${right[0]} \\times ({right[1]}) = {right[2]}$。元の値との差は {num(abs(r.error[j]), 4)} で、"
            f"いつも $S/2$ 以下に収まる。32 ビットの値を {bits} ビットにすると、重みのメモリは {bits}/32 になる。")
    return draft(blank(*right), wrong, stem, notes, expl)


# ---------------------------------------------------------------------------
def _params_memory(rng: np.random.Generator) -> dict:
    before, after = pick(rng, PRECISIONS)
    return {"n": pick(rng, MODEL_BILLIONS) * 10 ** 9, "from": before, "to": after}


def _gb(nbytes: float) -> str:
    return f"{num(ef.in_gb(nbytes), 2)} GB"


@calc_generator("efficient.weight_memory", "efficient", _params_memory)
def _weight_memory(p: dict) -> Draft:
    """The weights' memory after quantization: N · b / 8 bytes."""
    n, before, after = p["n"], p["from"], p["to"]
    right = ef.weight_bytes(n, after)
    wrong = (
        (_gb(ef.weight_bytes_bits_as_bytes(n, after)), mc("ビットとバイトの取り違え", f"1 パラメータ {after} ビットを {after} バイトと数え、"
                                                                             "8 で割らなかった。")),
        (_gb(ef.weight_bytes(n, before)), mc("量子化前のビット数のまま", f"量子化する前の {before} ビットのままで数えた。")),
        (_gb(ef.weight_bytes_ratio_inverted(n, after, before)),
         mc("減る割合を逆に掛けた", f"量子化前のメモリに {after}/{before} を掛けるところを、{before}/{after} を掛けた。")),
    )
    stem = (f"パラメータ数 ${_sci(n)}$ のモデルの重みが、1 つあたり {before} ビットの浮動小数点数で保存されている。"
            f"これを 1 つあたり {after} ビットに量子化したとき、重みの保存に必要なメモリ"
            f"（1 GB = $10^9$ バイト、スケールなど補助の値は無視する）{BEST}")
    expl = (f"1 バイトは 8 ビットなので、${_sci(n)} \\times {after} / 8 = {tnum(right)}$ バイト、つまり {_gb(right)}。"
            f"量子化前（{before} ビット）の {_gb(ef.weight_bytes(n, before))} の {after}/{before} になる。"
            "計算も整数で行える機器なら、メモリだけでなく速さと消費電力も改善する。")
    return Draft(stem, _gb(right), wrong, expl)


def _sci(n: int) -> str:
    head, power = str(n).rstrip("0"), len(str(n)) - 1
    mantissa = head[0] + ("." + head[1:] if len(head) > 1 else "")
    return f"{mantissa} \\times 10^{{{power}}}"


# ---------------------------------------------------------------------------
def _params_prune(rng: np.random.Generator) -> dict:
    mags = [int(v) + 1 for v in rng.choice(9, size=6, replace=False)]   # |w| in tenths, all different
    signs = rng.choice((-1, 1), size=6)
    return {"w": [float(s * m) / 10 for s, m in zip(signs, mags)], "s": pick(rng, tuple(PRUNE_SHARES))}


@calc_generator("efficient.prune", "efficient", _params_prune)
def _prune(p: dict) -> Draft:
    """Magnitude pruning of 6 weights: the share s (a third or two thirds) with the smallest |w| set to 0."""
    w, s, share, other = p["w"], float(p["s"]), PRUNE_SHARES[p["s"]], PRUNE_SHARES[1 - p["s"]]
    r = ef.magnitude_prune(w, s)
    wrong = (
        (vec(ef.prune_signed(w, s).pruned), mc("符号つきの値で小さいものを削った", "絶対値ではなく符号つきの値の小さい順に削ったので、"
                                                                       "絶対値の大きい負の重みまで消えた。")),
        (vec(ef.prune_largest(w, s).pruned), mc("大きいものから削った", "絶対値の大きい重みから 0 にした。出力への影響が大きい重みほど残す。")),
        (vec(ef.prune_kept_share(w, s).pruned), mc("削る割合と残す割合の取り違え", f"{share} を残す割合と読み、"
                                                                          f"{other} を削った。")),
    )
    stem = (f"学習済みの 6 個の重み $w$ に、大きさ（絶対値）による枝刈りをして、重みの {share} を 0 にする。"
            f"枝刈りの後の重み{BEST}\n\n$$w = {vec(w)[1:-1]}$$")
    expl = (f"6 個の {share} は {r.removed} 個。絶対値の小さい順に {r.removed} 個（絶対値 {num(r.threshold)} 以下）を 0 にし、"
            f"残りの {r.kept} 個はそのままにして {vec(r.pruned)} になる。実際にはこの後、残った重みを少し学習し直して精度を取り戻す。")
    return Draft(stem, vec(r.pruned), wrong, expl)


# ---------------------------------------------------------------------------
def _params_window(rng: np.random.Generator) -> dict:
    n = pick(rng, WINDOW_NS)
    return {"n": n, "r": pick(rng, [r for r in WINDOW_RADII if 2 * r < n])}


@calc_generator("efficient.window_pairs", "efficient", _params_window, advanced=True)
def _window_pairs(p: dict) -> Draft:
    """The scores of a sliding window of radius r over n tokens: n(2r + 1) − r(r + 1)."""
    n, r = p["n"], p["r"]
    w = ef.window_pairs(n, r)
    wrong = (
        (num(ef.window_pairs_no_edges(n, r)), mc("窓の端を数えなかった", f"どのトークンも {2 * r + 1} 個と組むとして $n(2r+1)$ とした。"
                                                                     "系列の両端では窓がはみ出し、組む相手が減る。")),
        (num(ef.window_pairs_one_side(n, r)), mc("片側の窓だけ数えた", f"自分より前の {r} 個（と自分）だけを数えた。"
                                                                    "ここでの窓は左右の両側に広がる。")),
        (num(w.full), mc("すべての組を数えた", f"窓を使わない通常の自己注意と同じく、${n}^2$ 個の組を数えた。")),
    )
    stem = (f"長さ {n} の系列で、各トークンが自分と左右それぞれ {r} 個以内のトークンだけに注意する"
            f"（スライディングウィンドウ注意。系列の端では窓が切れる）。計算するスコア $q_i \\cdot k_j$ の個数{BEST}")
    expl = (f"窓が切れないとすると 1 トークンあたり $2r + 1 = {w.width}$ 個で "
            f"${n} \\times {w.width} = {tnum(ef.window_pairs_no_edges(n, r))}$。"
            f"両端では窓の外にはみ出す分が、左端で $1 + 2 + \\dots + {r}$、右端でも同じだけあるので、"
            f"$r(r+1) = {ef.window_edge_cut(r)}$ を引いて ${tnum(w.pairs)}$。通常の自己注意の ${n}^2 = {tnum(w.full)}$ と比べて、"
            "系列長に比例する数で済む。")
    return Draft(stem, num(w.pairs), wrong, expl)


# ---------------------------------------------------------------------------
def _params_kv(rng: np.random.Generator) -> dict:
    heads = pick(rng, KV_HEADS)
    return {"l": pick(rng, KV_LAYERS), "h": heads, "g": pick(rng, [g for g in KV_GROUPS if heads % g == 0 and g < heads]),
            "dh": pick(rng, KV_D_HEAD), "t": pick(rng, KV_CONTEXT), "b": pick(rng, KV_BATCH), "drop": int(rng.integers(4))}


def _mib(nbytes: int) -> str:
    return f"{num(ef.in_mib(nbytes))} MiB"


@calc_generator("efficient.kv_cache", "efficient", _params_kv, advanced=True, moved_from="llm.kv_cache")
def _kv_cache(p: dict) -> Draft:
    """The KV cache of a grouped-query decoder: 2·L·n_kv·d_head·T·2 bytes·B."""
    args = (p["l"], p["g"], p["dh"], p["t"], 2, p["b"])
    right = ef.kv_cache_bytes(*args)
    mistakes = [
        (_mib(ef.kv_cache_bytes_k_only(*args)), mc("K と V の片方だけ数えた", "キーだけを数え、同じ大きさのバリューも保存することを忘れた。")),
        (_mib(ef.kv_cache_bytes_query_heads(p["l"], p["h"], *args[1:])),
         mc("クエリのヘッド数で数えた", f"KV ヘッドの数 {p['g']} ではなく、クエリのヘッドの数 {p['h']} でキーとバリューを数えた。")),
        (_mib(ef.kv_cache_bytes_one_layer(*args)), mc("KV キャッシュを 1 層分だけ数えた", f"1 層分で止め、{p['l']} 層がそれぞれ自分の K と V を持つことを忘れた。")),
        (_mib(ef.kv_cache_bytes_no_batch(*args)), mc("バッチの掛け忘れ", f"1 本の系列分で止め、同時に処理する {p['b']} 本の分を掛けなかった。")),
    ]
    if p["b"] == 1:
        mistakes.pop(3)
        wrong = tuple(mistakes)
    else:
        wrong = tuple(m for i, m in enumerate(mistakes) if i != p["drop"])
    stem = (f"デコーダだけのモデル（層数 {p['l']}、クエリのヘッド数 {p['h']}、キー・バリューのヘッド数 {p['g']} の "
            f"Grouped-Query Attention、1 ヘッドの次元 {p['dh']}）で、長さ {num(p['t'])} トークンの系列を {p['b']} 本同時に生成する。"
            f"各値を 16 ビット（2 バイト）で保存するとき、KV キャッシュに必要なメモリ（1 MiB = $2^{{20}}$ バイト）{BEST}")
    expl = (f"1 トークン・1 層あたり K と V の 2 つを、KV ヘッド {p['g']} 個 × {p['dh']} 次元ずつ 2 バイトで保存する。"
            f"$2 \\times {p['l']} \\times {p['g']} \\times {p['dh']} \\times {tnum(p['t'])} \\times 2 \\times {p['b']} = "
            f"{tnum(right)}$ バイト、つまり {_mib(right)}。クエリはそのステップでしか使わないので保存しない。")
    return Draft(stem, _mib(right), wrong, expl)
