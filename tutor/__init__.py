"""tutor: the NumPy engine behind every number the app shows.

Pure functions of float64 arrays: no streamlit, no pandas, no global state, inputs never
mutated, randomness only from a passed ``np.random.Generator``.

One module per topic, named by the page key (``pages/N_<key>.py`` ↔ ``tutor/<key>.py``):
callers write ``tutor.<key>.X`` (``tutor.formula.attention_variants``, ``tutor.block.ffn``).
The shared kernel is reachable as ``tutor.X`` too: everything of ``tutor.core`` (softmax,
attention, masks, multi-head attention, input checks) plus the two formulas of the design
contract that live in their topic, ``positional_encoding`` and ``layer_norm``.

- ``core``       softmax, attention, masks, multi-head and cross-attention, input checks
- ``textbook``   every worked-example input of the source documents (inputs only)
- ``handcalc``   hand calculation: every element of a product, a softmax row, a weighted sum
- ``vocab``      token ↔ id (``Vocabulary``) and the padding token ``PAD``
- ``numfmt``     how every shown number is written: one rounding rule (四捨五入), one set of formats
- ``wordvec`` ⓪-1 (a package: counts — BoW, TF-IDF, N-grams; vectors — one-hot, cosine, analogy, sizes,
  static vs contextual; word2vec — skip-gram and CBOW examples, softmax, negative sampling; subword — fastText)
- ``seq2seq`` ⓪-2 (its RNN history — LSTM, GRU, parameter counts, scheduled sampling — in
  ``seq2seq_rnn``), ``naive`` ①, ``qkv`` ②, ``scaling`` ③, ``formula`` ④, ``multihead`` ⑤, ``mask`` ⑥,
  ``position`` ⑦-1, ``block`` ⑦-2, ``encdec`` ⑦-3, ``output`` ⑦-4, ``cost`` ⑦-5,
  ``paper`` ⑦-6 (a package: BLEU, the length penalty and checkpoint averaging, the published tables),
  ``training`` ⑧ (a package: task, model, optim, loop, gradients, and recipe: the paper's schedule,
  label smoothing and dropout), ``pretrain`` ⑨-1 (BERT, GPT, ViT), ``bertfamily`` ⑨-2 (ALBERT,
  RoBERTa, ELECTRA, XLNet, T5 and the SQuAD answer span),
  ``llm`` ⑩-1 (a package: models and scaling, BPE, Swin and MAE after ViT),
  ``adapt`` ⑩-2 (a package: PEFT and LoRA, RLHF and DPO, RAG's retrieval),
  ``efficient`` ⑩-3 (a package: distillation, quantization, pruning; the KV cache, sparse attention),
  ``multimodal`` ⑪ (CLIP's contrastive similarities, text-to-image cross-attention, diffusion, guidance),
  ``generation`` ⑪-2 (GAN's value and optimal discriminator, DCGAN's transposed convolutions, Pix2Pix and
  CycleGAN's losses, NeRF's volume rendering, WaveNet's receptive field and μ-law)
"""
from . import core, handcalc, numfmt, textbook, vocab  # noqa: F401  (the shared kernel)
from . import wordvec, seq2seq, seq2seq_rnn, naive, qkv, scaling, formula, multihead, mask  # noqa: F401  (pages ⓪–⑥)
from . import position, block, encdec, output, cost, paper, training  # noqa: F401  (pages ⑦-1 … ⑧)
from . import pretrain, bertfamily, llm, adapt, efficient, multimodal, generation  # noqa: F401  (pages ⑨-1 … ⑪-2)
from .block import layer_norm  # noqa: F401
from .core import (  # noqa: F401
    as_matrix, positive_int, real_number, check_rng, checked_qkv, softmax, softmax_jacobian,
    finite_scores, QKV, project_qkv, causal_mask, padding_mask, as_bool_mask,
    additive_mask, mask_after_softmax, AttentionResult, attention, head_dim, split_heads,
    merge_heads, MultiHeadResult, multi_head_attention, multi_head_attention_per_head, CrossAttentionResult, cross_attention,
    row_sums, matmul, weighted_sum, most_attended, top_keys, TIE_TOL, check_mistake, max_abs_difference,
)
from .position import positional_encoding  # noqa: F401
