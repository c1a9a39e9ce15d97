"""The recurrent side of ⓪ (Seq2Seq): one step of an LSTM and of a GRU, their parameter counts,
and scheduled sampling. (tutor/seq2seq.py holds the attention side; both serve pages/0_seq2seq.py.)

LSTM (Hochreiter & Schmidhuber, 1997; the forget gate was added by Gers et al., 2000), one time
step, column vectors as in the papers, σ = sigmoid, ⊙ = element-wise product:

    f   = σ(W_f x_t + U_f h_{t-1} + b_f)          forget gate (忘却ゲート): what of c_{t-1} to keep
    i   = σ(W_i x_t + U_i h_{t-1} + b_i)          input gate  (入力ゲート): how much of g to write
    g   = tanh(W_g x_t + U_g h_{t-1} + b_g)       candidate   (候補): what could be written
    o   = σ(W_o x_t + U_o h_{t-1} + b_o)          output gate (出力ゲート): how much of the cell to show
    c_t = f ⊙ c_{t-1} + i ⊙ g                     the cell (記憶セル): a SUM, not a product chain
    h_t = o ⊙ tanh(c_t)                           the hidden state (中間層・隠れ層の出力)

GRU (Cho et al., 2014), in the paper's convention (PyTorch writes it alike): z is the share of the
old state that is KEPT, so z plays the LSTM's forget gate and 1 − z its input gate.

    z   = σ(W_z x_t + U_z h_{t-1} + b_z)          update gate (更新ゲート)
    r   = σ(W_r x_t + U_r h_{t-1} + b_r)          reset gate  (リセットゲート)
    h̃   = tanh(W_h x_t + U_h (r ⊙ h_{t-1}) + b_h) candidate
    h_t = z ⊙ h_{t-1} + (1 − z) ⊙ h̃              (some texts swap z and 1 − z)

Parameter count of one layer, one bias per gate: a block (W: d_h × d_x, U: d_h × d_h, b: d_h) has
d_h (d_h + d_x) + d_h numbers; a simple RNN has 1 block, a GRU 3, an LSTM 4. (PyTorch keeps two
bias vectors per block, b_ih and b_hh, and so counts d_h more per block.)

Scheduled sampling (Bengio et al., 2015): during training, the decoder's input at each step is
the correct previous token with probability ε_i and its own previous output otherwise; ε_i falls
with the training step i (linear, exponential or inverse-sigmoid decay).

Weights are per gate: ``{"f": (W, U, b), ...}`` with W (d_h, d_x), U (d_h, d_h), b (d_h,).
Everything is float64, inputs are never mutated, randomness only from a passed Generator, bad
input raises ValueError with a Japanese message. Each named misconception is a function next to
the formula it distorts; its Japanese label lives in quizzes/.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import seq2seq as s2s
from .core import as_matrix, check_rng, positive_int

__all__ = [
    "LSTM_GATES", "GRU_GATES", "CELL_X", "CELL_H", "CELL_C", "CELL_STATES", "LSTM_WEIGHTS", "GRU_WEIGHTS",
    "sigmoid", "GateStep", "LstmStep", "lstm_step", "cell_update", "CELL_MISTAKES", "cell_update_mistake",
    "GruStep", "gru_step", "gru_mix",
    "BLOCKS", "rnn_param_count", "PARAM_MISTAKES", "rnn_param_count_mistake", "param_table",
    "SCHEDULES", "SCHEDULE_EXAMPLE", "SAMPLING_SEED", "teacher_probability", "ScheduledRun", "scheduled_decode",
]

LSTM_GATES = ("f", "i", "g", "o")     # forget, input, candidate, output
GRU_GATES = ("z", "r", "h")           # update, reset, candidate


def _frozen(a) -> np.ndarray:
    a = np.array(a, dtype=float)
    a.flags.writeable = False
    return a


# ---------------------------------------------------------------------------
# the worked example (d_x = d_h = 2, small integers: each pre-activation is read off by hand)
# ---------------------------------------------------------------------------
CELL_X = _frozen([1.0, 0.0])          # x_t      (d_x,) = (2,)
CELL_H = _frozen([0.0, 1.0])          # h_{t-1}  (d_h,) = (2,)
CELL_C = _frozen([2.0, -1.0])         # c_{t-1}  (d_h,) = (2,)   (LSTM only)
CELL_STATES = _frozen([CELL_X, CELL_H, CELL_C])   # (3, 2) rows x_t, h_{t-1}, c_{t-1}: the page's editor
_ZERO = _frozen([0.0, 0.0])
LSTM_WEIGHTS = {                      # gate → (W (2, 2), U (2, 2), b (2,))
    "f": (_frozen([[1, 0], [0, 1]]), _frozen([[0, 1], [0, 0]]), _ZERO),    # pre-activation (2, 0)
    "i": (_frozen([[0, 1], [1, 0]]), _frozen([[1, 0], [0, 0]]), _ZERO),    # (0, 1)
    "g": (_frozen([[1, 0], [0, 1]]), _frozen([[0, 0], [1, -1]]), _ZERO),   # (1, −1)
    "o": (_frozen([[1, 0], [1, 0]]), _frozen([[0, 0], [0, 1]]), _ZERO),    # (1, 2)
}
GRU_WEIGHTS = {
    "z": (_frozen([[1, 0], [0, 1]]), _frozen([[0, 1], [0, -1]]), _ZERO),   # pre-activation (2, −1)
    "r": (_frozen([[0, 1], [1, 0]]), _frozen([[1, 0], [0, 0]]), _ZERO),    # (0, 1)
    "h": (_frozen([[1, 0], [0, 1]]), _frozen([[1, 1], [0, 2]]), _ZERO),    # W x + U (r ⊙ h)
}


def sigmoid(x) -> np.ndarray:
    """σ(x) = 1 / (1 + e^{−x}), element-wise, without overflow for large |x|."""
    x = as_matrix(x, "ゲートの入力", ndim=(0, 1, 2))
    e = np.exp(-np.abs(x))                                   # ≤ 1: never overflows
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _weights(weights, gates, d_x: int, d_h: int) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    if not isinstance(weights, dict) or set(weights) != set(gates):
        raise ValueError(f"重みはゲート {', '.join(gates)} ごとに (W, U, b) を 1 組ずつ渡してください。")
    out = {}
    for gate in gates:
        try:
            w, u, b = weights[gate]
        except (TypeError, ValueError):
            raise ValueError(f"ゲート {gate} の重みは (W, U, b) の 3 つが必要です。") from None
        w = as_matrix(w, f"W_{gate}", ndim=2)
        u = as_matrix(u, f"U_{gate}", ndim=2)
        b = as_matrix(b, f"b_{gate}", ndim=1)
        if w.shape != (d_h, d_x) or u.shape != (d_h, d_h) or b.shape != (d_h,):
            raise ValueError(f"ゲート {gate} の形は W ({d_h}, {d_x})・U ({d_h}, {d_h})・b ({d_h},) が必要ですが、"
                             f"W {w.shape}・U {u.shape}・b {b.shape} です（x の長さ d_x = {d_x}、h の長さ d_h = {d_h}）。")
        out[gate] = (w, u, b)
    return out


def _states(x, h, c=None):
    x = as_matrix(x, "入力 x_t", ndim=1)
    h = as_matrix(h, "前の隠れ状態 h_{t-1}", ndim=1)
    if c is not None:
        c = as_matrix(c, "前のセル c_{t-1}", ndim=1)
        if c.shape != h.shape:
            raise ValueError(f"セル c_{{t-1}} の長さ（{c.shape[0]}）と隠れ状態 h_{{t-1}} の長さ（{h.shape[0]}）が違います。")
    return x, h, c


# ---------------------------------------------------------------------------
# LSTM
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class GateStep:
    wx: np.ndarray        # (d_h,)  W x_t
    uh: np.ndarray        # (d_h,)  U h_{t-1}   (GRU candidate: U (r ⊙ h_{t-1}))
    b: np.ndarray         # (d_h,)  the bias
    pre: np.ndarray       # (d_h,)  W x_t + U h_{t-1} + b
    value: np.ndarray     # (d_h,)  σ(pre) for a gate, tanh(pre) for the candidate


def _finite(a: np.ndarray, what: str) -> np.ndarray:
    if not np.isfinite(a).all():
        raise ValueError(f"{what} が大きすぎて、浮動小数点数で表せなくなりました。入力の値を小さくしてください。")
    return a


def _gate(w, u, b, x, h, squash) -> GateStep:
    with np.errstate(over="ignore", invalid="ignore"):       # an overflow is reported just below
        wx, uh = w @ x, u @ h                                # (d_h,), (d_h,)
        pre = _finite(wx + uh + b, "ゲートの入力 W x + U h + b")   # (d_h,)
    return GateStep(wx, uh, b, pre, squash(pre))


@dataclass(frozen=True)
class LstmStep:
    gates: dict           # "f", "i", "g", "o" → GateStep
    c_prev: np.ndarray    # (d_h,)
    keep: np.ndarray      # (d_h,)  f ⊙ c_{t-1}
    write: np.ndarray     # (d_h,)  i ⊙ g
    c: np.ndarray         # (d_h,)  c_t = keep + write
    tanh_c: np.ndarray    # (d_h,)  tanh(c_t)
    h: np.ndarray         # (d_h,)  h_t = o ⊙ tanh(c_t)


def lstm_step(x, h_prev, c_prev, weights) -> LstmStep:
    """One LSTM step with every intermediate:

        f, i, o = σ(W x + U h + b),  g = tanh(W x + U h + b),
        c_t = f ⊙ c_{t-1} + i ⊙ g,  h_t = o ⊙ tanh(c_t)

    x (d_x,), h_prev (d_h,), c_prev (d_h,); weights {"f","i","g","o"} → (W (d_h, d_x), U (d_h, d_h), b (d_h,))."""
    x, h, c_prev = _states(x, h_prev, c_prev)
    ws = _weights(weights, LSTM_GATES, x.shape[0], h.shape[0])
    gates = {k: _gate(*ws[k], x, h, np.tanh if k == "g" else sigmoid) for k in LSTM_GATES}
    f, i, g, o = (gates[k].value for k in LSTM_GATES)
    keep, write = f * c_prev, i * g                          # (d_h,), (d_h,)
    with np.errstate(over="ignore"):
        c = _finite(keep + write, "セル c_t")                 # (d_h,)
    tanh_c = np.tanh(c)
    return LstmStep(gates, c_prev, keep, write, c, tanh_c, o * tanh_c)


def _cell_inputs(f, i, g, c_prev):
    f, i, g, c_prev = (as_matrix(a, n, ndim=1) for a, n in
                       ((f, "忘却ゲート f"), (i, "入力ゲート i"), (g, "候補 g"), (c_prev, "前のセル c_{t-1}")))
    if not f.shape == i.shape == g.shape == c_prev.shape:
        raise ValueError(f"f・i・g・c_{{t-1}} の長さがそろっていません（{f.shape[0]}, {i.shape[0]}, {g.shape[0]}, "
                         f"{c_prev.shape[0]}）。")
    return f, i, g, c_prev


def cell_update(f, i, g, c_prev) -> np.ndarray:
    """The LSTM cell from given gate values: c_t = f ⊙ c_{t-1} + i ⊙ g, (d_h,)."""
    f, i, g, c_prev = _cell_inputs(f, i, g, c_prev)
    return f * c_prev + i * g


CELL_MISTAKES = ("forget_inverted", "no_input_gate", "gates_swapped")


def cell_update_mistake(f, i, g, c_prev, mistake: str) -> np.ndarray:
    """The cell update as a learner gets it wrong:
    "forget_inverted": (1 − f) ⊙ c_{t-1} + i ⊙ g  — read f as the share to FORGET;
    "no_input_gate":   f ⊙ c_{t-1} + g            — wrote the whole candidate, no input gate;
    "gates_swapped":   i ⊙ c_{t-1} + f ⊙ g        — each gate on the other's vector."""
    f, i, g, c_prev = _cell_inputs(f, i, g, c_prev)
    if mistake == "forget_inverted":
        return (1.0 - f) * c_prev + i * g
    if mistake == "no_input_gate":
        return f * c_prev + g
    if mistake == "gates_swapped":
        return i * c_prev + f * g
    raise ValueError(f"未知の誤り {mistake!r}（{', '.join(CELL_MISTAKES)} のどれか）")


