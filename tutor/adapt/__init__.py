"""⑩-2 Adapting a large language model to a purpose: fine-tuning a part of it, aligning it with
people's preferences, and giving it documents to answer from.

Every number of the 「LLM を目的に合わせる」 page and its quizzes comes from here:

- ``peft``: what parameter-efficient fine-tuning trains — LoRA's r·(d + k) against the frozen
  d·k of one matrix and the share of a whole model (GPT-3 with r = 4 on W_Q and W_V: 18,874,368
  of 174,604,259,328), LoRA's forward pass h = W₀x + BAx (B = 0 at the start, so h = W₀x; after
  training W₀ + BA is one matrix again), adapters' 2·d·m + d + m, prompt tuning's n·d and prefix
  tuning's 2·L·n·d;
- ``rlhf``: the reward model's pairwise (Bradley–Terry) loss −log σ(r_w − r_l), the KL-penalised
  objective E_π[r] − β·KL(π ‖ π_ref) and its maximiser π ∝ π_ref · exp(r / β), DPO's loss (moved
  here from ``tutor.llm`` with the page section that teaches them);
- ``rag``: retrieval for RAG — cosine similarity of a question to each document, the top k, and
  the prompt they go into.

Each named misconception (LoRA counted as r·d·k, one factor forgotten, the frozen weights counted
as trained, the adapters' biases forgotten, the rewards swapped, the dot product ranked instead of
the cosine, …) is a function next to the formula it distorts; its Japanese label lives in
quizzes/gen_adapt.py. Conventions: float64 for arrays, Python ints for counts (exact), inputs never
mutated, randomness only from a passed Generator, bad input → ValueError in Japanese. Imports only
``tutor.core``; every name is re-exported here (``tutor.adapt.X``).
"""
from __future__ import annotations

from .peft import (  # noqa: F401
    MAX_SIZE, GPT3_LORA, ADAPTERS_PER_LAYER, LORA_DEMO_W0, LORA_DEMO_X, LORA_DEMO_A, LORA_DEMO_B, LoraCount,
    lora_params, lora_params_rdk, lora_params_b_only, lora_params_with_frozen, LoraModel, lora_trainable, lora_model,
    lora_rank_curve, LoraForward, lora_forward, lora_forward_no_delta, lora_forward_no_base, lora_forward_multiplied,
    lora_init, AdapterCount, adapter_params, adapter_params_no_bias, adapter_params_one_per_layer,
    adapter_params_down_only, prompt_tuning_params, prompt_tuning_every_layer, prefix_tuning_params, PeftRow,
    peft_table,
)
from .rlhf import (  # noqa: F401
    RewardLoss, reward_pair_loss, reward_loss_swapped, reward_loss_no_minus, reward_loss_no_sigmoid,
    REWARD_MISTAKES, reward_loss_exp, kl_divergence, KlPolicy, kl_optimal_policy, DpoLoss, dpo_loss,
)
from .rag import (  # noqa: F401
    RAG_AXES, RAG_DEMO_DOCS, RAG_DEMO_QUESTION, RAG_DEMO_QUERY, RAG_DEMO_K, RAG_DEMO_QUERIES, Retrieval,
    similarity_table, retrieve, cosine_similarity,
    cosine_no_norm, cosine_one_norm, cosine_norms_added, top_by_dot, bottom_by_cosine, top_by_distance, rag_prompt,
)
