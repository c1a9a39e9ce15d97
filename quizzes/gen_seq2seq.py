"""⓪-2 Seq2Seq と Attention の誕生: the additive-attention score, the context vector from given
scores, gradient clipping by norm, the size of plain Seq2Seq's context vector, one LSTM cell
update, and the parameter count of an LSTM or GRU layer.

Answers and distractors: tutor.seq2seq (additive_attention, additive_attention_mistake,
score_from_hidden, score_without_v, dot_attention, attend, fixed_context, uniform_context,
hard_context, clip_by_norm, clip_by_value, clip_mistake, context_sizes, context_size_mistake) and
tutor.seq2seq_rnn (cell_update, cell_update_mistake, rnn_param_count, rnn_param_count_mistake,
param_table).
"""
from __future__ import annotations

import numpy as np

from tutor import seq2seq as s2s
from tutor import seq2seq_rnn as rnn

from .calc import (BEST, TOKEN_SETS, _nums, calc_generator, draft, ln_tex, math_lines, mc, num, pick, shown, tex_mat,
                   tex_vec, tnum, vec)
from .core import Draft

V_CHOICES = ((1, -1), (-1, 1), (2, 1), (1, 2), (-1, 2), (2, -1), (1, -2), (-2, 1))


def _redraw() -> Draft:
    """Four equal texts: the registry rejects this attempt and draws the next one."""
    return draft("x", ("x", "x", "x"), "", ("", "", ""), "")


def _par(x) -> str:
    """A number for a product: negatives in parentheses, (−1) × (−0.762)."""
    text = num(x)
    return f"({text})" if text.startswith("-") else text


def _col(xs) -> str:
    """A column vector written as a transposed row: (0,\\ 1)^\\top."""
    return tex_vec(xs) + "^\\top"


# ---------------------------------------------------------------------------
def _params_score(rng: np.random.Generator) -> dict:
    return {"s": rng.integers(-1, 2, size=2).astype(float), "h": rng.integers(0, 3, size=2).astype(float),
            "w": rng.integers(-1, 2, size=(2, 2)).astype(float), "u": rng.integers(-1, 2, size=(2, 2)).astype(float),
            "v": np.array(pick(rng, V_CHOICES), dtype=float), "j": int(rng.integers(1, 4))}


def _tanh_hint(values) -> str:
    vals = sorted({int(x) for x in np.ravel(values)} - {0})
    if not vals:
        return ""
    tanhs = shown(np.tanh(np.array(vals, dtype=float)))
    return "必要なら " + "、".join(f"$\\tanh({v}) \\approx {num(t)}$" for v, t in zip(vals, tanhs)) + " を使ってよい。"


@calc_generator("seq2seq.additive_score", "seq2seq", _params_score)
def _additive_score(p: dict) -> Draft:
    """The additive-attention score e_j = vᵀ tanh(W s + U h_j), from the tanh values of the hint."""
    sv, hv, w, u, v, j = p["s"], p["h"], p["w"], p["u"], p["v"], p["j"]
    h = hv[None, :]                                            # (1, d_h) one encoder state
    right = s2s.additive_attention(sv, h, w, u, v)
    hidden = shown(right.hidden[0])                            # (d_a,) tanh values as the hint rounds them
    e_hand = s2s.score_from_hidden(hidden, v)
    n_right = num(e_hand)
    if n_right != num(right.scores[0]) or not np.any(right.pre):   # exact and pencil must agree; no all-zero sum
        return _redraw()
    n_lin = num(s2s.additive_attention_mistake(sv, h, w, u, v, "no_tanh").scores[0])
    n_dot = num(s2s.dot_attention(sv, h).scores[0])
    n_nov = num(s2s.score_without_v(hidden))

    stem = (f"Bahdanau らの加法注意（additive attention）では、デコーダの直前の状態 $s$ とエンコーダの状態 $h_{{{j}}}$ から、"
            f"スコア $e_{{{j}}} = v^\\top \\tanh(W s + U h_{{{j}}})$ を計算する（tanh は成分ごと）。次の値のときの $e_{{{j}}}${BEST}"
            f"{_tanh_hint(right.pre)}\n\n"
            + math_lines(f"W = {tex_mat(w)},\\quad U = {tex_mat(u)}", f"s = {_col(sv)},\\quad h_{{{j}}} = {_col(hv)},\\quad v = {_col(v)}"))
    notes = (
        mc("tanh の付け忘れ", f"$W s + U h_{{{j}}}$ に tanh をかけずに $v$ との内積をとると {n_lin} になる。"),
        mc("内積の注意との混同", f"パラメータを使わない内積の注意 $s \\cdot h_{{{j}}}$ を計算すると {n_dot} になる。"),
        mc("v の掛け忘れ", f"tanh の値を $v$ で重み付けせず、そのまま足すと {n_nov} になる。"),
    )
    terms = " + ".join(f"{_par(a)} \\times {_par(b)}" for a, b in zip(v, hidden))
    expl = (f"$W s = {_col(right.ws)}$、$U h_{{{j}}} = {_col(right.uh[0])}$ で、和は ${_col(right.pre[0])}$。"
            f"成分ごとに tanh をとると ${_col(hidden)}$。これと $v = {_col(v)}$ の内積が "
            f"$e_{{{j}}} = {terms} = {n_right}$ である。")
    return draft(n_right, (n_lin, n_dot, n_nov), stem, notes, expl)