# ---------------------------------------------------------------------------
# GRU
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class GruStep:
    gates: dict           # "z", "r", "h" → GateStep ("h": the candidate h̃, uh = U (r ⊙ h_{t-1}))
    h_prev: np.ndarray    # (d_h,)
    reset_h: np.ndarray   # (d_h,)  r ⊙ h_{t-1}
    keep: np.ndarray      # (d_h,)  z ⊙ h_{t-1}
    take: np.ndarray      # (d_h,)  (1 − z) ⊙ h̃
    h: np.ndarray         # (d_h,)  h_t = keep + take


def gru_step(x, h_prev, weights) -> GruStep:
    """One GRU step (Cho et al., 2014) with every intermediate:

        z = σ(W_z x + U_z h + b_z),  r = σ(W_r x + U_r h + b_r),
        h̃ = tanh(W_h x + U_h (r ⊙ h) + b_h),  h_t = z ⊙ h + (1 − z) ⊙ h̃

    x (d_x,), h_prev (d_h,); weights {"z","r","h"} → (W (d_h, d_x), U (d_h, d_h), b (d_h,))."""
    x, h, _ = _states(x, h_prev)
    ws = _weights(weights, GRU_GATES, x.shape[0], h.shape[0])
    z = _gate(*ws["z"], x, h, sigmoid)
    r = _gate(*ws["r"], x, h, sigmoid)
    reset_h = r.value * h                                    # (d_h,)
    cand = _gate(*ws["h"], x, reset_h, np.tanh)              # (d_h,)  U acts on r ⊙ h
    keep, take = z.value * h, (1.0 - z.value) * cand.value
    return GruStep({"z": z, "r": r, "h": cand}, h, reset_h, keep, take, keep + take)


