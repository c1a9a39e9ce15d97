"""⑦-5 計算量: self-attention's n²·d for given n and d, how it grows, Table 1 as a blank,
the memory of the n × n scores, and a 不適切 item about the crossover n = d.

Answers and distractors: tutor.cost.layer_cost, tutor.cost.cheaper_layer, tutor.cost.ops_mistake,
tutor.cost.cost_growth, tutor.cost.attention_memory_bytes, tutor.cost.tiled_memory_bytes, tutor.cost.human_bytes.
"""
from __future__ import annotations

import numpy as np

import tutor

from .calc import BEST, BLANK, WORST, blank, calc_generator, draft, mc, num, pick, two_slips
from .core import Draft


NS = (10, 20, 50, 100, 200, 500, 1000)
DS = (64, 128, 256, 512, 1024)


def ops(x) -> str:
    return f"{int(x):,}"


def _params_nd(rng: np.random.Generator) -> dict:
    return {"n": pick(rng, NS), "d": pick(rng, DS)}


# ---------------------------------------------------------------------------
@calc_generator("cost.self_attention_ops", "cost", _params_nd)
def _self_attention_ops(p: dict) -> Draft:
    """The value of n²·d for self-attention."""
    n, d = p["n"], p["d"]
    right = tutor.cost.ops_mistake(n, d)
    stem = (f"論文『Attention Is All You Need』の表 1 にならい、系列長 $n = {n}$、表現の次元 $d = {d}$ のとき、"
            f"自己注意（Self-Attention）の層 1 つあたりの計算量を、O 記法の中の式に数を入れて見積もった値{BEST}")
    wrong = (
        (ops(tutor.cost.ops_mistake(n, d, "swapped")), mc("O(n²·d) と O(n·d²) の取り違え", "RNN（再帰層）の式 $n \\cdot d^2$ を使ってしまった。")),
        (ops(tutor.cost.ops_mistake(n, d, "linear")), mc("n² の見落とし", "すべてのトークンの組（$n^2$ 通り）ではなく、$n$ 個分しか数えなかった。")),
        (ops(tutor.cost.ops_mistake(n, d, "both_squared")), mc("d も 2 乗と誤解", "1 組の内積は $d$ 回の掛け算なので、$d$ は 1 乗である。")),
    )
    expl = (f"自己注意は $n^2$ 組の内積を、それぞれ $d$ 回の掛け算で計算するので $n^2 \\cdot d = {n}^2 \\times {d} = {ops(right).replace(',', '{,}')}$。"
            f"RNN の $n \\cdot d^2$ は {ops(tutor.cost.ops_mistake(n, d, 'swapped'))} で、n = {tutor.textbook.COST_N}、d = {tutor.textbook.COST_D} の論文の例では "
            f"{ops(tutor.cost.ops_mistake(tutor.textbook.COST_N, tutor.textbook.COST_D))} 対 "
            f"{ops(tutor.cost.ops_mistake(tutor.textbook.COST_N, tutor.textbook.COST_D, 'swapped'))} になる。")
    return Draft(stem, ops(right), wrong, expl)


# ---------------------------------------------------------------------------
# (n factor a, d factor b) with four different answers: b = 1 would make the RNN's a·b² equal the
# linear a·b, and a = b the RNN's a·b² equal the right a²·b, so those are never drawn (no redraw).
GROWTH_FACTORS = tuple((a, b) for a in (2, 3, 4, 5, 6, 7, 8, 10, 20) for b in (2, 3, 4, 5) if a != b)


def _params_growth(rng: np.random.Generator) -> dict:
    a, b = pick(rng, GROWTH_FACTORS)
    return {"a": a, "b": b}