# ---------------------------------------------------------------------------
def _params_context(rng: np.random.Generator) -> dict:
    while True:
        m = rng.integers(1, 7, size=3)
        if int((m == m.max()).sum()) == 1:                     # one clear largest score
            break
    return {"h": rng.integers(0, 4, size=(3, 2)).astype(float), "m": [int(x) for x in m],
            "k": int(rng.integers(2)), "tokens": TOKEN_SETS[int(rng.integers(len(TOKEN_SETS)))]}


@calc_generator("seq2seq.context", "seq2seq", _params_context)
def _context(p: dict) -> Draft:
    """A component of the context c = Σ_j α_j h_j from scores e_j = ln m_j (so α_j = m_j / Σ m)."""
    h, m, k, t = p["h"], p["m"], p["k"], p["tokens"]
    res = s2s.attend(h, np.log(np.array(m, dtype=float)))
    n_right = num(res.context[k])
    n_last = num(s2s.fixed_context(h)[k])
    n_mean = num(s2s.uniform_context(h)[k])
    n_hard = num(s2s.hard_context(h, res.scores)[k])

    e_tex = "(" + ",\\ ".join(ln_tex(1, x) for x in m) + ")"
    stem = (f"RNN のエンコーダが入力「{'・'.join(t)}」を読み、状態 $h_1, h_2, h_3$（下の行列の各行）を出した。"
            f"デコーダのある時刻で、注意のスコアが $e = {e_tex}$ と求まった。"
            f"softmax で重み $\\alpha$ を作り、文脈ベクトル $c = \\sum_j \\alpha_j h_j$ を計算するとき、"
            f"$c$ の第 {k + 1} 成分{BEST}\n\n$$H = {tex_mat(h)}$$")
    notes = (
        mc("最後の状態だけを使う", f"注意を使わない Seq2Seq のように最後の状態 $h_3$ だけを文脈にすると {n_last} になる。"),
        mc("均等な平均", f"スコアを無視して 3 つの状態を同じ重みで平均すると {n_mean} になる。"),
        mc("最大スコアの状態だけを使う", f"softmax で混ぜずに、スコアが最大の状態だけを選ぶと {n_hard} になる。"),
    )
    total = sum(m)
    terms = " + ".join(f"\\tfrac{{{a}}}{{{total}}} \\times {num(x)}" for a, x in zip(m, h[:, k]))
    expl = (f"$e_j = \\ln m_j$ なので $e^{{e_j}} = m_j$、重みは $\\alpha = {tex_vec(res.weights)}$"
            f"（$m_j / {total}$）。第 {k + 1} 成分は $c_{k + 1} = {terms} = {n_right}$。"
            "エンコーダのすべての状態を、重みに応じて混ぜている。")
    return draft(n_right, (n_last, n_mean, n_hard), stem, notes, expl)