def gru_mix(z, h_prev, h_cand) -> np.ndarray:
    """The GRU's last line from given values: h_t = z ⊙ h_{t-1} + (1 − z) ⊙ h̃, (d_h,)."""
    z, h_prev, h_cand = (as_matrix(a, n, ndim=1) for a, n in
                         ((z, "更新ゲート z"), (h_prev, "前の隠れ状態 h_{t-1}"), (h_cand, "候補 h̃")))
    if not z.shape == h_prev.shape == h_cand.shape:
        raise ValueError("z・h_{t-1}・h̃ の長さがそろっていません。")
    return z * h_prev + (1.0 - z) * h_cand


# ---------------------------------------------------------------------------
# parameter counts: why an LSTM is heavier than a GRU
# ---------------------------------------------------------------------------
BLOCKS = {"rnn": 1, "gru": 3, "lstm": 4}   # (W, U, b) blocks: RNN 1, GRU 2 gates + candidate, LSTM 3 gates + candidate


def _sizes(kind, d_x, d_h) -> tuple[int, int, int]:
    if kind not in BLOCKS:
        raise ValueError(f"種類は {', '.join(BLOCKS)} のどれかです（{kind!r}）。")
    return BLOCKS[kind], positive_int(d_x, "入力の次元 d_x"), positive_int(d_h, "隠れ状態の次元 d_h")


