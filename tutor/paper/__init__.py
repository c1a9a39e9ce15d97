"""⑦-6 The original paper's experiments, beyond its training recipe (Vaswani et al. 2017).

Every number of the 「原論文の実験と評価」 page and its quizzes comes from here:

- ``bleu``: BLEU (Papineni et al. 2002) — clipped n-gram counts, the modified precisions p_n,
  the brevity penalty BP = 1 if c > r else e^(1 − r/c), BLEU = BP · exp(Σ w_n log p_n);
- ``decoding``: beam search's length penalty lp(Y) = ((5 + |Y|)/6)^α (GNMT; the paper: beam 4,
  α = 0.6, output ≤ input + 50) and how it reorders hypotheses; checkpoint averaging (the mean of
  the last k parameter vectors) and a toy noisy descent that shows why it helps;
- ``results``: the published data, batching, hardware and schedule, Tables 2–4, and the formulas
  behind them (training time = steps × seconds; FLOPs = time × GPUs × TFLOPS; perplexity).

Each named misconception (no clipping, BP forgotten or applied both ways, arithmetic mean,
recall, lp multiplied, the 5 dropped, the sum of checkpoints, hours for seconds …) is a function
next to the formula it distorts; its Japanese label lives in quizzes/gen_paper.py. Conventions:
float64, inputs never mutated, randomness only from a passed Generator, bad input → ValueError in
Japanese. Imports only ``tutor.core`` and ``tutor.textbook``; every name is re-exported here.
"""
from __future__ import annotations

from .bleu import (  # noqa: F401
    MAX_N, MAX_SENTENCE_TOKENS, MAX_REFERENCES, DEMO_CANDIDATE, DEMO_REFERENCES, CLIP_DEMO_CANDIDATE,
    CLIP_DEMO_REFERENCES, split_sentence, ngrams, NgramMatch, ngram_match, modified_precision, precision_unclipped, precision_by_types,
    closest_reference_length, ngram_recall, brevity_penalty, brevity_penalty_both_ways, Bleu, bleu, bleu_without_bp,
    bleu_bp_both_ways, bleu_arithmetic_mean, bleu_unclipped, bleu_recall, BLEU_MISTAKES, bleu_mistake, brevity_curve, brevity_curve_both_ways,
)
from .decoding import (  # noqa: F401
    PAPER_BEAM, PAPER_ALPHA, PAPER_MAX_EXTRA, PARSING_BEAM, PARSING_ALPHA, PARSING_MAX_EXTRA, LP_OFFSET, MAX_ALPHA,
    DEMO_HYPOTHESES, DEMO_LOG_PROBS, DEMO_LENGTHS, BASE_CHECKPOINTS, BASE_CHECKPOINT_MINUTES, BIG_CHECKPOINTS,
    DEMO_CHECKPOINTS, DEMO_LAST, length_base, length_penalty, length_penalty_no_offset, length_penalty_unnormalised,
    normalized_score, score_times_penalty, Ranking, rank_hypotheses, flip_alpha, score_curves, max_output_length,
    CheckpointAverage, average_checkpoints, last_checkpoint_only, sum_of_checkpoints, average_of_all,
    CHECKPOINT_MISTAKES, BOWL_CURVATURE, BOWL_MINIMUM, bowl_loss, NoisyRun, noisy_descent,
)
from .results import (  # noqa: F401
    Corpus, EN_DE, EN_FR, BATCH_TOKENS, GPUS, GPU_TFLOPS, BASE_STEPS, BASE_STEP_SECONDS, BIG_STEPS, BIG_STEP_SECONDS,
    BASE_HOURS, BIG_DAYS, BIG_HOURS, HOURS_PER_DAY, SECONDS_PER_HOUR, in_man, hours_to_seconds, Table2Row, TABLE2, Table3Row, TABLE3, TABLE3_GROUPS, table3,
    heads_row_for, PARSING_LAYERS, PARSING_D_MODEL, WSJ_SENTENCES, SEMI_SENTENCES, PARSING_VOCAB, PARSING_F1,
    BERKELEY_F1, RNNG_F1, training_hours, training_flops, flops_hours_not_seconds, flops_one_gpu, flops_giga,
    FLOPS_MISTAKES, paper_cost, perplexity,
)
