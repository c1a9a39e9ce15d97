"""What the Transformer became: BERT (encoder only), GPT (decoder only), Vision Transformer.

Every number the 「Transformer のその後」 page and its quizzes show comes from here:

- BERT's masked language model (MLM): 15 % of the ordinary tokens are chosen for prediction;
  of those 80 % become [MASK], 10 % a random token, 10 % stay unchanged — drawn from a passed
  ``np.random.Generator``; the expected counts for n tokens; the input "[CLS] A [SEP] B [SEP]"
  with its segment ids; the next-sentence-prediction (NSP) pair; the classification head on [CLS];
- parameter counts computed from the sizes (L layers, width H, A heads, vocabulary …);
- GPT: one token at a time with a causal mask (a tiny hand-built decoder, greedy choice);
- ViT: the image cut into P×P patches, (H/P)(W/P) patches + 1 class token, patch vectors of
  length P²·C, the embedding z₀ = [x_class; x_p E] + E_pos, ViT-Base's parameter count.

Each named misconception (forgot the class token, P instead of P², all 15 % as [MASK],
d_k = d_model for a head, …) is a function next to the formula it distorts; its Japanese label
lives in quizzes/gen_pretrain.py.

Conventions: one token per ROW, weights multiply on the right, float64, inputs never mutated,
randomness only from a passed Generator, bad input → ValueError with a Japanese message.
Only ``tutor.core`` is imported. A package of three modules: ``bert``, ``gpt``, ``vit``;
every name is re-exported here (``tutor.pretrain.X``).
"""
from __future__ import annotations

from .bert import (  # noqa: F401
    BERT_VOCAB, BERT_MAX_POSITIONS, BERT_TYPE_VOCAB, BERT_SIZES, MLM_RATE, MLM_SPLIT, MLM_ACTIONS, SPECIAL, DEMO_SENTENCE_A, DEMO_SENTENCE_B, NSP_CORPUS, CLS_DEMO_H, CLS_DEMO_W, CLS_DEMO_B, pretrain_half_up, pretrain_millions, MAX_SENTENCE_TOKENS, mlm_split_text, BertInput, bert_input, MlmCounts, mlm_expected_counts, mlm_counts_all_mask, mlm_counts_of_whole_sequence, mlm_counts_changed_as_mask, mlm_pick_count, MlmDraw, mlm_draw, MlmTally, mlm_tally, mlm_long_run, NspPair, nsp_pair, ClsHead, cls_head, cls_head_params, bert_head_dim, bert_head_dim_unsplit, bert_head_dim_multiplied, LayerParams, encoder_layer_params, BertParams, bert_param_count, encoder_weights, encoder_weights_no_ffn, encoder_weights_square_ffn, encoder_weights_per_head, encoder_weights_one_layer,
)
from .gpt import (  # noqa: F401
    GPT_VOCAB, GptStep, gpt_next_logits, gpt_greedy,
)
from .vit import (  # noqa: F401
    VIT_B16, VIT_DEMO_IMAGE, VIT_DEMO_PROJ, VIT_DEMO_CLS, VIT_DEMO_POS, PatchGrid, vit_patch_grid, vit_tokens, vit_tokens_without_class, vit_tokens_hw_over_p, vit_tokens_sides_added, vit_patch_dim, vit_patch_dim_p_not_p2, vit_patch_dim_no_channels, vit_patch_index, vit_patchify, VitEmbedding, vit_embed, VitParams, vit_param_count,
)