# ---------------------------------------------------------------------------
NORM_BASES = ((3, 4), (6, 8), (5, 12), (8, 15), (1, 2, 2), (2, 3, 6), (2, 6, 9), (4, 4, 7), (1, 4, 8))
THRESHOLDS = (1, 2, 3, 4, 5, 10, 20)


def _params_clip(rng: np.random.Generator) -> dict:
    base = np.array(pick(rng, NORM_BASES), dtype=float)
    signs = rng.choice((-1.0, 1.0), size=base.shape[0])
    return {"g": base * signs * float(pick(rng, (1, 2))), "c": float(pick(rng, THRESHOLDS))}


@calc_generator("seq2seq.clip_norm", "seq2seq", _params_clip)
def _clip_norm(p: dict) -> Draft:
    """Gradient clipping by norm: g · min(1, c / ‖g‖)."""
    g, c = p["g"], p["c"]
    res = s2s.clip_by_norm(g, c)
    right = vec(res.clipped)
    if res.was_clipped:
        first = (vec(s2s.clip_by_value(g, c)), "要素ごとのクリップとの混同",
                 f"各成分を $[-{num(c)}, {num(c)}]$ に切りそろえると向きが変わり、{vec(s2s.clip_by_value(g, c))} になる。")
    else:
        first = (vec(s2s.clip_mistake(g, c, "always_scale")), "min の付け忘れ",
                 f"$\\|g\\|$ がしきい値以下でも $c / \\|g\\|$ を掛けると、短い勾配が長さ {num(c)} まで引き伸ばされる。")
    sq = vec(s2s.clip_mistake(g, c, "squared_norm"))
    l1 = vec(s2s.clip_mistake(g, c, "l1_norm"))

    stem = (f"勾配爆発を防ぐため、勾配ベクトル $g = {tex_vec(g)}$ をしきい値 $c = {num(c)}$ でノルムによりクリッピングする"
            f"（$g \\leftarrow g \\cdot \\min(1,\\ c / \\|g\\|)$、$\\|g\\|$ は L2 ノルム）。クリッピング後の勾配{BEST}")
    notes = (
        mc(first[1], first[2]),
        mc("ノルムの 2 乗で割る", f"$\\|g\\|^2 = {num(res.norm ** 2)}$ で割ってしまうと {sq} になる。"),
        mc("L1 ノルムとの混同", f"長さを成分の絶対値の和 {num(np.abs(g).sum())} で測ると {l1} になる。"),
    )
    sq_terms = " + ".join(f"{x}^2" for x in _nums(np.abs(g), 3))
    if res.was_clipped:
        how = (f"$c / \\|g\\| = {num(c)} / {num(res.norm)}$ を掛けて長さを {num(c)} に縮めると {right}。"
               "向きは変わらない。")
    else:
        how = f"$\\|g\\|$ がしきい値 {num(c)} 以下なので、$\\min(1, \\cdot) = 1$ で勾配はそのまま {right}。"
    expl = f"$\\|g\\| = \\sqrt{{{sq_terms}}} = {num(res.norm)}$。{how}"
    return draft(right, (first[0], sq, l1), stem, notes, expl)


# ---------------------------------------------------------------------------
def _params_size(rng: np.random.Generator) -> dict:
    return {"n": int(pick(rng, (5, 8, 10, 12, 15, 20, 25, 30, 40, 50))),
            "d": int(pick(rng, (32, 64, 100, 128, 200, 256, 300, 512)))}


