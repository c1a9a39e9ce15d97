"""⑩-3 Slimming models and inference: what makes a trained Transformer smaller and faster.

Every number of the 「モデルと推論を軽くする」 page and its quizzes comes from here:

- ``compress``: knowledge distillation — soft targets softmax(z / T) (T = 1, 2, 4 …) and the
  student's loss α · T² · H(p, q) + (1 − α) · H(label, q₁) (Hinton et al. 2015: the soft part's
  gradients scale as 1/T², hence T²); quantization — symmetric int-b (S = max|x| / (2^{b−1} − 1),
  Z = 0) and affine (S = (max − min) / (2^b − 1), Z = round(−min / S)), q = round(x / S) + Z,
  x̂ = S (q − Z), |x − x̂| ≤ S / 2, and the weights' memory N · b / 8 bytes; magnitude pruning (the
  share s with the smallest |w| set to 0) and one round of the lottery ticket (the mask of the
  trained weights applied to the initial ones);
- ``inference``: the KV cache, 2 · L · n_kv · d_head · T · bytes · B bytes, and how much multi-query /
  grouped-query attention save (n_heads / n_kv); a sliding window of width 2r + 1 with g global
  tokens against full attention (n(2r + 1) − r(r + 1) scores against n² without global tokens);
  speculative decoding's expected tokens per step (1 − α^{γ+1}) / (1 − α); a mixture of experts'
  stored and active parameters.

Each named misconception (T not divided, T² left out, truncation for rounding, 128 for 127, bits
for bytes, the largest weights pruned, K without V, query heads for KV heads, windows not cut at
the ends, …) is a function next to the formula it distorts; its Japanese label lives in
quizzes/gen_efficient.py. Conventions: float64 for arrays, Python ints for counts (exact), inputs
never mutated, bad input → ValueError in Japanese. Imports only ``tutor.core``; every name is
re-exported here (``tutor.efficient.X``).
"""
from __future__ import annotations

from .compress import (  # noqa: F401
    DEMO_TEACHER, DEMO_STUDENT, DEMO_CLASSES, DEMO_TEMPERATURES, DEMO_ALPHA, CURVE_TEMPERATURES, SoftTargets, soft_targets, soft_target_curve, logits_for,
    soft_targets_undivided, soft_targets_multiplied, soft_targets_divided_after, soft_cross_entropy, soft_term,
    soft_term_no_t2, soft_term_t_once, soft_term_divided, soft_term_swapped, as_ln2_multiple, DistillLoss,
    distillation_loss, DEMO_WEIGHTS, BITS, GB, round_half_away, Quantized, quantize, quantize_truncated,
    scale_power_of_two, scale_unsigned_steps, ERROR_BITS, quant_error_curve, weight_bytes, weight_bytes_bits_as_bytes, weight_bytes_ratio_inverted,
    in_gb, memory_table, SPARSITY_STEPS, DEMO_MATRIX, DEMO_INIT, prune_count, Pruned, magnitude_prune, prune_signed, prune_largest,
    prune_kept_share, Ticket, winning_ticket,
)
from .inference import (  # noqa: F401
    MIB, GIB, KV_7B, in_kib, in_mib, in_gib, KvCache, kv_cache, kv_cache_bytes, kv_cache_bytes_k_only,
    kv_cache_bytes_query_heads, kv_cache_bytes_one_layer, kv_cache_bytes_no_batch, kv_cache_curve, kv_saving,
    kv_groups, DEMO_N, DEMO_RADIUS, DEMO_GLOBAL, WindowPairs, window_mask, window_pairs, window_edge_cut, window_pairs_no_edges,
    window_pairs_one_side, speculative_tokens, MoeCount, moe_params,
)