@calc_generator("cost.growth", "cost", _params_growth)
def _growth(p: dict) -> Draft:
    """How many times self-attention's n²·d grows when n ×= a and d ×= b."""
    a, b = p["a"], p["b"]
    right = tutor.cost.cost_growth("self_attention", a, b)
    choices = (num(right), num(tutor.cost.cost_growth("recurrent", a, b)), num(tutor.cost.cost_growth("self_attention", a, b, "linear")),
               num(tutor.cost.cost_growth("self_attention", a, b, "both_squared")))

    change = f"系列長 $n$ を {a} 倍" + ("" if b == 1 else f"、表現の次元 $d$ を {b} 倍")
    stem = f"自己注意の層の計算量を $O(n^2 \\cdot d)$ とする。{change}にすると、1 層あたりの計算量はおよそ何倍になるか。その値{BEST}"
    notes = (
        mc("O(n²·d) と O(n·d²) の取り違え", "RNN の $n \\cdot d^2$ で見積もった。"),
        mc("n² の見落とし", "計算量が $n$ に比例すると考えた。トークンの組は $n^2$ 通りある。"),
        mc("d も 2 乗と誤解", "$d$ の倍率まで 2 乗した。"),
    )
    expl = (f"$n^2 \\cdot d$ で $n$ が {a} 倍、$d$ が {b} 倍になると、${a}^2 \\times {b} = {choices[0]}$ 倍。"
            f"n だけを 2 倍にすると {num(tutor.cost.cost_growth('self_attention', 2, 1))} 倍になり、長い文ほど急に重くなる。")
    return draft(choices[0], choices[1:], stem, notes, expl)


# ---------------------------------------------------------------------------
def _params_blank(rng: np.random.Generator) -> dict:
    d = pick(rng, DS)
    n = pick(rng, [x for x in NS + (2000, 4000) if x != d])
    return {"n": n, "d": d}


@calc_generator("cost.table_blank", "cost", _params_blank)
def _table_blank(p: dict) -> Draft:
    """(ア) self-attention's sequential ops, (イ) the RNN's path length, (ウ) the cheaper layer for n, d."""
    n, d = p["n"], p["d"]
    sa, rnn = tutor.cost.layer_cost("self_attention", n, d), tutor.cost.layer_cost("recurrent", n, d)
    cheap = tutor.cost.cheaper_layer(n, d)
    other = "recurrent" if cheap == "self_attention" else "self_attention"
    lab = tutor.cost.LAYER_LABELS
    stem = (f"{BLANK}\n\n論文の表 1 によると、自己注意の層の逐次操作の数は（ア）、再帰（RNN）層で離れた 2 つの位置を結ぶ"
            f"最大経路長は（イ）である。また系列長 $n = {n}$、表現の次元 $d = {d}$ では、層 1 つあたりの計算量が小さいのは（ウ）である。")
    right = (f"${sa.sequential}$", f"${rnn.max_path_length}$", lab[cheap])
    wrong, notes = two_slips(
        right,
        ("自己注意と RNN の取り違え", "全位置を同時に計算できる自己注意（逐次 $O(1)$）と順番に待つ RNN（経路長 $O(n)$）の値を入れ替えた",
         {0: f"${rnn.sequential}$", 1: f"${sa.max_path_length}$"}),
        ("O(n²·d) と O(n·d²) の取り違え", f"$n = {n}$ と $d = {d}$ の大小から計算量の判断を逆にした（$n < d$ なら自己注意が軽い）",
         {2: lab[other]}))
    expl = (f"自己注意は逐次操作 ${sa.sequential}$・最大経路長 ${sa.max_path_length}$、RNN は ${rnn.sequential}$・${rnn.max_path_length}$。"
            f"計算量は自己注意 $n^2 d = {ops(sa.operations).replace(',', '{,}')}$、RNN $n d^2 = {ops(rnn.operations).replace(',', '{,}')}$ なので、"
            f"軽いのは {lab[cheap]}（分かれ目は $n = d$）。")
    return draft(blank(*right), wrong, stem, notes, expl)


# ---------------------------------------------------------------------------
def _params_mem(rng: np.random.Generator) -> dict:
    return {"n": pick(rng, (1024, 2048, 4096, 8192)), "h": pick(rng, (4, 8, 16, 32)),
            "bytes": pick(rng, (2, 4)), "block": pick(rng, (64, 128))}


def _mib(nbytes: int) -> str:
    """A size in MiB as every choice of cost.memory shows it: '8,192 MiB', '0.03125 MiB' (exact: the
    sizes are powers of two, at least 2^15 bytes, so 5 decimals suffice)."""
    return f"{num(tutor.cost.bytes_to_mib(nbytes), 5)} MiB"