@calc_generator("seq2seq.context_size", "seq2seq", _params_size)
def _context_size(p: dict) -> Draft:
    """The number of values in plain Seq2Seq's context vector (d_h, whatever the length n)."""
    n, d = p["n"], p["d"]
    sizes = s2s.context_sizes(n, d)
    right = num(sizes["fixed"])
    wrong = tuple(num(s2s.context_size_mistake(n, d, m)) for m in ("per_token", "tokens", "square"))

    stem = (f"Attention を使わない RNN の Seq2Seq（エンコーダ・デコーダ）で、{n} 語の入力文を隠れ状態 {d} 次元の"
            f"エンコーダが読む。エンコーダが読み終えてデコーダに渡す文脈ベクトルの要素の数{BEST}")
    notes = (
        mc("Attention 付きとの混同", f"全時刻の状態（{n} × {d}）を渡すのは Attention を使う場合で、{wrong[0]} 個になる。"),
        mc("単語数との混同", f"1 語につき 1 つの数を渡すと考えると {wrong[1]} 個になる。"),
        mc("再帰の変換行列との混同", f"{d} × {d} は状態から状態への変換行列の大きさで、{wrong[2]} 個になる。"),
    )
    expl = (f"文脈ベクトルはエンコーダの最後の隠れ状態そのものなので、入力が何語でも {right} 個の数しかない。"
            f"{n} 語の情報をこの {right} 個に詰め込むのが固定長ベクトルのボトルネックで、"
            f"Attention を使えば {n} 時刻分の状態（合わせて {num(sizes['attention'])} 個の数）を毎回参照できる。")
    return draft(right, wrong, stem, notes, expl)


# ---------------------------------------------------------------------------
# LSTM: one cell update from given gate values (tutor.seq2seq_rnn)
# ---------------------------------------------------------------------------
GATE_VALUES = (0.1, 0.2, 0.3, 0.7, 0.8, 0.9)          # σ(…) lies in (0, 1); never 0.5 (then 1 − f = f)
CANDIDATES = (-0.8, -0.6, -0.4, 0.4, 0.6, 0.8)        # tanh(…) lies in (−1, 1)
OLD_CELLS = (-3, -2, -1, 1, 2, 3)


def _params_cell(rng: np.random.Generator) -> dict:
    def draw(options):
        return np.array([options[int(k)] for k in rng.integers(len(options), size=2)], dtype=float)
    return {"f": draw(GATE_VALUES), "i": draw(GATE_VALUES), "g": draw(CANDIDATES), "c": draw(OLD_CELLS)}


@calc_generator("seq2seq.lstm_cell", "seq2seq", _params_cell)
def _lstm_cell(p: dict) -> Draft:
    """One LSTM cell update c_t = f ⊙ c_{t-1} + i ⊙ g from given gate values."""
    f, i, g, c = p["f"], p["i"], p["g"], p["c"]
    right = vec(rnn.cell_update(f, i, g, c))
    inv, no_i, swap = (vec(rnn.cell_update_mistake(f, i, g, c, m)) for m in rnn.CELL_MISTAKES)

    stem = (f"LSTM のある時刻で、忘却ゲート $f$、入力ゲート $i$（どちらもシグモイドの出力）、候補 $g$（tanh の出力）と、"
            f"1 つ前の時刻のセル $c_{{t-1}}$ が次の値になった（どれも 2 次元）。この時刻のセル $c_t${BEST}\n\n"
            + math_lines(f"f = {tex_vec(f)},\\quad i = {tex_vec(i)}", f"g = {tex_vec(g)},\\quad c_{{t-1}} = {tex_vec(c)}"))
    notes = (
        mc("忘却ゲートの向きの取り違え", f"$f$ を「忘れる割合」と読んで $(1 - f) \\odot c_{{t-1}} + i \\odot g$ とすると {inv} になる。"),
        mc("入力ゲートの掛け忘れ", f"候補 $g$ に入力ゲート $i$ を掛けずに $f \\odot c_{{t-1}} + g$ とすると {no_i} になる。"),
        mc("ゲートと掛ける相手の取り違え", f"$i \\odot c_{{t-1}} + f \\odot g$ と、2 つのゲートを入れ替えて掛けると {swap} になる。"),
    )
    terms = ",\\ ".join(f"{_par(a)} \\times {_par(b)} + {_par(x)} \\times {_par(y)}" for a, b, x, y in zip(f, c, i, g))
    expl = (f"LSTM のセルは $c_t = f \\odot c_{{t-1}} + i \\odot g$ で更新する（$\\odot$ は成分ごとの積）。"
            f"前のセルを忘却ゲートの割合だけ残し、候補を入力ゲートの割合だけ書き足すので、"
            f"$c_t = ({terms}) = {tex_vec(rnn.cell_update(f, i, g, c))}$。足し算で更新されることが、記憶と勾配を長く運べる理由である。")
    return draft(right, (inv, no_i, swap), stem, notes, expl)


