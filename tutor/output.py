"""⑦-4 The output side: from logits over the vocabulary to the next token.

    P(token = j) = softmax(z / T)_j          (z: logits, T: temperature)

Then one of the choice rules picks the next token:

- greedy:  the most probable token (ties → the lowest index);
- sample:  draw from the whole distribution;
- top-k:   keep the k most probable tokens, renormalise, draw;
- top-p:   (nucleus) keep the smallest set of most probable tokens whose total
           probability is ≥ p, renormalise, draw.

Draws use inverse-CDF sampling with ONE uniform number u ~ U[0, 1) taken from the passed
``np.random.Generator``: the kept tokens are lined up in rank order (most probable first,
ties by lowest index), their renormalised probabilities are accumulated, and the first
token whose cumulative probability exceeds u is chosen. Every choice returns ``u``, the
kept set and the renormalised distribution, so a page can show each step.

``generate`` repeats "logits → probabilities → choice → append" and records every step.

Also a readable next-token model for the page (``TOY_VOCAB`` / ``toy_next_logits``: a table of
logits indexed by the previous token), and the named mistakes of temperature, top-k and top-p
next to the rules they distort.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from .core import as_matrix, check_mistake, softmax
from .vocab import Vocabulary

__all__ = [
    "STRATEGIES",
    "probabilities",
    "Choice",
    "greedy",
    "sample",
    "top_k_sample",
    "top_p_sample",
    "kept_distribution",
    "choose",
    "GenerationStep",
    "GenerationResult",
    "generate",
    "TOY_VOCAB",
    "TOY_LOGITS",
    "toy_next_logits",
    "TemperatureRow",
    "temperature_table",
    "TRY_TEMPERATURES",
    "generation_step",
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
]


#: strategy names accepted by ``choose`` and ``generate``
STRATEGIES = ("greedy", "sample", "top_k", "top_p")


# 確率の合計が 1 かどうかの許容誤差、top-p の累積比較での丸め誤差の許容
_SUM_TOL = 1e-6
_CUM_TOL = 1e-12


# ---------------------------------------------------------------------------
# checks
# ---------------------------------------------------------------------------
def _check_temperature(temperature) -> float:
    try:
        t = float(temperature)
    except (TypeError, ValueError):
        raise ValueError(f"温度 T は数値で指定してください（T = {temperature!r}）。") from None
    if not math.isfinite(t) or t <= 0:
        raise ValueError(f"温度 T は 0 より大きい有限の数でなければなりません（T = {temperature}）。")
    return t


def _check_logits(logits, name: str = "ロジット") -> np.ndarray:
    try:
        z = np.asarray(logits, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} に数値でない値が含まれています。") from None
    if z.ndim != 1:
        raise ValueError(f"{name} は語彙サイズの長さをもつ 1 次元の配列が必要ですが、形は {z.shape} です。")
    if z.size == 0:
        raise ValueError(f"{name} が空です。語彙が 1 つ以上必要です。")
    if np.isnan(z).any() or np.isposinf(z).any():
        raise ValueError(f"{name} に NaN または +∞ が含まれています。")
    if (z == -np.inf).all():
        raise ValueError(f"{name} がすべて −∞ です。選べるトークンが 1 つもありません。")
    return z


def _check_probs(probs) -> np.ndarray:
    try:
        pr = np.asarray(probs, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("確率分布に数値でない値が含まれています。") from None
    if pr.ndim != 1 or pr.size == 0:
        raise ValueError(f"確率分布は空でない 1 次元の配列が必要ですが、形は {pr.shape} です。")
    if not np.isfinite(pr).all():
        raise ValueError("確率分布に NaN または無限大が含まれています。")
    if (pr < 0).any():
        raise ValueError(f"確率分布に負の値があります（最小値 {pr.min():.4g}）。確率は 0 以上です。")
    total = float(pr.sum())
    if abs(total - 1.0) > _SUM_TOL:
        raise ValueError(f"確率分布の合計が 1 になっていません（合計 {total:.6g}）。softmax を通した値を渡してください。")
    return pr


def _check_k(k, vocab: int) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        if isinstance(k, (float, np.floating)) and float(k).is_integer():
            k = int(k)
        else:
            raise ValueError(f"top-k の k は整数で指定してください（k = {k!r}）。")
    k = int(k)
    if k < 1:
        raise ValueError(f"top-k の k は 1 以上が必要です（k = {k}）。")
    return min(k, vocab)  # k ≥ 語彙サイズ なら全トークンを残す（＝ふつうのサンプリング）


def _check_p(p) -> float:
    try:
        p = float(p)
    except (TypeError, ValueError):
        raise ValueError(f"top-p の p は数値で指定してください（p = {p!r}）。") from None
    if not (0.0 < p <= 1.0):
        raise ValueError(f"top-p の p は 0 より大きく 1 以下でなければなりません（p = {p}）。")
    return p


def _check_rng(rng) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise ValueError(
            "サンプリングには乱数生成器 np.random.Generator が必要です"
            "（例: np.random.default_rng(0)）。同じシードなら同じ結果になります。"
        )
    return rng


# ---------------------------------------------------------------------------
# temperature
# ---------------------------------------------------------------------------
def probabilities(logits, temperature: float = 1.0) -> np.ndarray:
    """Next-token distribution with temperature: P = softmax(z / T).

    logits: (vocab,) (or (..., vocab); softmax along the last axis).
    T < 1 sharpens the distribution (T → 0: greedy), T > 1 flattens it (T → ∞: uniform).
    Logits equal to −∞ get probability exactly 0.
    """
    t = _check_temperature(temperature)
    z = np.asarray(logits, dtype=np.float64)
    if z.ndim == 1:
        z = _check_logits(z)
    return softmax(z, axis=-1, temperature=t)             # (..., vocab): exp((z − max z) / T), no overflow


@dataclass(frozen=True)
class TemperatureRow:
    temperature: float
    scaled: np.ndarray   # (vocab,)  z / T
    probs: np.ndarray    # (vocab,)  softmax(z / T)


def temperature_table(logits, temperatures: Sequence[float]) -> list[TemperatureRow]:
    """z / T and softmax(z / T) for each temperature. (2, 1, 0) with T = 1, 0.5, 2 →
    (0.665, 0.245, 0.090), (0.867, 0.117, 0.016), (0.506, 0.307, 0.186)."""
    z = as_matrix(logits, "ロジット", ndim=1)
    return [TemperatureRow(t, z / t, probabilities(z, t)) for t in map(_check_temperature, temperatures)]


#: the temperatures page ⑦-4's slider can reach: 0.1, 0.2, …, 3.0
TRY_TEMPERATURES = tuple(np.round(np.arange(0.1, 3.01, 0.1), 1).tolist())


# ---------------------------------------------------------------------------
# named mistakes of the temperature
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
        check_mistake(mistake, TEMPERATURE_MISTAKES, "temperature_mistake")
    z = as_matrix(logits, "ロジット", ndim=1)                  # finite float64: probabilities' logit checks hold
    t = _check_temperature(temperature)                       # the check probabilities(z, t) makes, for every mistake
    out = {}
    for mistake in mistakes:
        if mistake == "inverted":
            out[mistake] = probabilities(z, 1.0 / t)   # (vocab,)  = probabilities(z, 1/t)
        elif mistake == "ignored":
            out[mistake] = probabilities(z, 1.0)  # (vocab,)  = probabilities(z)
        elif mistake == "no_normalise":
            out[mistake] = np.exp(z / t)                      # (vocab,)
        else:
            out[mistake] = probabilities(z, t)    # (vocab,)  = probabilities(z, t)
    return out


# ---------------------------------------------------------------------------
# choice rules
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Choice:
    """One next-token decision, with everything needed to display it."""

    strategy: str              # "greedy" | "sample" | "top_k" | "top_p"
    index: int                 # the chosen token id
    probs: np.ndarray          # (vocab,) the distribution we started from
    ranking: np.ndarray        # (vocab,) token ids, most probable first (ties: lowest id first)
    kept: np.ndarray           # (m,) kept token ids, in rank order
    kept_mass: float           # Σ probs[kept] before renormalising
    distribution: np.ndarray   # (vocab,) renormalised: probs / kept_mass on kept, 0 elsewhere
    cumulative: np.ndarray     # (m,) cumulative renormalised probability along `kept`
    u: float | None            # the uniform random number drawn (None for greedy)

    @property
    def chosen(self) -> int:
        return self.index


def _rank(probs: np.ndarray) -> np.ndarray:
    """Token ids sorted by probability, largest first; a stable sort keeps ties by lowest id."""
    return np.argsort(-probs, kind="stable")             # (vocab,)


def _draw(strategy: str, probs: np.ndarray, ranking: np.ndarray, m: int, rng) -> Choice:
    """Renormalise over the first m ranked tokens and draw one by inverse CDF."""
    kept = ranking[:m]                                    # (m,)
    kept_probs = probs[kept]                              # (m,)
    mass = float(kept_probs.sum())
    renormalised = kept_probs / mass                      # (m,)
    distribution = np.zeros(probs.shape)                  # (vocab,)
    distribution[kept] = renormalised
    cumulative = renormalised.cumsum()                    # (m,)
    if rng is None:  # greedy: no randomness at all
        return Choice(strategy, int(kept[0]), probs, ranking, kept, mass, distribution, cumulative, None)
    u = float(_check_rng(rng).random())
    pos = int(np.searchsorted(cumulative, u, side="right"))  # 最初に累積確率 > u となる位置
    positive = np.flatnonzero(renormalised > 0)
    pos = min(pos, int(positive[-1]))                     # 丸め誤差で u ≥ 累積の最後 のときの保険
    return Choice(strategy, int(kept[pos]), probs, ranking, kept, mass, distribution, cumulative, u)


def greedy(probs) -> Choice:
    """Greedy decoding: argmax_j P_j; ties go to the lowest token id. Uses no randomness."""
    pr = _check_probs(probs)
    return _draw("greedy", pr, _rank(pr), 1, None)


def sample(probs, rng: np.random.Generator) -> Choice:
    """Plain sampling: draw j with probability P_j (all tokens kept)."""
    pr = _check_probs(probs)
    _check_rng(rng)
    return _draw("sample", pr, _rank(pr), pr.size, rng)


def top_k_sample(probs, k: int, rng: np.random.Generator) -> Choice:
    """Top-k sampling: keep the k most probable tokens, P'_j = P_j / Σ_{kept} P, draw from P'.

    k ≥ vocab keeps every token. Ties at the k-th place keep the lowest ids.
    """
    pr = _check_probs(probs)
    k = _check_k(k, pr.size)
    _check_rng(rng)
    return _draw("top_k", pr, _rank(pr), k, rng)


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
        check_mistake(mistake, TOP_K_MISTAKES, "top_k_mistake")
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


def top_p_sample(probs, p: float, rng: np.random.Generator) -> Choice:
    """Top-p (nucleus) sampling.

    Sort by probability; keep the smallest prefix whose cumulative probability is ≥ p;
    renormalise over that prefix (P'_j = P_j / Σ_{kept} P) and draw from P'.
    p = 1 keeps every token with non-zero probability.
    """
    pr = _check_probs(probs)
    p = _check_p(p)
    _check_rng(rng)
    ranking = _rank(pr)                                   # (vocab,)
    return _draw("top_p", pr, ranking, _top_p_count(pr, ranking, p), rng)


def _top_p_count(pr: np.ndarray, ranking: np.ndarray, p: float) -> int:
    """How many ranked tokens top-p keeps: the shortest prefix of ``ranking`` whose total
    probability is ≥ p (all of them if rounding keeps the total just below p)."""
    cum = np.cumsum(pr[ranking])                          # (vocab,)
    reached = cum >= p - _CUM_TOL                         # 丸め誤差で 0.9999999 < 1 とならないように
    return int(reached.argmax()) + 1 if reached.any() else pr.size


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
        check_mistake(mistake, TOP_P_MISTAKES, "top_p_mistake")
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
        out[mistake] = TopPResult(tuple(kept), float(pr[kept].sum()))
    return out


def kept_distribution(probs, strategy: str, *, k: int | None = None, p: float | None = None) -> Choice:
    """The kept set and renormalised distribution of a choice rule, WITHOUT a draw.

    strategy "top_k" (needs k) or "top_p" (needs p): the same ``kept``, ``kept_mass`` and
    ``distribution`` as top_k_sample / top_p_sample (they do not depend on the random number),
    with ``index`` = the most probable kept token and ``u`` = None. For explaining or quizzing
    the rule when no token is to be drawn. probs: (vocab,).
    """
    pr = _check_probs(probs)
    ranking = _rank(pr)                                   # (vocab,)
    if strategy == "top_k":
        if k is None:
            raise ValueError("top_k 戦略には k を指定してください。")
        return _draw("top_k", pr, ranking, _check_k(k, pr.size), None)
    if strategy == "top_p":
        if p is None:
            raise ValueError("top_p 戦略には p を指定してください。")
        return _draw("top_p", pr, ranking, _top_p_count(pr, ranking, _check_p(p)), None)
    raise ValueError(f"残す候補を決める選び方は top_k か top_p です（{strategy!r}）。")


def choose(probs, strategy: str = "greedy", rng: np.random.Generator | None = None, *,
           k: int | None = None, p: float | None = None) -> Choice:
    """Dispatch by name: "greedy", "sample", "top_k" (needs k), "top_p" (needs p)."""
    if strategy == "greedy":
        return greedy(probs)
    if strategy == "sample":
        return sample(probs, rng)
    if strategy == "top_k":
        if k is None:
            raise ValueError("top_k 戦略には k を指定してください。")
        return top_k_sample(probs, k, rng)
    if strategy == "top_p":
        if p is None:
            raise ValueError("top_p 戦略には p を指定してください。")
        return top_p_sample(probs, p, rng)
    raise ValueError(f"選び方 {strategy!r} は知りません。{', '.join(STRATEGIES)} のどれかを指定してください。")


# ---------------------------------------------------------------------------
# autoregressive generation
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class GenerationStep:
    step: int                  # 0, 1, 2, …
    ids: tuple[int, ...]       # the sequence fed to the model at this step
    logits: np.ndarray         # (vocab,)
    probs: np.ndarray          # (vocab,) softmax(logits / T)
    choice: Choice

    @property
    def chosen(self) -> int:
        return self.choice.index

    @property
    def kept(self) -> np.ndarray:  # (m,)
        return self.choice.kept


@dataclass(frozen=True)
class GenerationResult:
    prompt_ids: tuple[int, ...]
    ids: tuple[int, ...]                   # prompt + generated tokens
    steps: tuple[GenerationStep, ...]      # one per generated token
    stopped_at_eos: bool

    @property
    def generated(self) -> tuple[int, ...]:
        return self.ids[len(self.prompt_ids):]


def _check_ids(ids, name: str) -> tuple[int, ...]:
    arr = np.asarray(ids)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} はトークン ID の空でない 1 次元の列が必要です（形 {arr.shape}）。")
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name} のトークン ID は整数でなければなりません。")
    return tuple(int(i) for i in arr)


def generate(next_logits: Callable[[Sequence[int]], np.ndarray], prompt_ids, n_steps: int,
             strategy: str = "greedy", rng: np.random.Generator | None = None,
             temperature: float = 1.0, k: int | None = None, p: float | None = None,
             eos_id: int | None = None) -> GenerationResult:
    """Autoregressive generation, one token per step.

        for t in 0 … n_steps-1:
            z_t = next_logits(ids)             (vocab,)
            P_t = softmax(z_t / T)
            y_t = choose(P_t, strategy)        greedy / sample / top_k / top_p
            ids = ids + (y_t,)                 stop early when y_t == eos_id

    next_logits: a pure function from the ids so far to the logits of the next token.
    Same rng seed → same sequence. Every step is recorded in ``.steps``.
    """
    ids = _check_ids(prompt_ids, "プロンプト")
    if isinstance(n_steps, bool) or not isinstance(n_steps, (int, np.integer)) or n_steps < 0:
        raise ValueError(f"生成するステップ数は 0 以上の整数が必要です（{n_steps!r}）。")
    if strategy not in STRATEGIES:
        raise ValueError(f"選び方 {strategy!r} は知りません。{', '.join(STRATEGIES)} のどれかを指定してください。")
    t = _check_temperature(temperature)
    if strategy != "greedy":
        _check_rng(rng)
    if strategy == "top_k":
        if k is None:
            raise ValueError("top_k 戦略には k を指定してください。")
        _check_k(k, 1)
    if strategy == "top_p":
        if p is None:
            raise ValueError("top_p 戦略には p を指定してください。")
        _check_p(p)
    prompt = ids
    steps: list[GenerationStep] = []
    vocab = None
    stopped = False
    for step in range(int(n_steps)):
        logits = _check_logits(next_logits(ids), f"ステップ {step} のロジット").copy()  # (vocab,)
        if vocab is None:
            vocab = logits.size
        elif logits.size != vocab:
            raise ValueError(f"ステップ {step} のロジットの長さ {logits.size} が最初のステップの語彙サイズ {vocab} と違います。")
        probs = probabilities(logits, t)                  # (vocab,)
        choice = choose(probs, strategy, rng, k=k, p=p)
        steps.append(GenerationStep(step, ids, logits, probs, choice))
        ids = ids + (choice.index,)
        if eos_id is not None and choice.index == int(eos_id):
            stopped = True
            break
    return GenerationResult(prompt, ids, tuple(steps), stopped)


# ---------------------------------------------------------------------------
# a readable next-token model for the generation loop
# ---------------------------------------------------------------------------
TOY_VOCAB = Vocabulary(("<eos>", "猫", "は", "魚", "を", "食べた", "見つけた", "。"))


# 直前のトークン（行）→ 次のトークン（列）のロジット。小さな整数で、手で読めるように。
#                  <eos> 猫  は  魚  を 食べた 見つけた 。
TOY_LOGITS = np.array([
    [0, 3, 0, 2, 0, 0, 0, 0],   # <eos>（文頭）→ 猫 / 魚
    [0, 0, 3, 0, 2, 0, 0, 0],   # 猫 → は / を
    [0, 1, 0, 3, 0, 0, 0, 0],   # は → 魚 / 猫
    [0, 0, 1, 0, 3, 0, 0, 0],   # 魚 → を / は
    [0, 0, 0, 0, 0, 3, 2, 0],   # を → 食べた / 見つけた
    [1, 0, 0, 0, 0, 0, 0, 3],   # 食べた → 。
    [1, 0, 0, 0, 0, 0, 0, 3],   # 見つけた → 。
    [3, 1, 0, 0, 0, 0, 0, 0],   # 。 → <eos> / 猫
], dtype=np.float64)
TOY_LOGITS.flags.writeable = False


def toy_next_logits(ids: Sequence[int]) -> np.ndarray:
    """Logits of the next token: the row of TOY_LOGITS for the previous token. (vocab,)"""
    if len(ids) == 0:
        raise ValueError("トークン列が空です。")
    last = int(ids[-1])
    if not 0 <= last < len(TOY_VOCAB):
        raise ValueError(f"トークン ID {last} は語彙（0〜{len(TOY_VOCAB) - 1}）にありません。")
    return TOY_LOGITS[last].copy()                            # (vocab,)


def generation_step(ids: Sequence[int], strategy: str, seed: int, temperature: float = 1.0,
                    k: int | None = None, p: float | None = None, next_logits=toy_next_logits) -> GenerationStep:
    """One step of the generation loop, reproducible: the random number depends only on
    (seed, current length), so the same seed and the same history give the same token.
    """
    ids = tuple(int(i) for i in ids)
    if isinstance(seed, bool) or int(seed) != seed or seed < 0:
        raise ValueError(f"シードは 0 以上の整数にしてください（{seed!r}）。")
    rng = np.random.default_rng([int(seed), len(ids)])
    result = generate(next_logits, ids, 1, strategy, rng, temperature, k=k, p=p)
    return result.steps[0]


