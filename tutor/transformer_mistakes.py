"""Named misconceptions of the ⑦ topics, computed: the wrong formulas behind quiz distractors.

``mistake=None`` is always the correct formula (and agrees with the engine function it
mirrors); every other value is ONE mistake a learner can make, computed with the same
engine steps. Quizzes call these so they never do arithmetic of their own.

Positional encoding   pe_angle_mistake, pe_value_mistake, pe_input_mistake
Normalisation         layer_norm_mistake(s), residual_block_mistake(s)
Encoder / decoder     attention_sublayers
Output                temperature_mistake(s), top_k_mistake(s), top_p_mistake(s)
Cost                  ops_mistake, cost_growth

Conventions as everywhere in tutor/: float64, inputs never mutated, Japanese ValueError.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .core import as_matrix
from .cost import layer_operations
from .layers import _batch_norm_core, _layer_norm_core, _rms_norm_core, residual
from .position import positional_encoding, positional_encoding_swapped
from .sampling import _check_k, _check_probs, _check_temperature, _draw, _probabilities_of_checked, _rank, kept_distribution, probabilities
from .transformer_demos import pe_angle, pe_component

__all__ = [
    "PE_ANGLE_MISTAKES",
    "pe_angle_mistake",
    "PE_VALUE_MISTAKES",
    "pe_value_mistake",
    "PE_INPUT_MISTAKES",
    "pe_input_mistake",
    "pe_input_mistakes",
    "NormResult",
    "LN_MISTAKES",
    "layer_norm_mistake",
    "layer_norm_mistakes",
    "BLOCK_MISTAKES",
    "residual_block_mistake",
    "residual_block_mistakes",
    "SUBLAYER_MISTAKES",
    "attention_sublayers",
    "TEMPERATURE_MISTAKES",
    "temperature_mistake",
    "temperature_mistakes",
    "TOP_K_MISTAKES",
    "top_k_mistake",
    "top_k_mistakes",
    "TopPResult",
    "TOP_P_MISTAKES",
    "top_p_mistake",
    "top_p_mistakes",
    "OPS_MISTAKES",
    "ops_mistake",
    "cost_growth",
    "transformer_knowledge_facts",
]


def _check(mistake, allowed, what: str) -> None:
    if mistake is not None and mistake not in allowed:
        raise ValueError(f"{what} の誤り {mistake!r} は知りません。{', '.join(allowed)} のどれかか None を指定してください。")


def _column(column, d_model) -> tuple[int, int, str]:
    column, d_model = int(column), int(d_model)
    if d_model < 2 or d_model % 2 or not 0 <= column < d_model:
        raise ValueError(f"列番号 {column} は 0〜{d_model - 1}（d_model = {d_model} は偶数）の範囲で指定してください。")
    return column, column // 2, ("sin" if column % 2 == 0 else "cos")


# ---------------------------------------------------------------------------
# positional encoding
# ---------------------------------------------------------------------------
PE_ANGLE_MISTAKES = ("column_as_i", "pos_i_swapped", "no_d_model")


def pe_angle_mistake(pos: int, column: int, d_model: int, mistake: str | None = None) -> float:
    """Angle used by PE(pos, column): pos / 10000^(2i/d_model) with i = column // 2; or

    column_as_i   — the column number itself used as i: pos / 10000^(2·column/d_model)
    pos_i_swapped — position and pair index exchanged: i / 10000^(2·pos/d_model)
    no_d_model    — the division by d_model forgotten: pos / 10000^(2i)
    """
    _check(mistake, PE_ANGLE_MISTAKES, "pe_angle_mistake")
    column, i, _ = _column(column, d_model)
    if mistake == "column_as_i":
        return pe_angle(pos, column, d_model)
    if mistake == "pos_i_swapped":
        return pe_angle(i, pos, d_model)
    if mistake == "no_d_model":
        return pe_angle(pos, i, 1)
    return pe_angle(pos, i, d_model)


PE_VALUE_MISTAKES = ("swapped", "no_rate", "column_as_i")


def pe_value_mistake(pos: int, column: int, d_model: int, mistake: str | None = None) -> float:
    """PE(pos, column) (sin on even columns, cos on odd ones), or

    swapped     — sin and cos exchanged (tutor.positional_encoding_swapped)
    no_rate     — the angle taken as pos itself for every pair (ω_i = 1 forgotten)
    column_as_i — the column number used as the pair index i
    """
    _check(mistake, PE_VALUE_MISTAKES, "pe_value_mistake")
    column, i, func = _column(column, d_model)
    pos = int(pos)
    if mistake == "swapped":
        return float(positional_encoding_swapped(pos + 1, d_model)[pos, column])
    if mistake == "no_rate":
        return pe_component(pos, 0, func, d_model)
    if mistake == "column_as_i":
        return pe_component(pos, column, func, d_model)
    return float(positional_encoding(pos + 1, d_model)[pos, column])


PE_INPUT_MISTAKES = ("no_pe", "swapped", "one_based")


def pe_input_mistake(x_row, pos: int, mistake: str | None = None) -> np.ndarray:
    """Input of the first layer for one token at position pos: x + PE(pos); or

    no_pe     — the position vector forgotten (x itself)
    swapped   — sin/cos exchanged in PE
    one_based — positions counted from 1 (PE(pos + 1) added)
    Returns (d_model,).
    """
    return pe_input_mistakes(x_row, pos, (mistake,))[mistake]


def pe_input_mistakes(x_row, pos: int, mistakes=(None,) + PE_INPUT_MISTAKES) -> dict:
    """{mistake: pe_input_mistake(x_row, pos, mistake)} for several mistakes at once.

    x is checked once and ONE table PE is built for positions 0 … pos + 1 (row pos of a table
    does not depend on how many rows it has: each entry is sin or cos of pos · ω_i). The
    swapped row is row pos with each (sin, cos) pair exchanged — the very entries of
    positional_encoding_swapped(pos + 1, d)[pos]. x_row: (d_model,); returns {None or name: (d_model,) array}.
    """
    for mistake in mistakes:
        _check(mistake, PE_INPUT_MISTAKES, "pe_input_mistake")
    x = as_matrix(x_row, "埋め込み x", ndim=1)
    pos, d = int(pos), x.size
    if pos < 0:
        raise ValueError(f"位置 pos は 0 以上です（{pos}）。")
    pe = positional_encoding(pos + 2, d)                               # (pos + 2, d): rows pos and pos + 1
    out = {}
    for mistake in mistakes:
        if mistake == "no_pe":
            out[mistake] = x.copy()                                    # (d,)
        elif mistake == "swapped":
            out[mistake] = x + pe[pos].reshape(-1, 2)[:, ::-1].ravel()  # (d,)  (cos, sin) in each pair
        else:
            out[mistake] = x + pe[pos + 1 if mistake == "one_based" else pos]   # (d,)
    return out


# ---------------------------------------------------------------------------
# normalisation
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class NormResult:
    mean: float          # the mean that was subtracted (0 when none was)
    spread: float        # the number divided by
    output: np.ndarray   # (d,)
    centered: np.ndarray | None = None   # (d,) x − μ that was divided (None when no mean was subtracted, or for BatchNorm)


LN_MISTAKES = ("variance", "sample", "rms", "batch")


def layer_norm_mistake(batch, row: int = 0, mistake: str | None = None) -> NormResult:
    """LayerNorm (ε = 0, γ = 1, β = 0) of example ``row`` of a (b, d) batch; or

    variance — divided by the variance σ² instead of the standard deviation σ
    sample   — the sample variance (÷ (d − 1)) instead of the population variance (÷ d)
    rms      — the mean not subtracted, divided by the root mean square (RMSNorm)
    batch    — statistics over the BATCH axis per feature (BatchNorm), row ``row`` returned
    """
    return layer_norm_mistakes(batch, row, (mistake,))[mistake]


def layer_norm_mistakes(batch, row: int = 0, mistakes=(None,) + LN_MISTAKES) -> dict:
    """{mistake: layer_norm_mistake(batch, row, mistake)} for several mistakes at once.

    The input is checked once and μ, x − μ, σ², σ of the row are computed once; every
    mistake is derived from these shared steps (same numbers as one call per mistake).
    batch: (b, d); returns {None or name: NormResult with output (d,)}.
    """
    for mistake in mistakes:
        _check(mistake, LN_MISTAKES, "layer_norm_mistake")
    b = as_matrix(batch, "バッチ", ndim=2)
    row = int(row)
    if not 0 <= row < b.shape[0]:
        raise ValueError(f"例の番号 {row} がバッチ（形 {b.shape}）の範囲外です。")
    x = b[row]                                                # (d,)
    steps = _layer_norm_core(x, 0.0)                          # μ, x − μ, σ², σ: once
    mean = float(steps.mean)
    out = {}
    for mistake in mistakes:
        if mistake == "variance":
            out[mistake] = NormResult(mean, float(steps.var), steps.centered / steps.var, steps.centered)   # (d,)
        elif mistake == "sample":
            d = x.size
            if d < 2:
                raise ValueError("標本分散には 2 個以上の値が必要です。")
            spread = math.sqrt(float(np.add.reduce(steps.centered * steps.centered)) / (d - 1))
            out[mistake] = NormResult(mean, spread, steps.centered / spread, steps.centered)               # (d,)
        elif mistake == "rms":
            ms, normed = _rms_norm_core(x, 0.0)               # (1,), (d,)
            out[mistake] = NormResult(0.0, math.sqrt(float(ms[0])), normed)
        elif mistake == "batch":
            normed = _batch_norm_core(b, 1e-12)[row]          # (d,)  a feature equal in every example → 0
            out[mistake] = NormResult(float("nan"), float("nan"), normed)
        else:
            out[mistake] = NormResult(mean, float(steps.std), steps.output, steps.centered)                # (d,)
    return out


BLOCK_MISTAKES = ("no_residual", "no_norm", "norm_sublayer_only")


def residual_block_mistake(x, sublayer_out, mistake: str | None = None) -> np.ndarray:
    """Post-LN output LayerNorm(x + Sublayer(x)) (ε = 0), given x and Sublayer(x); or

    no_residual        — the residual forgotten: LayerNorm(Sublayer(x))
    no_norm            — the LayerNorm forgotten: x + Sublayer(x)
    norm_sublayer_only — normalised only the sub-layer's output: x + LayerNorm(Sublayer(x))
    """
    return residual_block_mistakes(x, sublayer_out, (mistake,))[mistake]


def residual_block_mistakes(x, sublayer_out, mistakes=(None,) + BLOCK_MISTAKES) -> dict:
    """{mistake: residual_block_mistake(x, sublayer_out, mistake)} for several mistakes at once.

    x and Sublayer(x) are checked once and LayerNorm(Sublayer(x)) is computed at most once.
    x, sublayer_out: (d,); returns {None or name: (d,) array}.
    """
    for mistake in mistakes:
        _check(mistake, BLOCK_MISTAKES, "residual_block_mistake")
    x = as_matrix(x, "x", ndim=1)
    f = as_matrix(sublayer_out, "Sublayer(x)", ndim=1)
    if x.shape != f.shape:
        residual(x, f)                                        # raises its Japanese shape error
    ln_f = None
    out = {}
    for mistake in mistakes:
        if mistake == "no_norm":
            out[mistake] = x + f                              # (d,)  = residual(x, f)
            continue
        if mistake is None:
            out[mistake] = _layer_norm_core(x + f, 0.0).normalized   # (d,)  = post_ln_block(x, f).output
            continue
        if ln_f is None:
            ln_f = _layer_norm_core(f, 0.0).normalized        # (d,)  = layer_norm(f, eps=0)
        out[mistake] = ln_f if mistake == "no_residual" else x + ln_f   # (d,)
    return out


# ---------------------------------------------------------------------------
# encoder / decoder
# ---------------------------------------------------------------------------
SUBLAYER_MISTAKES = ("no_cross", "cross_in_encoder", "one_layer")


def attention_sublayers(n_layers: int, arch: str = "encoder_decoder", mistake: str | None = None) -> int:
    """Number of attention sub-layers in a stack of N layers.

    encoder_decoder: encoder N (self) + decoder 2N (masked self + Source-Target) = 3N;
    decoder_only / encoder_only: N.
    Mistakes (encoder_decoder): no_cross → 2N (Source-Target attention forgotten);
    cross_in_encoder → 4N (a cross-attention in the encoder too); one_layer → 3 (N ignored).
    """
    _check(mistake, SUBLAYER_MISTAKES, "attention_sublayers")
    n = int(n_layers)
    if n < 1:
        raise ValueError(f"層の数 N は 1 以上です（{n_layers!r}）。")
    per_layer = {"encoder_decoder": (1, 2), "decoder_only": (0, 1), "encoder_only": (1, 0)}
    if arch not in per_layer:
        raise ValueError(f"構成 {arch!r} は encoder_decoder / decoder_only / encoder_only のどれかです。")
    enc, dec = per_layer[arch]
    if mistake == "no_cross":
        dec = min(dec, 1)
    elif mistake == "cross_in_encoder":
        enc += 1 if enc else 0
    elif mistake == "one_layer":
        n = 1
    return n * (enc + dec)


# ---------------------------------------------------------------------------
# output
# ---------------------------------------------------------------------------
TEMPERATURE_MISTAKES = ("inverted", "ignored", "no_normalise")


def temperature_mistake(logits, temperature: float, mistake: str | None = None) -> np.ndarray:
    """softmax(z / T); or inverted → softmax(z · T) (the temperature turned upside down);
    ignored → softmax(z); no_normalise → exp(z / T) without dividing by the sum. (vocab,)"""
    return temperature_mistakes(logits, temperature, (mistake,))[mistake]


def temperature_mistakes(logits, temperature: float, mistakes=(None,) + TEMPERATURE_MISTAKES) -> dict:
    """{mistake: temperature_mistake(logits, temperature, mistake)} for several mistakes at once
    (the logits and T are checked once). logits: (vocab,); returns {None or name: (vocab,)}."""
    for mistake in mistakes:
        _check(mistake, TEMPERATURE_MISTAKES, "temperature_mistake")
    z = as_matrix(logits, "ロジット", ndim=1)                  # finite float64: probabilities' logit checks hold
    t = _check_temperature(temperature)                       # the check probabilities(z, t) makes, for every mistake
    out = {}
    for mistake in mistakes:
        if mistake == "inverted":
            out[mistake] = _probabilities_of_checked(z, 1.0 / t)   # (vocab,)  = probabilities(z, 1/t)
        elif mistake == "ignored":
            out[mistake] = _probabilities_of_checked(z, 1.0)  # (vocab,)  = probabilities(z)
        elif mistake == "no_normalise":
            out[mistake] = np.exp(z / t)                      # (vocab,)
        else:
            out[mistake] = _probabilities_of_checked(z, t)    # (vocab,)  = probabilities(z, t)
    return out


TOP_K_MISTAKES = ("k_plus", "k_minus", "no_renormalise")


def top_k_mistake(probs, k: int, mistake: str | None = None) -> np.ndarray:
    """The top-k distribution (k most probable kept, renormalised to sum 1); or

    k_plus / k_minus — one token too many / too few kept
    no_renormalise   — the kept probabilities not divided by their sum
    Returns (vocab,), zero outside the kept set.
    """
    return top_k_mistakes(probs, k, (mistake,))[mistake]


def top_k_mistakes(probs, k: int, mistakes=(None,) + TOP_K_MISTAKES) -> dict:
    """{mistake: top_k_mistake(probs, k, mistake)} for several mistakes at once: probs checked
    and ranked once; each kept set renormalised as top_k_sample does (its distribution does not
    depend on the draw). probs: (vocab,); returns {None or name: (vocab,)}."""
    for mistake in mistakes:
        _check(mistake, TOP_K_MISTAKES, "top_k_mistake")
    k = int(k)
    pr = _check_probs(probs)                                  # (vocab,)
    ranking = _rank(pr)                                       # (vocab,)  most probable first

    def kept(kk: int):
        return _draw("top_k", pr, ranking, _check_k(kk, pr.size), None)

    out, right = {}, None
    for mistake in mistakes:
        if mistake == "k_plus":
            out[mistake] = kept(k + 1).distribution           # (vocab,)
        elif mistake == "k_minus":
            out[mistake] = kept(k - 1).distribution           # (vocab,)
        else:
            if right is None:
                right = kept(k)
            out[mistake] = (right.distribution * right.kept_mass if mistake == "no_renormalise"
                            else right.distribution)          # (vocab,)
    return out


@dataclass(frozen=True)
class TopPResult:
    kept: tuple[int, ...]   # token ids kept, in the order they were added
    mass: float             # their total original probability


TOP_P_MISTAKES = ("stop_before", "ascending")


def top_p_mistake(probs, p: float, mistake: str | None = None) -> TopPResult:
    """Top-p kept set: most probable first until the total reaches p; or

    stop_before — stopped at the last token BEFORE the total reaches p (never keeps fewer than 1)
    ascending   — added the LEAST probable tokens first until the total reaches p
    """
    return top_p_mistakes(probs, p, (mistake,))[mistake]


def top_p_mistakes(probs, p: float, mistakes=(None,) + TOP_P_MISTAKES) -> dict:
    """{mistake: top_p_mistake(probs, p, mistake)} for several mistakes at once (probs and p
    checked and the right kept set found once). probs: (vocab,); returns {None or name: TopPResult}."""
    for mistake in mistakes:
        _check(mistake, TOP_P_MISTAKES, "top_p_mistake")
    pr = as_matrix(probs, "確率", ndim=1)
    choice = kept_distribution(pr, "top_p", p=p)              # validates probs and p
    right = choice.kept.tolist()
    out = {}
    for mistake in mistakes:
        kept = right
        if mistake == "stop_before":
            kept = kept[:-1] or kept[:1]
        elif mistake == "ascending":
            order = np.argsort(pr, kind="stable")             # smallest first
            cum = np.cumsum(pr[order])
            m = int((cum >= float(p) - 1e-12).argmax()) + 1
            kept = order[:m].tolist()
        out[mistake] = TopPResult(tuple(kept), float(np.add.reduce(pr[kept])))
    return out


# ---------------------------------------------------------------------------
# cost
# ---------------------------------------------------------------------------
OPS_MISTAKES = ("swapped", "linear", "both_squared")


def ops_mistake(n: int, d: int, mistake: str | None = None) -> int:
    """Operations of a self-attention layer, n²·d; or swapped → n·d² (the RNN's formula);
    linear → n·d (the n² forgotten); both_squared → n²·d²."""
    _check(mistake, OPS_MISTAKES, "ops_mistake")
    if mistake == "swapped":
        return layer_operations("recurrent", n, d)
    if mistake == "linear":
        return layer_operations("restricted_self_attention", n, d, r=1)   # r·n·d with r = 1
    if mistake == "both_squared":
        return layer_operations("self_attention", n, d) * int(d)
    return layer_operations("self_attention", n, d)


def cost_growth(layer_type: str, factor_n: int, factor_d: int, mistake: str | None = None) -> float:
    """How many times the operations grow when n is multiplied by factor_n and d by factor_d.

    self_attention: factor_n² · factor_d; recurrent: factor_n · factor_d² (measured with
    tutor.cost.layer_operations at a base n = d = 1). ``mistake`` as in :func:`ops_mistake`
    (for the self-attention formula).
    """
    a, b = int(factor_n), int(factor_d)
    if a < 1 or b < 1:
        raise ValueError(f"倍率は 1 以上の整数です（n を {a} 倍、d を {b} 倍）。")
    if mistake is not None:
        if layer_type != "self_attention":
            raise ValueError("誤りの式は自己注意の層についてだけ計算します。")
        return ops_mistake(a, b, mistake) / ops_mistake(1, 1, mistake)
    return layer_operations(layer_type, a, b) / layer_operations(layer_type, 1, 1)


# ---------------------------------------------------------------------------
# numbers the ⑦ knowledge questions quote (quizzes.knowledge merges every *knowledge_facts)
# ---------------------------------------------------------------------------
def transformer_knowledge_facts() -> dict[str, float]:
    """Placeholders [[name]] of quizzes/data/{position,block,encdec,output,cost}.json, computed."""
    from . import textbook as tb
    from .cost import layer_cost
    from .layers import ffn_param_count
    n, d = tb.COST_N, tb.COST_D
    return {
        "paper_d_ff": tb.PAPER_D_FF,
        "paper_ffn_params": ffn_param_count(tb.PAPER_D_MODEL, tb.PAPER_D_FF),
        "paper_attention_sublayers": attention_sublayers(tb.PAPER_LAYERS),
        "cost_n": n,
        "cost_d": d,
        "cost_self_attention_ops": layer_cost("self_attention", n, d).operations,
        "cost_recurrent_ops": layer_cost("recurrent", n, d).operations,
        "cost_growth_double_n": cost_growth("self_attention", 2, 1),
        "temp_max_t1": round(float(probabilities(tb.TEMPERATURE_LOGITS, 1.0)[0]), 3),
        "temp_max_t05": round(float(probabilities(tb.TEMPERATURE_LOGITS, 0.5)[0]), 3),
        "temp_max_t2": round(float(probabilities(tb.TEMPERATURE_LOGITS, 2.0)[0]), 3),
    }