# ---------------------------------------------------------------------------
# LSTM and GRU: the parameter count of one layer (tutor.seq2seq_rnn)
# ---------------------------------------------------------------------------
INPUT_SIZES = (2, 3, 4, 8, 10, 16, 32, 50, 64, 100, 128, 300)
HIDDEN_SIZES = (2, 4, 8, 16, 32, 64, 100, 128, 256, 512)
CELL_NAMES = {"lstm": "LSTM", "gru": "GRU"}


def _params_rnn(rng: np.random.Generator) -> dict:
    return {"kind": pick(rng, ("lstm", "gru")), "d_x": int(pick(rng, INPUT_SIZES)), "d_h": int(pick(rng, HIDDEN_SIZES)),
            "third": pick(rng, ("no_recurrent", "simple_rnn"))}


@calc_generator("seq2seq.rnn_params", "seq2seq", _params_rnn)
def _rnn_params(p: dict) -> Draft:
    """The parameters of one LSTM or GRU layer: blocks · (d_h (d_h + d_x) + d_h), LSTM 4 blocks, GRU 3."""
    kind, d_x, d_h, third = p["kind"], p["d_x"], p["d_h"], p["third"]
    name, other = CELL_NAMES[kind], CELL_NAMES["gru" if kind == "lstm" else "lstm"]
    table = rnn.param_table(d_x, d_h)
    blocks, per_block = table[kind]["blocks"], table[kind]["per_block"]
    right = num(rnn.rnn_param_count(kind, d_x, d_h))
    no_bias, other_n, third_n = (num(rnn.rnn_param_count_mistake(kind, d_x, d_h, m)) for m in ("no_bias", "other_blocks", third))

    stem = (f"入力 $x_t$ が {d_x} 次元、隠れ状態 $h_t$（中間層の出力）が {d_h} 次元の {name} の層 1 つが持つパラメータの数{BEST}"
            "ただし、各ゲートと候補の計算はそれぞれ、入力に掛ける変換行列・隠れ状態に掛ける変換行列・バイアスを 1 つずつ持つものとする。")
    third_note = (mc("隠れ状態用の行列の数え忘れ", f"前の時刻の $h_{{t-1}}$ に掛ける {d_h} × {d_h} の行列を数え落とすと {third_n} になる。")
                  if third == "no_recurrent" else
                  mc("単純な RNN との混同", f"ゲートのない単純な RNN の 1 組分（$d_h(d_h + d_x) + d_h$）だけだと {third_n} になる。"))
    notes = (
        mc("RNN のバイアスの数え忘れ", f"各組の長さ {d_h} のバイアスを数えないと {no_bias} になる。"),
        mc("ゲートの組数の取り違え", f"{other} の組数（{4 if kind == 'gru' else 3} 組）で数えると {other_n} になる。"),
        third_note,
    )
    parts = "忘却・入力・出力の 3 ゲートと候補" if kind == "lstm" else "更新・リセットの 2 ゲートと候補"
    expl = (f"{name} は{parts}で、変換が {blocks} 組ある。1 組は $W$（{d_h} × {d_x}）・$U$（{d_h} × {d_h}）・$b$（{d_h}）で、"
            f"${d_h} \\times ({d_h} + {d_x}) + {d_h} = {tnum(per_block)}$ 個。"
            f"よって ${blocks} \\times {tnum(per_block)} = {tnum(rnn.rnn_param_count(kind, d_x, d_h))}$ 個。"
            "LSTM は GRU より 1 組多いので、同じ大きさなら GRU は LSTM の 3/4 で済む。")
    return draft(right, (no_bias, other_n, third_n), stem, notes, expl)
