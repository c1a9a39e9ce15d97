"""The worked examples of the source documents, as named constants (inputs only).

Every RESULT shown to a learner is computed from these by the engine; nothing here is an
answer. Notation: one token per row, weights on the right (Q = X W_Q).
"""
from __future__ import annotations

import numpy as np


def _ro(rows) -> np.ndarray:
    """float64 array that cannot be written to (shared constants must stay constant)."""
    arr = np.array(rows, dtype=np.float64)
    arr.flags.writeable = False
    return arr


# --- chapter 8: 猫・魚・それ (d_model = 4) --------------------------------------------
TOKENS = ("猫", "魚", "それ")
X = _ro([[1, 0, 1, 0],    # 猫
         [0, 1, 0, 1],    # 魚
         [1, 1, 0, 0]])   # それ
D_MODEL = 4

# 8.6: one head with d_k = d_v = 2
W_Q = _ro([[0, 1], [0, 1], [2, 0], [1, 0]])
W_K = _ro([[1, -1], [0, 1], [1, 1], [0, 1]])
W_V = _ro([[1, 0], [0, 1], [1, 0], [0, 1]])
D_K = 2

# 8.9: the second head ("look at the previous token"); the seed gives its weights and
# values directly rather than its W matrices.
HEAD2_WEIGHTS = _ro([[0.90, 0.05, 0.05],
                     [0.80, 0.10, 0.10],
                     [0.10, 0.80, 0.10]])
HEAD2_VALUES = _ro([[1, 0], [1, 2], [1, 1]])
W_O = _ro([[1, 0, 0, 0],
           [0, 1, 0, 0],
           [0, 1, 1, 0],
           [1, 0, 0, 1]])

# 8.4: the scores used to show softmax saturation
SATURATION_SCORES = (_ro([2, 1, 0]), _ro([20, 10, 0]), _ro([16, 8, 0]))
SATURATION_D_K = 64

# 8.x self- vs cross-attention (page ④, ⑦-3): a decoder writing the English translation
# "... it ate ...": two target tokens whose queries come from these embeddings (d_model = 4,
# like 猫・魚・それ); keys and values come from X above.
CROSS_DEC_TOKENS = ("ate", "it")
CROSS_X_DEC = _ro([[0, 0, 1, 1],    # ate
                   [1, 1, 0, 0]])   # it

# --- ⑦-1 positional encoding ------------------------------------------------------------
# the orders of 猫・魚・それ the permutation demo offers (indices into TOKENS)
PERMUTATIONS = {
    "それ・猫・魚": (2, 0, 1),
    "魚・猫・それ": (1, 0, 2),
    "猫・それ・魚": (0, 2, 1),
    "それ・魚・猫": (2, 1, 0),
    "魚・それ・猫": (1, 2, 0),
}
# RoPE: the same query and key vector at different positions
ROPE_Q = _ro([1, 0, 1, 0])
ROPE_K = _ro([1, 0, 1, 0])

# --- ⑦-2 FFN, residual connection, layer normalisation ---------------------------------------
FFN_X = _ro([[2, 0]])                                    # one token, d_model = 2
FFN_W1 = _ro([[1, 0, -1, 2], [0, 1, 1, -1]])             # (2, 4): d_ff = 4
FFN_W2 = _ro([[1, 0], [0, 1], [1, 1], [0, -1]])          # (4, 2)
LN_ROW = _ro([1, 2, 3, 4])
# layer vs batch normalisation: the same first row inside two different batches
NORM_ROW0 = _ro([[1, 2, 3, 4]])
NORM_OTHERS_A = _ro([[2, 0, 1, 1], [0, 0, 4, 0]])
NORM_OTHERS_B = _ro([[20, 0, 10, 10], [0, -5, 40, 0]])

# --- G検定 page (004): one query, three keys, d_k = 2 ----------------------------------
G_QUERY = _ro([[1, 0]])
G_KEYS = _ro([[1, 0], [0, 1], [1, 1]])
G_VALUES = _ro([[2, 0], [0, 4], [1, 1]])
G_MASK_KEY3 = np.array([[True, True, False]])
G_MASK_KEY3.flags.writeable = False

# --- the paper (Attention Is All You Need) ---------------------------------------------
PAPER_D_MODEL = 512
PAPER_HEADS = 8
PAPER_LAYERS = 6
PAPER_D_FF = 2048
PE_BASE = 10000.0

# Results reported by the paper (seed 004; textbook-figures.md): WMT 2014 translation, BLEU
# scores of the big model, and its training cost on English→French.
PAPER_BLEU_EN_DE = 28.4     # WMT 2014 English→German
PAPER_BLEU_EN_FR = 41.8     # WMT 2014 English→French (single model, state of the art then)
PAPER_TRAIN_DAYS = 3.5      # training time for EN-FR
PAPER_TRAIN_GPUS = 8        # on 8 GPUs

# The base model (N = 6, d_model = 512, h = 8, d_ff = 2048: the sizes above, the ones the pages
# configure) and the big model, from the paper's Table 2 / Table 3 and section 5.2.
PAPER_BASE_BLEU_EN_DE = 27.3        # base model, WMT 2014 English→German
PAPER_BASE_BLEU_EN_FR = 38.1        # base model, WMT 2014 English→French
PAPER_BASE_TRAIN_HOURS = 12         # base model: 100k steps, about 12 hours on the same 8 GPUs
PAPER_BLEU_EN_FR_CONFERENCE = 41.0  # big model EN-FR as the conference (NIPS 2017) text gives it
PAPER_BIG_D_MODEL = 1024            # big model
PAPER_BIG_D_FF = 4096
PAPER_BIG_HEADS = 16
PAPER_DROPOUT = 0.1                 # base model: dropout on each sub-layer output and on embedding + PE

# --- temperature example (logits over a 3-word vocabulary) --------------------------------
TEMPERATURE_LOGITS = _ro([2, 1, 0])
TEMPERATURES = (1.0, 0.5, 2.0)

# --- cost example (Table 1) --------------------------------------------------------------
COST_N = 100
COST_D = 512