def rnn_param_count(kind: str, d_x, d_h) -> int:
    """Parameters of one layer: blocks · (d_h (d_h + d_x) + d_h), one bias per block.

    LSTM: 4 · (d_h (d_h + d_x) + d_h); GRU: 3 · (...); simple RNN: 1 · (...)."""
    blocks, d_x, d_h = _sizes(kind, d_x, d_h)
    return blocks * (d_h * (d_h + d_x) + d_h)


PARAM_MISTAKES = ("no_bias", "no_recurrent", "other_blocks", "simple_rnn")


def rnn_param_count_mistake(kind: str, d_x, d_h, mistake: str) -> int:
    """Miscounts of one layer's parameters:
    "no_bias":      blocks · d_h (d_h + d_x)          — forgot the biases;
    "no_recurrent": blocks · (d_h d_x + d_h)          — forgot U, the weights on h_{t-1};
    "other_blocks": the GRU's 3 blocks for an LSTM, the LSTM's 4 for a GRU;
    "simple_rnn":   1 · (d_h (d_h + d_x) + d_h)       — as if there were no gates."""
    blocks, d_x, d_h = _sizes(kind, d_x, d_h)
    if mistake == "no_bias":
        return blocks * d_h * (d_h + d_x)
    if mistake == "no_recurrent":
        return blocks * (d_h * d_x + d_h)
    if mistake == "other_blocks":
        return (3 if kind == "lstm" else 4) * (d_h * (d_h + d_x) + d_h)
    if mistake == "simple_rnn":
        return d_h * (d_h + d_x) + d_h
    raise ValueError(f"未知の誤り {mistake!r}（{', '.join(PARAM_MISTAKES)} のどれか）")