@calc_generator("cost.memory", "cost", _params_mem, advanced=True)
def _memory(p: dict) -> Draft:
    """Memory of the full n × n score matrices of h heads: h · n² · bytes."""
    n, h, b, blk = p["n"], p["h"], p["bytes"], p["block"]
    right = _mib(tutor.cost.attention_memory_bytes(n, h, b))
    kind = {2: "16 ビット（2 バイト）", 4: "32 ビット（4 バイト）"}[b]
    stem = (f"系列長 $n = {n}$、ヘッド数 $h = {h}$ の Multi-Head Attention で、全ヘッドの $n \\times n$ のスコア行列を"
            f"{kind}の浮動小数点数で一度にメモリに置く。その大きさを MiB（1 MiB = $2^{{20}}$ バイト）で表した値{BEST}")
    wrong = (
        (_mib(tutor.cost.attention_memory_bytes(n, 1, b)), mc("ヘッド数の掛け忘れ", f"1 ヘッド分だけを数えた。スコア行列はヘッドごとに {h} 枚ある。")),
        (_mib(tutor.cost.attention_memory_bytes(n, h, 1)), mc("要素のバイト数の掛け忘れ", f"要素の個数をそのままバイト数とした。1 要素は {b} バイトである。")),
        (_mib(tutor.cost.tiled_memory_bytes(n, blk, h, b)),
         mc("タイル分割との混同", f"FlashAttention のように {blk} × {blk} のブロックずつ計算する場合の量と取り違えた。ここでは表をまるごと置く。")),
    )
    expl = (f"1 ヘッドのスコア行列は ${n} \\times {n}$ 要素。{h} ヘッド分で {b} バイトずつなので、"
            f"${h} \\times {n}^2 \\times {b}$ バイト = {right}。系列長が 2 倍になるとこの量は 4 倍になる。")
    return Draft(stem, right, wrong, expl)


# ---------------------------------------------------------------------------
WORST_DS = (64, 100, 128, 200, 256, 300, 400, 500, 512, 768, 1000, 1024)   # every one < 2000 (the long n)
WORST_SMALL = {d: tuple(x for x in (10, 20, 30, 50, 100) if x < d) for d in WORST_DS}


def _params_worst(rng: np.random.Generator) -> dict:
    d = pick(rng, WORST_DS)
    small = pick(rng, WORST_SMALL[d])
    large = pick(rng, (2000, 4000, 8000))
    return {"d": d, "small": small, "large": large}


@calc_generator("cost.crossover_worst", "cost", _params_worst)
def _crossover_worst(p: dict) -> Draft:
    """Statements about n²·d vs n·d² around n = d; the wrong one uses the RNN's formula for self-attention."""
    d, s, big = p["d"], p["small"], p["large"]
    stem = f"表現の次元 $d = {d}$ のとき、自己注意（$O(n^2 \\cdot d)$）と RNN（$O(n \\cdot d^2)$）の層 1 つあたりの計算量についての記述{WORST}"
    answer = f"$n = {s}$ のとき、自己注意の計算量は {ops(tutor.cost.ops_mistake(s, d, 'swapped'))} である。"
    wrong = (
        (f"$n = {s}$ のとき、RNN の計算量は {ops(tutor.cost.layer_cost('recurrent', s, d).operations)} である。",
         mc("正しい記述（RNN）", f"$n \\cdot d^2 = {s} \\times {d}^2$ で正しい。")),
        (f"$n = d = {tutor.cost.crossover(d)}$ のとき、両者の計算量はどちらも {ops(tutor.cost.ops_mistake(d, d))} で等しい。",
         mc("正しい記述（交差点）", "$n^2 d = n d^2$ は $n = d$ のとき成り立つ。")),
        (f"$n = {big}$ のときは、RNN の方が計算量が小さい。",
         mc("正しい記述（長い系列）", f"$n = {big} > d = {d}$ なので $n^2$ の項が効き、自己注意の方が重くなる。")),
    )
    expl = (f"$n = {s}$ の自己注意は $n^2 d = {ops(tutor.cost.ops_mistake(s, d)).replace(',', '{,}')}$ である。"
            f"{ops(tutor.cost.ops_mistake(s, d, 'swapped'))} は RNN の式 $n d^2$ を当てはめた値で、O(n²·d) と O(n·d²) を取り違えている。")
    return Draft(stem, answer, wrong, expl)
