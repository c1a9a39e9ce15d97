"""Training a tiny one-layer attention model by hand: watch それ → B appear; and (``recipe``) how
the paper itself trained the Transformer: the warm-up schedule, Adam's settings, label smoothing,
dropout.

The chapter says that nobody designs W_Q, W_K, W_V: the pattern "a pronoun looks for the
object mentioned before it" is FOUND by gradient descent. This module lets the page show
it happen, in plain NumPy with every gradient written out.

Task (synthetic, from a seed)
-----------------------------
Sentences shaped like the textbook's 「猫 は 魚 を 見つけた 。 それ を 食べた」:

    [時] A は [場所] B を V1 。 [副詞] それ を V2          (optional words in brackets)

The label is B, the thing それ refers to, and it must be predicted from the
representation at the それ position only.

- ``variant="basic"``: A is an animal, B a food. The content alone tells B apart, so the
  model does not need positions.
- ``variant="order"``: A and B are BOTH animals (「猫 は 鳥 を 見つけた 。 それ を 追いかけた」).
  The two sentences 「猫 は 鳥 を …」 and 「鳥 は 猫 を …」 contain exactly the same tokens,
  so without positional information the それ row cannot tell which animal is the object:
  the best possible accuracy is 50 % (attention is permutation-equivariant). With the
  sinusoidal positional encoding the object is "the later animal", which one layer can learn.

  (We do not use the pair 「A は B を …」 / 「B を A が …」: there the object is chosen by the
  PARTICLE next to it, i.e. by an interaction between two other tokens, which a single
  attention layer with a linear read-out cannot express even with positional encoding.)

Model (one layer, h heads, read-out at the それ position s)
----------------------------------------------------------
    X      = E[tokens] + PE                       (b, n, d_model)     PE optional
    q_h    = X[s] W_Q^(h)                          (b, h, d_k)        only the それ row is needed
    K_h    = X W_K^(h),  V_h = X W_V^(h)           (b, h, n, d_k)
    a_h    = softmax(q_h K_hᵀ / √d_k + M)          (b, h, n)           M = −∞ on padding
    c      = Concat_h(a_h V_h)                     (b, h·d_k)
    y      = c W_O                                 (b, d_model)
    p      = softmax(y W_out + b_out)              (b, vocab)
    L      = −mean log p[target]                   cross-entropy

Backpropagation is written out step by step in :func:`loss_and_grads`, the softmax
backward being  ∂a_i/∂z_j = a_i (δ_ij − a_j)  ⇒  dz = a ⊙ (da − Σ_j a_j da_j).

Measured (seed 0, the fixed seeds of tests/test_training.py; one core, CPU time):
- default config (basic, d_model 16, d_k 8, 1 head, Adam lr 0.05, 150 full-batch steps on
  512 sentences): held-out accuracy 1.00, mean それ→B weight 1.00 (0.13 before training),
  95 % training accuracy after 17 steps, ≈ 0.45 s of CPU on one core (``taskset -c 0``); the
  page's largest setting (2 heads, d_k 64, 300 steps) ≈ 4.5 s. ``estimate_seconds`` turns a
  config into the page's 「目安」 from this cost model (see ``update_cost``); ``Progress`` carries
  the elapsed time so the progress bar can say how long is left.
- √d_k at d_k = 64 (≈ 2 s per run): scaled → 1.00 / weight 1.00; unscaled → 0.22 (a guess
  among the 5 foods), the それ row saturated (max weight 1.00) on a WRONG token, loss stuck at
  1.58 ≈ ln 5 while ‖∂L/∂W_Q‖ falls below 1e-9. The textbook's claim reproduces, with one
  honest nuance: at step 0 the unscaled gradient is LARGER (0.23 vs 0.05); the stall comes
  after the first updates saturate the softmax. Over seeds 0–3 unscaled failed 3 of 4 with
  Adam and 4 of 4 with SGD (lr 0.5); scaled succeeded 4 of 4 with both.
- positional encoding on the "order" variant: with PE 1.00 / weight 1.00; without 0.52
  (a coin flip between the two animals, as the symmetry argument predicts).
- one head (d_k 8) vs two heads (d_k 4, same width): both 1.00; two heads reach 95 % a little
  sooner (9 vs 17 steps with seed 0). One head is enough for this task; with two heads the
  それ→B attention is sometimes shared between the heads (seen on the order variant).
- initialisation matters: with E ~ N(0, 1) instead of N(0, 0.3²) the model often found a
  shortcut (see ``init_params``), so ``embed_scale`` = 0.3.
"""

from __future__ import annotations

from .task import (  # noqa: F401
    ANIMALS, FOODS, SORE, VOCAB, VARIANTS, MAX_LEN, check_variant, Dataset, make_dataset, probe_sentence,
)
from .model import (  # noqa: F401
    TrainConfig, Params, init_params, Forward, forward, loss_and_grads, attention_map, Prediction, predict_sentence, Evaluation, evaluate,
)
from .optim import (  # noqa: F401
    sgd_step, Adam,
)
from .loop import (  # noqa: F401
    Progress, TrainHistory, train, DEFAULT_UPDATE_SECONDS, SETUP_UPDATES, update_cost, run_cost, estimate_seconds,
    measured_update_seconds, whole_seconds, Experiment, EXPERIMENTS, run_experiment, RunSummary, ExperimentOutcome, experiment_outcome,
)
from .gradients import (  # noqa: F401
    cross_entropy, one_hot, cross_entropy_grad, SOFTMAX_GRAD_MISTAKES, BIAS_STEP_MISTAKES, CROSS_ENTROPY_MISTAKES, softmax_grad_mistake, softmax_grad_mistakes, bias_step_mistake, bias_step_mistakes, cross_entropy_mistake,
)
from .recipe import (  # noqa: F401
    PAPER_WARMUP, PAPER_BASE_STEPS, PAPER_P_DROP, PAPER_LABEL_SMOOTHING, SMOOTHING_WORDS, SMOOTHING_PROBS,
    SMOOTHING_ANSWER, DROPOUT_X, DROPOUT_KEEP, DROPOUT_RATE, AdamSettings, PAPER_ADAM, DEFAULT_ADAM,
    ema_horizon, learning_rate, Schedule, peak, schedule, SchedulePoint, schedule_points, LR_MISTAKES, lr_mistake, peak_mistake,
    smoothed_target, SMOOTHING_MISTAKES, smoothed_target_mistake, SmoothedLoss, smoothed_cross_entropy,
    SMOOTHED_CE_MISTAKES, smoothed_ce_mistake, LossCurve, smoothing_loss_curve,
    DropoutResult, dropout_with_mask, dropout, DROPOUT_MISTAKES, INFERENCE_MISTAKES, dropout_mistake,
    dropout_average, ResidualDropoutResult, residual_dropout,
)
