"""⑨-2 BERT・GPT の後継たち: what each successor of BERT and GPT changed, as numbers.

Every number the page 「BERT・GPT の後継たち」 and its quizzes show comes from here:

- ALBERT (Lan et al. 2019): the factorized embedding V·E + E·H instead of BERT's V·H, and
  cross-layer sharing (one layer's weights serve all L layers: P instead of L·P);
- RoBERTa (Liu et al. 2019): BERT's static masking (the data copied ``copies`` times, each copy
  masked once, so over ``epochs`` epochs a sentence sees ``copies`` masks, each ``epochs/copies``
  times) against dynamic masking (a new mask every time the sentence is fed) — drawn;
- ELECTRA (Clark et al. 2020): replaced token detection — a loss at EVERY position (original or
  replaced?) against MLM's loss at the masked 15 % only; a position where the small generator
  sampled the original word back counts as original;
- XLNet (Yang et al. 2019): permutation language modelling — n! factorization orders; under one
  order a position sees exactly the positions that come before it IN THAT ORDER (the sequence
  itself is not reordered: only the attention mask changes);
- T5 (Raffel et al. 2019/2020): span corruption — each dropped span becomes ONE sentinel in the
  input; the target lists every span after its sentinel and ends with one more sentinel
  (BART's text infilling instead asks for the whole original text back);
- SQuAD with BERT (Devlin et al. 2019): the answer span (i, j), i ≤ j, that maximises
  start_i + end_j.

Each named misconception (forgot the E·H projection, sharing divided by the heads, only the
replaced tokens give a signal, left-to-right instead of the factorization order, no final
sentinel …) is a function next to the formula it distorts; its Japanese label lives in
quizzes/gen_bertfamily.py.

Conventions: float64 arrays, inputs never mutated, randomness only from a passed Generator,
bad input → ValueError with a Japanese message. Positions are 0-based here; the page and the
quizzes number them from 1 for the learner (``parse_order``/``parse_spans`` read 1-based text).
Imports ``tutor.core`` and ⑨-1's ``tutor.pretrain`` (the MLM rate and its rounding). A package of
three modules: ``encoders`` (ALBERT, RoBERTa, ELECTRA), ``orders`` (XLNet), ``spans`` (T5 and BART,
the SQuAD answer span); every name is re-exported here (``tutor.bertfamily.X``).
"""
from __future__ import annotations

from .encoders import (  # noqa: F401
    ALBERT_BASE, ROBERTA_STATIC, MASK_DEMO, RTD_DEMO_TOKENS, RTD_DEMO_CANDIDATES, RTD_DEMO_SEED,
    EmbeddingParams, factorized_embedding, embedding_without_projection, embedding_unfactorized,
    embedding_projection_reversed, SharingParams, layer_sharing, AlbertCount, albert_count,
    sharing_divided_by_heads, sharing_overlooked, sharing_attention_only, StaticMasking, static_masking,
    static_repeats_as_copies, static_repeats_as_epochs, static_repeats_dynamic, static_as_dynamic,
    MaskSchedule, mask_schedule, RtdCounts, rtd_counts, rtd_loss_only_replaced, rtd_loss_only_masked,
    rtd_loss_only_original, rtd_restored_as_replaced, RtdDraw, rtd_draw,
)
from .orders import (  # noqa: F401
    XLNET_DEMO_TOKENS, XLNET_DEMO_ORDER, MAX_ORDER, MAX_FACTORIAL_N, factorization_orders, orders_with_first,
    orders_with_before, orders_condition_ignored, orders_before_as_first, orders_both_fixed, orders_as_pairs,
    orders_as_subsets, orders_as_sum, PermutationMask, permutation_mask, visible_left_to_right,
    visible_with_self, visible_all_others, visible_after, parse_order,
)
from .spans import (  # noqa: F401
    T5_SENTINELS, T5_DEMO_TOKENS, T5_DEMO_SPANS, MAX_SPAN_TOKENS, SQUAD_DEMO_TOKENS, SQUAD_DEMO_START,
    SQUAD_DEMO_END, SpanCorruption, span_corruption, target_without_final_sentinel, target_without_sentinels,
    target_whole_text, input_mask_per_token, input_without_sentinels, parse_spans, SpanAnswer, best_span,
    span_ignoring_order, span_start_first, span_end_first, span_single_token, span_candidates,
)