def param_table(d_x, d_h) -> dict[str, dict[str, int]]:
    """{kind: {"blocks", "per_block", "total"}} for rnn, gru, lstm: the count written out."""
    out = {}
    for kind in BLOCKS:
        blocks, dx, dh = _sizes(kind, d_x, d_h)
        out[kind] = {"blocks": blocks, "per_block": dh * (dh + dx) + dh, "total": rnn_param_count(kind, dx, dh)}
    return out


# ---------------------------------------------------------------------------
# scheduled sampling (Bengio et al., 2015)
# ---------------------------------------------------------------------------
SCHEDULES = ("linear", "exponential", "inverse_sigmoid")
# the page's example decays (k, c, floor): linear reaches its floor 0.1 at i = 9,000
SCHEDULE_EXAMPLE = {"linear": (1.0, 1e-4, 0.1), "exponential": (0.9997, 0.0, 0.0), "inverse_sigmoid": (1000.0, 0.0, 0.0)}
SAMPLING_SEED = 3                     # the page's coin flips: np.random.default_rng(SAMPLING_SEED)


def teacher_probability(step, schedule: str, k: float, c: float = 0.0, floor: float = 0.0) -> float:
    """ε_i: the probability of feeding the CORRECT previous token at training step i.

        linear:           ε_i = max(floor, k − c·i)      (k ≤ 1, c > 0)
        exponential:      ε_i = k^i                      (0 < k < 1)
        inverse_sigmoid:  ε_i = k / (k + exp(i / k))     (k ≥ 1)
    """
    if isinstance(step, (bool, np.bool_)) or not isinstance(step, (int, np.integer)) or step < 0:
        raise ValueError(f"学習のステップ i は 0 以上の整数が必要です（{step!r}）。")
    i, k = int(step), float(k)
    if schedule == "linear":
        if not (0 < k <= 1 and c > 0 and 0 <= floor <= k):
            raise ValueError(f"線形の減衰には 0 < k ≤ 1、c > 0、0 ≤ 下限 ≤ k が必要です（k = {k}, c = {c}, 下限 = {floor}）。")
        return max(float(floor), k - float(c) * i)
    if schedule == "exponential":
        if not 0 < k < 1:
            raise ValueError(f"指数の減衰には 0 < k < 1 が必要です（k = {k}）。")
        return k ** i
    if schedule == "inverse_sigmoid":
        if not k >= 1:
            raise ValueError(f"逆シグモイドの減衰には k ≥ 1 が必要です（k = {k}）。")
        return k / (k + math.exp(min(i / k, 700.0)))        # exp(700) is finite; past it ε is 0 anyway
    raise ValueError(f"減衰の形は {', '.join(SCHEDULES)} のどれかです（{schedule!r}）。")


@dataclass(frozen=True)
class ScheduledRun:
    p_teacher: float                  # ε: the probability of feeding the correct token
    from_truth: tuple[bool, ...]      # per step: was the input the correct previous token? (step 1: 〈bos〉)
    run: s2s.BigramDecodeResult       # the decode itself (inputs, predictions, correct, loss)


def scheduled_decode(logits, vocab, target, p_teacher, rng) -> ScheduledRun:
    """One training pass of the bigram decoder of tutor.seq2seq with scheduled sampling: before each
    step after the first, a coin with P(heads) = p_teacher decides whether the input is the correct
    previous token (heads) or the model's own previous prediction (tails). The first input is 〈bos〉.
    (The paper samples the model's token from its distribution; here it is the most probable one.)"""
    rng = check_rng(rng)
    try:
        p = float(p_teacher)
    except (TypeError, ValueError):
        raise ValueError(f"正解を入れる確率 ε は 0 以上 1 以下の数が必要です（{p_teacher!r}）。") from None
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"正解を入れる確率 ε は 0 以上 1 以下の数が必要です（ε = {p}）。")
    n = len(tuple(target))
    coins = tuple(bool(x) for x in rng.random(max(n - 1, 0)) < p)      # (T − 1,) True = the correct token
    run = s2s.bigram_decode(logits, vocab, target, "mixed", use_truth=coins)
    return ScheduledRun(p, (True,) + coins, run)
