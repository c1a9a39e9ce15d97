"""GPT-2 / GPT-3 at scale: the exact parameter count of a decoder-only configuration and the rule
of thumb 12·L·d²; scaling laws: L(N) = (N_c / N)^α, C ≈ 6·N·D and the compute-optimal split of a
budget (≈ 20 tokens per parameter) — with the named mistakes next to them."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core import as_matrix, positive_int

# ---------------------------------------------------------------------------
# published sizes (GPT-2 2019, GPT-3 2020; the vocabulary of GPT-2's byte-level BPE)
# ---------------------------------------------------------------------------
GPT_VOCAB_SIZE = 50_257
GPT_SIZES = {                        # name → layers L, width d_model, context length (positions)
    "GPT-2 small": {"layers": 12, "d_model": 768, "context": 1024},
    "GPT-2 medium": {"layers": 24, "d_model": 1024, "context": 1024},
    "GPT-2 large": {"layers": 36, "d_model": 1280, "context": 1024},
    "GPT-2 XL": {"layers": 48, "d_model": 1600, "context": 1024},
    "GPT-3 175B": {"layers": 96, "d_model": 12_288, "context": 2048},
}
GPT3_TRAINING_TOKENS = 300_000_000_000          # GPT-3 175B was trained on about 300 B tokens
KAPLAN_ALPHA_N = 0.076                          # L(N) = (N_c / N)^α_N (Kaplan et al. 2020)
KAPLAN_N_C = 8.8e13
FLOPS_PER_PARAM_TOKEN = 6                       # forward 2 + backward 4 multiply-adds per parameter and token
TOKENS_PER_PARAM = 20                           # compute-optimal (Chinchilla, 2022)
CHINCHILLA = {"params": 70_000_000_000, "tokens": 1_400_000_000_000}


def _count(value, name: str, *, zero: bool = False) -> int:
    """A whole count ≥ 1 (≥ 0 with ``zero``) as a Python int, or ValueError (Japanese)."""
    if zero and not isinstance(value, (bool, np.bool_)) and value == 0:
        return 0
    return positive_int(value, name)


# ---------------------------------------------------------------------------
# GPT: parameters of a decoder-only model
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class GptParams:
    layers: int               # L
    d_model: int              # d
    d_ff: int                 # FFN width (4d)
    vocab: int                # V (the output layer shares the token embedding)
    context: int              # learned positions
    attention: int            # W_Q, W_K, W_V, W_O and their biases: 4d² + 4d
    ffn: int                  # d × d_ff and d_ff × d with biases: 2·d·d_ff + d_ff + d
    norms: int                # two LayerNorms (γ, β): 4d
    token_embedding: int      # V·d
    position_embedding: int   # context·d
    final_norm: int           # 2d

    @property
    def per_layer(self) -> int:
        return self.attention + self.ffn + self.norms

    @property
    def blocks(self) -> int:
        return self.layers * self.per_layer

    @property
    def total(self) -> int:
        return self.token_embedding + self.position_embedding + self.blocks + self.final_norm

    @property
    def rule_of_thumb(self) -> int:
        """12·L·d² (the weight matrices of the blocks only)."""
        return rule_of_thumb_params(self.layers, self.d_model)

    @property
    def rule_share(self) -> float:
        """12·L·d² ÷ the exact total (0.996 for GPT-3, 0.683 for GPT-2 small)."""
        return self.rule_of_thumb / self.total


def gpt_param_count(layers: int, d_model: int, vocab: int = GPT_VOCAB_SIZE, context: int = 2048,
                    d_ff: int | None = None) -> GptParams:
    """Every parameter of a GPT-2/3-style decoder: embeddings V·d + T·d, L blocks of
    (4d² + 4d) + (2·d·d_ff + d_ff + d) + 4d, a final LayerNorm 2d; the output layer reuses the token
    embedding. GPT-2 small → 124,439,808; GPT-3 (96, 12,288) → 174,604,259,328 ≈ 175 B."""
    big = 10 ** 6
    l, d = _count(layers, "層数 L"), _count(d_model, "幅 d_model")
    v, t = _count(vocab, "語彙の大きさ V"), _count(context, "文脈の長さ")
    f = 4 * d if d_ff is None else _count(d_ff, "FFN の幅 d_ff")
    if max(l, v, t) > big or max(d, f) > big:
        raise ValueError("大きさは 1,000,000 以下にしてください。")
    return GptParams(l, d, f, v, t, 4 * d * d + 4 * d, 2 * d * f + f + d, 4 * d, v * d, t * d, 2 * d)


def rule_of_thumb_params(layers: int, d_model: int) -> int:
    """12·L·d²: per block 4d² (attention) + 8d² (FFN, width 4d); biases, norms and embeddings left out."""
    return 12 * _count(layers, "層数 L") * _count(d_model, "幅 d_model") ** 2


def rule_params_no_ffn(layers: int, d_model: int) -> int:
    """MISTAKE: the FFN forgotten, 4·L·d² (attention only)."""
    return rule_of_thumb_params(layers, d_model) // 3


def rule_params_square_ffn(layers: int, d_model: int) -> int:
    """MISTAKE: the FFN as two d × d matrices (width d, not 4d): (4 + 2)·L·d² = 6·L·d²."""
    return rule_of_thumb_params(layers, d_model) // 2


def rule_params_linear_d(layers: int, d_model: int) -> int:
    """MISTAKE: d not squared, 12·L·d."""
    return 12 * _count(layers, "層数 L") * _count(d_model, "幅 d_model")


def rule_params_one_layer(layers: int, d_model: int) -> int:
    """MISTAKE: one layer only, 12·d²."""
    _count(layers, "層数 L")
    return 12 * _count(d_model, "幅 d_model") ** 2


# ---------------------------------------------------------------------------
# scaling laws: power law in N, compute C ≈ 6ND, the compute-optimal split
# ---------------------------------------------------------------------------
def power_law_loss(n_params, alpha: float = KAPLAN_ALPHA_N, n_c: float = KAPLAN_N_C) -> np.ndarray:
    """L(N) = (N_c / N)^α: a straight line of slope −α on log–log axes."""
    n = as_matrix(n_params, "パラメータ数 N")
    if (n <= 0).any() or alpha <= 0 or n_c <= 0:
        raise ValueError("パラメータ数 N、α、N_c は正の数にしてください。")
    return (n_c / n) ** alpha


def loss_factor(scale: float, alpha: float = KAPLAN_ALPHA_N) -> float:
    """How the loss changes when N is multiplied by ``scale``: scale^(−α) (×10 → 0.839)."""
    if not scale > 0:
        raise ValueError("何倍にするかは正の数にしてください。")
    return float(scale) ** (-alpha)


def training_flops(n_params, n_tokens):
    """C ≈ 6·N·D (exact int for int inputs)."""
    if min(n_params, n_tokens) <= 0:
        raise ValueError("パラメータ数とトークン数は正の数にしてください。")
    return FLOPS_PER_PARAM_TOKEN * n_params * n_tokens


def budget_for(n_params, tokens_per_param: int = TOKENS_PER_PARAM):
    """The compute a model of N parameters needs when trained compute-optimally: 6·N·(r·N) = 6r·N²
    (N = 7×10¹⁰ → 5.88×10²³, Chinchilla's budget)."""
    return training_flops(n_params, _ratio(tokens_per_param) * n_params)


def _sqrt(x):
    """√x, an exact int when x is a whole perfect square (an int, or a float equal to one)."""
    if float(x).is_integer():
        whole = int(x)
        root = math.isqrt(whole)
        if root * root == whole:
            return root
    return math.sqrt(x)


def _budget(budget):
    if isinstance(budget, (bool, np.bool_)) or not isinstance(budget, (int, float, np.integer, np.floating)) \
            or not math.isfinite(budget) or budget <= 0:
        raise ValueError(f"計算量の予算 C は正の数にしてください（{budget!r}）。")
    if budget > 1e40:
        raise ValueError("計算量の予算 C は 10⁴⁰ 以下にしてください。")
    return int(budget) if float(budget).is_integer() else float(budget)


def _ratio(r) -> int:
    return positive_int(r, "1 パラメータあたりのトークン数")


@dataclass(frozen=True)
class ComputeOptimal:
    budget: float | int       # C (FLOP)
    params: float | int       # N = √(C / (6r))
    tokens: float | int       # D = r·N
    tokens_per_param: int     # r


def compute_optimal(budget, tokens_per_param: int = TOKENS_PER_PARAM) -> ComputeOptimal:
    """With D = r·N and C = 6·N·D = 6r·N²: N = √(C / 6r), D = r·N. Exact ints when C / 6r is a
    whole square (C = 5.88×10²³ → N = 7×10¹⁰, D = 1.4×10¹²: Chinchilla)."""
    c, r = _budget(budget), _ratio(tokens_per_param)
    q = c // (6 * r) if isinstance(c, int) and c % (6 * r) == 0 else c / (6 * r)
    n = _sqrt(q)
    return ComputeOptimal(c, n, r * n, r)


def compute_optimal_sci(mantissa: float, exponent: int, tokens_per_param: int = TOKENS_PER_PARAM) -> ComputeOptimal:
    """compute_optimal of C = mantissa × 10^exponent (1 ≤ mantissa < 10, as a learner types a budget);
    the budget is an exact int when the mantissa has at most 6 decimals and the power covers them."""
    if isinstance(mantissa, bool) or not isinstance(mantissa, (int, float)) or not 1 <= mantissa < 10:
        raise ValueError(f"仮数は 1 以上 10 未満の数にしてください（{mantissa!r}）。")
    e = _count(exponent, "10 の指数")
    if e > 40:
        raise ValueError(f"10 の指数は 40 以下にしてください（{e}）。")
    scaled = round(float(mantissa) * 10 ** 6)                               # the mantissa in millionths
    budget = scaled * 10 ** (e - 6) if e >= 6 else scaled / 10 ** (6 - e)
    return compute_optimal(budget, tokens_per_param)


def optimal_tokens_params_instead(budget, tokens_per_param: int = TOKENS_PER_PARAM):
    """MISTAKE: the parameter count N given as the number of tokens."""
    return compute_optimal(budget, tokens_per_param).params


def optimal_tokens_no_sqrt(budget, tokens_per_param: int = TOKENS_PER_PARAM):
    """MISTAKE: N = C / 6r without the square root, so D = r·C / 6r = C / 6."""
    c, _ = _budget(budget), _ratio(tokens_per_param)
    return c // 6 if isinstance(c, int) and c % 6 == 0 else c / 6


def optimal_tokens_six_divided(budget, tokens_per_param: int = TOKENS_PER_PARAM):
    """MISTAKE: C = N·D / 6 (the 6 on the wrong side): N = √(6C / r), D = r·N (= 6 × the right D)."""
    c, r = _budget(budget), _ratio(tokens_per_param)
    q = 6 * c // r if isinstance(c, int) and 6 * c % r == 0 else 6 * c / r
    return r * _sqrt(q)


def loss_curve(lo_exp: int = 6, hi_exp: int = 12, per_decade: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """(N, L(N)) at ``per_decade`` points per power of ten from 10^lo_exp to 10^hi_exp (for a plot)."""
    if not (isinstance(lo_exp, int) and isinstance(hi_exp, int) and 0 <= lo_exp < hi_exp <= 15):
        raise ValueError("範囲は 0 ≤ 下の桁 < 上の桁 ≤ 15 の整数で指定してください。")
    ns = np.logspace(lo_exp, hi_exp, (hi_exp - lo_exp) * positive_int(per_decade, "1 桁あたりの点の数") + 1)
    return ns, power_law_loss(ns)                                           # (P,), (P,)


def optimal_curve(lo_exp: int = 18, hi_exp: int = 26) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(C, N, D): the compute-optimal split of every budget 10^lo_exp … 10^hi_exp (one per power of ten)."""
    if not (isinstance(lo_exp, int) and isinstance(hi_exp, int) and 0 < lo_exp < hi_exp <= 40):
        raise ValueError("範囲は 0 < 下の桁 < 上の桁 ≤ 40 の整数で指定してください。")
    splits = [compute_optimal(10 ** e) for e in range(lo_exp, hi_exp + 1)]
    return tuple(np.array([float(getattr(s, f)) for s in splits]) for f in ("budget", "params", "tokens"))
