"""The paper's experiments as published (Vaswani et al. 2017, "Attention Is All You Need",
arXiv 1706.03762, §5–§6): data and batching, hardware and schedule, Table 2 (BLEU and training
cost on newstest2014), Table 3 (variations of the base model on newstest2013), Table 4 (English
constituency parsing on WSJ section 23) — and the formulas behind the numbers it derives:

    training time = steps × seconds per step            (base: 100,000 × 0.4 s ≈ 11 h, "12 hours")
    FLOPs         = training time (s) × GPUs × sustained TFLOPS × 10¹²
                    (base: 12 h × 3,600 × 8 × 9.5·10¹² ≈ 3.3·10¹⁸; big: 3.5 d → 2.3·10¹⁹)
    perplexity    = exp(−mean log p(correct token))     (Table 3's PPL, per word-piece)

Each named mistake (hours not turned into seconds, one GPU, TFLOPS read as 10⁹) sits next to
the formula. The published BLEU scores and training time of the big and base models are the
textbook's (tutor.textbook.PAPER_*), read from there so that every page quotes one number.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import textbook as tb
from ..core import positive_int

# --- §5.1 training data and batching ----------------------------------------------------------
@dataclass(frozen=True)
class Corpus:
    name: str
    size: int          # sentence pairs (EN-DE: "about 4.5 million"; EN-FR: "36M sentences")
    tokenizer: str
    vocabulary: int    # EN-DE: "about 37000" tokens, shared by source and target; EN-FR: 32000


EN_DE = Corpus("WMT 2014 英語→ドイツ語", 4_500_000, "バイト対符号化（BPE）", 37_000)
EN_FR = Corpus("WMT 2014 英語→フランス語", 36_000_000, "word-piece", 32_000)
BATCH_TOKENS = 25_000           # about 25,000 source tokens and 25,000 target tokens per batch

# --- §5.2 hardware and schedule, footnote 5 ------------------------------------------------
GPUS = tb.PAPER_TRAIN_GPUS      # one machine with 8 NVIDIA P100
GPU_TFLOPS = {"K80": 2.8, "K40": 3.7, "M40": 6.0, "P100": 9.5}   # sustained single precision, as the paper assumes
BASE_STEPS, BASE_STEP_SECONDS = 100_000, 0.4
BIG_STEPS, BIG_STEP_SECONDS = 300_000, 1.0
BASE_HOURS = tb.PAPER_BASE_TRAIN_HOURS        # "100,000 steps or 12 hours"
BIG_DAYS = tb.PAPER_TRAIN_DAYS                # "300,000 steps (3.5 days)"
HOURS_PER_DAY = 24
SECONDS_PER_HOUR = 3_600
TERA = 1e12


# --- Table 2 (newstest2014) -------------------------------------------------------------------
@dataclass(frozen=True)
class Table2Row:
    model: str
    bleu_de: float | None          # BLEU EN-DE (None: not reported)
    bleu_fr: float | None
    cost_de: float | None          # training cost in FLOPs
    cost_fr: float | None
    ensemble: bool = False

    @property
    def transformer(self) -> bool:
        return self.model.startswith("Transformer")


TABLE2 = (
    Table2Row("ByteNet", 23.75, None, None, None),
    Table2Row("Deep-Att + PosUnk", None, 39.2, None, 1.0e20),
    Table2Row("GNMT + RL", 24.6, 39.92, 2.3e19, 1.4e20),
    Table2Row("ConvS2S", 25.16, 40.46, 9.6e18, 1.5e20),
    Table2Row("MoE", 26.03, 40.56, 2.0e19, 1.2e20),
    Table2Row("Deep-Att + PosUnk Ensemble", None, 40.4, None, 8.0e20, True),
    Table2Row("GNMT + RL Ensemble", 26.30, 41.16, 1.8e20, 1.1e21, True),
    Table2Row("ConvS2S Ensemble", 26.36, 41.29, 7.7e19, 1.2e21, True),
    # the Transformer rows carry one cost each, written once across both columns
    Table2Row("Transformer (base)", tb.PAPER_BASE_BLEU_EN_DE, tb.PAPER_BASE_BLEU_EN_FR, 3.3e18, 3.3e18),
    Table2Row("Transformer (big)", tb.PAPER_BLEU_EN_DE, tb.PAPER_BLEU_EN_FR, 2.3e19, 2.3e19),
)


# --- Table 3 (newstest2013, the development set; beam search, no checkpoint averaging) --------
@dataclass(frozen=True)
class Table3Row:
    group: str                     # "base", "A" … "E", "big"
    change: str                    # what differs from the base model
    ppl: float                     # perplexity on the dev set, per word-piece
    bleu: float                    # BLEU on the dev set
    params_m: int | None = None    # parameters ×10⁶ (None: not listed)


TABLE3 = (
    Table3Row("base", "N = 6, d_model = 512, d_ff = 2048, h = 8, d_k = d_v = 64, P_drop = 0.1, ε_ls = 0.1",
              4.92, 25.8, 65),
    Table3Row("A", "h = 1, d_k = d_v = 512", 5.29, 24.9),
    Table3Row("A", "h = 4, d_k = d_v = 128", 5.00, 25.5),
    Table3Row("A", "h = 16, d_k = d_v = 32", 4.91, 25.8),
    Table3Row("A", "h = 32, d_k = d_v = 16", 5.01, 25.4),
    Table3Row("B", "d_k = 16", 5.16, 25.1, 58),
    Table3Row("B", "d_k = 32", 5.01, 25.4, 60),
    Table3Row("C", "N = 2", 6.11, 23.7, 36),
    Table3Row("C", "N = 4", 5.19, 25.3, 50),
    Table3Row("C", "N = 8", 4.88, 25.5, 80),
    Table3Row("C", "d_model = 256, d_k = d_v = 32", 5.75, 24.5, 28),
    Table3Row("C", "d_model = 1024, d_k = d_v = 128", 4.66, 26.0, 168),
    Table3Row("C", "d_ff = 1024", 5.12, 25.4, 53),
    Table3Row("C", "d_ff = 4096", 4.75, 26.2, 90),
    Table3Row("D", "P_drop = 0.0", 5.77, 24.6),
    Table3Row("D", "P_drop = 0.2", 4.95, 25.5),
    Table3Row("D", "ε_ls = 0.0", 4.67, 25.3),
    Table3Row("D", "ε_ls = 0.2", 5.47, 25.7),
    Table3Row("E", "位置エンコーディングを学習で覚える位置埋め込みに", 4.92, 25.7),
    Table3Row("big", "N = 6, d_model = 1024, d_ff = 4096, h = 16, P_drop = 0.3, 300K ステップ", 4.33, 26.4, 213),
)
TABLE3_GROUPS = {
    "A": "ヘッド数 h（d_k·h = 512 のまま）",
    "B": "キーの次元 d_k だけを小さく",
    "C": "モデルの大きさ（層数・幅）",
    "D": "ドロップアウトとラベル平滑化",
    "E": "位置の入れ方",
}


def table3(group: str) -> tuple[Table3Row, ...]:
    """The base row and the rows of one group of Table 3."""
    if group not in TABLE3_GROUPS:
        raise ValueError(f"表 3 の行のまとまりは {', '.join(TABLE3_GROUPS)} のどれかです（{group!r}）。")
    return (TABLE3[0],) + tuple(r for r in TABLE3 if r.group == group)


def heads_row_for(heads: int) -> Table3Row:
    """The Table 3 row with h heads (rows A and base: h·d_k = 512 throughout)."""
    rows = {8: TABLE3[0], **{int(r.change.split()[2].rstrip(",")): r for r in TABLE3 if r.group == "A"}}
    if heads not in rows:
        raise ValueError(f"表 3 にあるヘッド数は {', '.join(str(h) for h in sorted(rows))} です（{heads!r}）。")
    return rows[heads]


# --- §6.3 and Table 4: English constituency parsing (WSJ section 23, F1) -----------------------
PARSING_LAYERS, PARSING_D_MODEL = 4, 1024
WSJ_SENTENCES = 40_000            # the WSJ part of the Penn Treebank, about 40K training sentences
SEMI_SENTENCES = 17_000_000       # semi-supervised: about 17M sentences
PARSING_VOCAB = {"wsj": 16_000, "semi": 32_000}
PARSING_F1 = {"wsj": 91.3, "semi": 92.7}
BERKELEY_F1 = 90.4                 # Petrov et al. (2006), WSJ only — the Transformer beats it on 40K sentences
RNNG_F1 = 93.3                     # Dyer et al. (2016), generative — the one it does not beat


# ---------------------------------------------------------------------------
# training time and cost
# ---------------------------------------------------------------------------
def _positive(x, name: str) -> float:
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise ValueError(f"{name} は正の数で入れてください（{x!r}）。") from None
    if isinstance(x, bool) or not math.isfinite(v) or v <= 0:
        raise ValueError(f"{name} は正の有限の数で入れてください（{x!r}）。")
    return v


BIG_HOURS = BIG_DAYS * HOURS_PER_DAY           # 84


def in_man(count: float) -> float:
    """A count in units of 万 (10,000), as Japanese writes large counts: 4,500,000 → 450."""
    return float(count) / 10_000


def hours_to_seconds(hours: float) -> float:
    """Hours × 3,600 (a TFLOPS figure is per second)."""
    return _positive(hours, "学習時間") * SECONDS_PER_HOUR


def training_hours(steps: int, seconds_per_step: float) -> float:
    """Training time in hours: steps × seconds per step / 3,600."""
    return positive_int(steps, "ステップ数") * _positive(seconds_per_step, "1 ステップの秒数") / SECONDS_PER_HOUR


def training_flops(hours: float, gpus: int, tflops: float) -> float:
    """The paper's estimate of a training run's floating-point operations:
    hours × 3,600 s × GPUs × TFLOPS × 10¹²."""
    return (hours_to_seconds(hours) * positive_int(gpus, "GPU の数")
            * _positive(tflops, "GPU の性能（TFLOPS）") * TERA)


def flops_hours_not_seconds(hours: float, gpus: int, tflops: float) -> float:
    """MISTAKE: hours multiplied by FLOP/s as if they were seconds (× 3,600 forgotten)."""
    return training_flops(hours, gpus, tflops) / SECONDS_PER_HOUR


def flops_one_gpu(hours: float, gpus: int, tflops: float) -> float:
    """MISTAKE: one GPU's operations only (the number of GPUs forgotten)."""
    return training_flops(hours, gpus, tflops) / positive_int(gpus, "GPU の数")


def flops_giga(hours: float, gpus: int, tflops: float) -> float:
    """MISTAKE: TFLOPS read as 10⁹ operations per second (tera taken for giga)."""
    return training_flops(hours, gpus, tflops) / 1e3


FLOPS_MISTAKES = {"hours": flops_hours_not_seconds, "one_gpu": flops_one_gpu, "giga": flops_giga}


def paper_cost(model: str = "base") -> float:
    """The Transformer's own cost by the paper's formula: base 12 h, big 3.5 days, on 8 P100."""
    hours = {"base": BASE_HOURS, "big": BIG_HOURS}
    if model not in hours:
        raise ValueError(f"モデルは base か big です（{model!r}）。")
    return training_flops(hours[model], GPUS, GPU_TFLOPS["P100"])


def perplexity(probs) -> float:
    """exp(−mean log p): p are the probabilities the model gave the correct tokens (each in (0, 1])."""
    p = np.asarray(probs, dtype=np.float64).ravel()
    if p.size == 0 or not np.isfinite(p).all() or (p <= 0).any() or (p > 1).any():
        raise ValueError("確率は 0 より大きく 1 以下の数を 1 つ以上並べてください。")
    return float(np.exp(-np.mean(np.log(p))))
