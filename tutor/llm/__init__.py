"""⑩ What the Transformer became: large language models, and vision after ViT.

Every number of the 「大規模言語モデルとその後」 page and its quizzes comes from here:

- ``models``: GPT-2 / GPT-3 (decoder only, at scale): the exact parameter count of a
  configuration, part by part, and the rule of thumb 12·L·d² (GPT-3: L = 96, d = 12,288 →
  173,946,175,488 ≈ 175 B); scaling laws: the power law L(N) = (N_c / N)^α, training compute
  C ≈ 6·N·D, and the compute-optimal split of a budget with ≈ 20 tokens per parameter
  (Chinchilla): C = 6·N·(20 N) = 120 N² → N = √(C / 120), D = 20 N;
- ``bpe``: byte-pair encoding (BPE) on a tiny corpus (the reward model and RLHF: ⑩-2, ``tutor.adapt``; the
  KV cache, MQA/GQA: ⑩-3, ``tutor.efficient``);
- ``vision``: Swin's window attention 2M²·hw·C against global 2(hw)²·C, MAE's random mask (75 %
  of the patches). CLIP's image–text similarities live in ``tutor.multimodal`` (page ⑪).

Each named misconception (the FFN forgotten in 12·L·d², the square root forgotten for a budget, …)
is a function next to the formula it distorts; its Japanese label lives in quizzes/gen_llm.py. Conventions: float64 for arrays, Python ints for counts (exact),
inputs never mutated, randomness only from a passed Generator, bad input → ValueError in Japanese.
Imports only ``tutor.core`` (and ViT's patch grid from ``tutor.pretrain``); every name is
re-exported here (``tutor.llm.X``).
"""
from __future__ import annotations

from .models import (  # noqa: F401
    GPT_VOCAB_SIZE, GPT_SIZES, GPT3_TRAINING_TOKENS, KAPLAN_ALPHA_N, KAPLAN_N_C, FLOPS_PER_PARAM_TOKEN,
    TOKENS_PER_PARAM, CHINCHILLA, GptParams, gpt_param_count, rule_of_thumb_params, rule_params_no_ffn,
    rule_params_square_ffn, rule_params_linear_d, rule_params_one_layer, power_law_loss, loss_factor,
    training_flops, budget_for, ComputeOptimal, compute_optimal, compute_optimal_sci, optimal_tokens_params_instead,
    optimal_tokens_no_sqrt, optimal_tokens_six_divided, loss_curve, optimal_curve,
)
from .bpe import (  # noqa: F401
    BPE_DEMO_CORPUS, BPE_DEMO_NEW_WORDS, BpeStep, BpeResult, bpe_corpus, bpe_train, bpe_tokenize,
)
from .vision import (  # noqa: F401
    SwinCost, swin_cost, swin_ratio_m_not_m2, swin_ratio_one_window, swin_ratio_sides_added, swin_window_ids,
    MAE_MASK_PERCENT, mae_visible, mae_hidden, MaeSplit, mae_mask, mae_image_visible, mae_visible_masked_instead,
    mae_visible_all_patches, mae_visible_p_not_p2,
)
