"""tutor.training: the task, hand-written backprop (finite differences), training results,
the three experiments (directions measured with fixed seeds), determinism."""
from dataclasses import fields

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tutor
from tutor import training as T


# ---------------------------------------------------------------------------
# the task
# ---------------------------------------------------------------------------
@settings(max_examples=25)
@given(seed=st.integers(0, 2**32 - 1), variant=st.sampled_from(T.VARIANTS))
def test_dataset_shapes_and_labels(seed, variant):
    d = T.make_dataset(40, np.random.default_rng(seed), variant)
    rows = np.arange(len(d))
    assert d.tokens.shape == (40, T.MAX_LEN)
    assert np.all(d.tokens[rows, d.sore_pos] == T.VOCAB.index("それ"))
    assert np.all(d.tokens[rows, d.b_pos] == d.target)
    assert np.all(d.tokens[rows, d.b_pos + 1] == T.VOCAB.index("を"))       # B is the を-object
    assert np.all(d.b_pos < d.sore_pos)
    assert np.all(d.lengths == d.sore_pos + 3)                          # … それ を V2
    for i in range(len(d)):                                             # padding only after the end
        assert np.all(d.tokens[i, d.lengths[i]:] == 0) and np.all(d.tokens[i, : d.lengths[i]] != 0)
    animals = {T.VOCAB.index(w) for w in T.ANIMALS}
    foods = {T.VOCAB.index(w) for w in T.FOODS}
    a_pos = d.b_pos - np.where(np.isin(d.tokens[rows, d.b_pos - 1], [T.VOCAB.index("森で"), T.VOCAB.index("川で")]), 3, 2)
    a_ids = d.tokens[rows, a_pos]
    assert set(a_ids.tolist()) <= animals
    if variant == "basic":
        assert set(d.target.tolist()) <= foods
    else:
        assert set(d.target.tolist()) <= animals and np.all(a_ids != d.target)


def test_positions_vary_and_probe_is_the_textbook_sentence():
    d = T.make_dataset(300, np.random.default_rng(0))
    assert set(d.b_pos.tolist()) == {2, 3, 4} and set(d.sore_pos.tolist()) == {6, 7, 8, 9}
    p = T.probe_sentence("basic")
    assert p.sentence(0) == ("猫", "は", "魚", "を", "見つけた", "。", "それ", "を", "食べた")
    assert T.VOCAB[p.target[0]] == "魚" and p.b_pos[0] == 2 and p.sore_pos[0] == 6
    assert T.probe_sentence("order").sentence(0)[2] == "鳥"


def test_bad_inputs_raise_japanese_errors():
    with pytest.raises(ValueError, match="語彙にない"):
        T.VOCAB.ids(["猫", "ライオン"])
    with pytest.raises(ValueError, match="variant"):
        T.make_dataset(3, np.random.default_rng(0), "reverse")
    with pytest.raises(ValueError, match="偶数"):
        T.train(T.TrainConfig(d_model=7), np.random.default_rng(0))
    with pytest.raises(ValueError, match="rng"):
        T.train(T.TrainConfig())
    with pytest.raises(ValueError, match="発散"):
        T.train(T.TrainConfig(optimizer="sgd", lr=1e4, steps=20), np.random.default_rng(0))


# ---------------------------------------------------------------------------
# backpropagation: central finite differences on every parameter group
# ---------------------------------------------------------------------------
def _numeric_grad(params, name, args, eps=1e-5):
    w = getattr(params, name)
    num = np.zeros_like(w)
    for i in np.ndindex(w.shape):
        plus, minus = w.copy(), w.copy()
        plus[i] += eps
        minus[i] -= eps
        l_plus = T.loss_and_grads(T.Params(**{**params.as_dict(), name: plus}), *args)[0]
        l_minus = T.loss_and_grads(T.Params(**{**params.as_dict(), name: minus}), *args)[0]
        num[i] = (l_plus - l_minus) / (2 * eps)
    return num


@pytest.mark.parametrize("n_heads", [1, 2])
@pytest.mark.parametrize("scale", [True, False])
@pytest.mark.parametrize("positional", [True, False])
def test_gradients_match_finite_differences(n_heads, scale, positional):
    cfg = T.TrainConfig(d_model=6, d_k=3, n_heads=n_heads, scale=scale, positional=positional, embed_scale=1.0)
    rng = np.random.default_rng(3)
    data = T.make_dataset(7, rng, "basic")
    params = T.init_params(cfg, rng)
    # move away from the symmetric start (b_out = 0) so that no group is trivially checked
    params = T.Params(**{k: v + 0.1 * rng.standard_normal(v.shape) for k, v in params.as_dict().items()})
    args = (data.tokens, data.sore_pos, data.lengths, data.target, cfg)
    before = {k: v.copy() for k, v in params.as_dict().items()}
    _, grads, _ = T.loss_and_grads(params, *args)
    for name in T.Params.names():
        analytic = getattr(grads, name)
        numeric = _numeric_grad(params, name, args)
        assert analytic.shape == getattr(params, name).shape
        rel = np.linalg.norm(numeric - analytic) / (np.linalg.norm(numeric) + np.linalg.norm(analytic))
        assert rel <= 1e-6, (name, rel)
        assert np.linalg.norm(analytic) > 1e-8, name                    # a real gradient, not 0 = 0
    for k, v in params.as_dict().items():                               # inputs never mutated
        assert np.array_equal(v, before[k])


def test_gradient_check_on_order_variant_with_padding_rows():
    cfg = T.TrainConfig(variant="order", d_model=4, d_k=2, n_heads=2, embed_scale=1.0)
    rng = np.random.default_rng(11)
    data = T.make_dataset(6, rng, "order")
    assert len(set(data.lengths.tolist())) > 1                          # padding actually present
    params = T.init_params(cfg, rng)
    args = (data.tokens, data.sore_pos, data.lengths, data.target, cfg)
    _, grads, f = T.loss_and_grads(params, *args)
    pad = np.arange(T.MAX_LEN)[None, :] >= data.lengths[:, None]            # (b, n)
    assert np.all(f.weights.transpose(0, 2, 1)[pad] == 0.0)                 # padding gets exactly 0
    for name in ("E", "W_Q", "W_K"):
        numeric = _numeric_grad(params, name, args)
        rel = np.linalg.norm(numeric - getattr(grads, name)) / (np.linalg.norm(numeric) + np.linalg.norm(getattr(grads, name)))
        assert rel <= 1e-6, (name, rel)


def test_forward_agrees_with_core_attention():
    """The それ row of the training model = tutor.attention on the same Q, K, V."""
    cfg = T.TrainConfig(n_heads=2, d_k=4)
    rng = np.random.default_rng(5)
    params = T.init_params(cfg, rng)
    probe = T.probe_sentence()
    n = int(probe.lengths[0])
    f = T.forward(params, probe.tokens[:, :n], probe.sore_pos, probe.lengths, cfg)
    x = params.E[probe.tokens[0, :n]] + tutor.positional_encoding(n, cfg.d_model)
    for h in range(2):
        ref = tutor.attention(x @ params.W_Q[h], x @ params.W_K[h], x @ params.W_V[h])
        np.testing.assert_allclose(f.weights[0, h], ref.weights[6], atol=1e-12)
        np.testing.assert_allclose(f.concat[0, 4 * h: 4 * h + 4], ref.output[6], atol=1e-12)
        np.testing.assert_allclose(T.attention_map(params, probe.tokens[0], cfg)[h], ref.weights, atol=1e-12)


def test_order_variant_without_position_is_exactly_ambiguous():
    """Swapping the two animals gives the same それ output when there is no PE (any weights)."""
    cfg = T.TrainConfig(variant="order", positional=False)
    params = T.init_params(cfg, np.random.default_rng(1))
    a = np.array(T.VOCAB.ids("猫 は 鳥 を 見つけた 。 それ を 追いかけた".split()))[None]
    b = np.array(T.VOCAB.ids("鳥 は 猫 を 見つけた 。 それ を 追いかけた".split()))[None]
    fa = T.forward(params, a, [6], [9], cfg)
    fb = T.forward(params, b, [6], [9], cfg)
    np.testing.assert_allclose(fa.probs, fb.probs, atol=1e-12)
    with_pe = T.forward(params, a, [6], [9], T.TrainConfig(variant="order", positional=True))
    with_pe_b = T.forward(params, b, [6], [9], T.TrainConfig(variant="order", positional=True))
    assert np.abs(with_pe.probs - with_pe_b.probs).max() > 1e-3


def test_softmax_jacobian_and_cross_entropy():
    J = tutor.softmax_jacobian([np.log(1), np.log(3)])                      # a = (1/4, 3/4)
    np.testing.assert_allclose(J, [[3 / 16, -3 / 16], [-3 / 16, 3 / 16]], atol=1e-15)
    saturated = tutor.softmax_jacobian([20.0, 10.0, 0.0])
    assert np.abs(saturated).max() < 1e-4 < np.abs(tutor.softmax_jacobian([2.0, 1.0, 0.0])).max()
    assert T.cross_entropy([0.25, 0.5, 0.25], 1) == pytest.approx(np.log(2))
    np.testing.assert_allclose(T.sgd_step([1.0, 2.0], [0.5, -1.0], 0.1), [0.95, 2.1])
    with pytest.raises(ValueError, match="合計 1"):
        T.cross_entropy([0.5, 0.6], 0)


@settings(max_examples=60)
@given(st.lists(st.floats(-8, 8), min_size=2, max_size=5), st.data())
def test_quiz_mistakes_all_at_once_equal_the_array_forms(scores, data):
    n = len(scores)
    i, j = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
    g = T.softmax_grad_mistakes(scores, i, j)
    a = tutor.softmax(np.array(scores))
    assert g[None] == tutor.softmax_jacobian(scores)[i, j]                  # the very float of diag(a) − a aᵀ
    assert g["no_delta"] == -a[i] * a[j] and g["diagonal_formula"] == a[i] * (1 - a[i])
    assert g["sign"] == pytest.approx(-g[None], abs=1e-15)
    assert all(T.softmax_grad_mistake(scores, i, j, m) == g[m] for m in g)
    b = np.array(data.draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), float)
    p = a                                                               # any probability vector
    t, lr = data.draw(st.integers(0, n - 1)), data.draw(st.sampled_from((0.1, 0.2, 0.5, 2.0)))
    y = np.eye(n)[t]
    steps = T.bias_step_mistakes(b, p, t, j, lr)
    assert steps[None] == T.sgd_step(b, p - y, lr)[j]
    assert steps["ascent"] == T.sgd_step(b, y - p, lr)[j]
    assert steps["no_lr"] == T.sgd_step(b, p - y, 1.0)[j]
    assert steps["onehot"] == T.sgd_step(b, p - (np.eye(n)[j] if j != t else 0), lr)[j]
    assert all(T.bias_step_mistake(b, p, t, j, lr, m) == steps[m] for m in steps)
    with pytest.raises(ValueError, match="未知の誤り"):
        T.bias_step_mistakes(b, p, t, j, lr, ("typo",))
    with pytest.raises(ValueError, match="未知の誤り"):
        T.softmax_grad_mistakes(scores, i, j, (None, "typo"))


# ---------------------------------------------------------------------------
# training: the default config, determinism
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def default_run():
    seen = []
    hist = T.train(T.TrainConfig(), np.random.default_rng(0), callback=seen.append)
    return hist, seen


def test_default_run_learns_sore_to_b(default_run):
    hist, seen = default_run
    assert hist.heldout_accuracy >= 0.95
    assert hist.heldout_b_weight >= 0.8
    # before training: spread out; after: on 魚 in the textbook sentence
    assert hist.initial.accuracy < 0.3 and hist.initial.b_weight < 0.3
    assert hist.checkpoints == (0, 10, 25, 50, 100, 150)
    before, after = hist.probe_weights[0, 0], hist.probe_weights[-1, 0]
    assert before.max() < 0.5 and after[hist.probe_b_pos] >= 0.8
    assert hist.probe_words[hist.probe_b_pos] == "魚"
    np.testing.assert_allclose(hist.probe_weights.sum(axis=-1), 1.0)
    assert hist.loss[-1] < 0.05 < hist.loss[0]
    # the callback saw every step with the recorded numbers
    assert [s.step for s in seen] == list(range(1, 151)) and all(s.total == 150 for s in seen)
    assert seen[-1].loss == hist.loss[-1] and seen[-1].accuracy == hist.accuracy[-1]
    assert seen[-1].fraction == 1.0 and seen[74].fraction == 0.5
    assert hist.grad_norm.shape == (150, 7) and hist.grad_norm_of("W_Q")[0] > 0


def _assert_same_history(h1, h2):
    for f in fields(T.TrainHistory):
        a, b = getattr(h1, f.name), getattr(h2, f.name)
        if isinstance(a, np.ndarray):
            assert np.array_equal(a, b), f.name
        elif isinstance(a, T.Params):
            assert all(np.array_equal(getattr(a, k), getattr(b, k)) for k in T.Params.names())
        elif isinstance(a, T.Evaluation):
            assert a.accuracy == b.accuracy and a.loss == b.loss
            assert np.array_equal(a.b_weight_per_head, b.b_weight_per_head)
        else:
            assert a == b, f.name


def test_same_seed_same_history_and_different_seed_differs():
    cfg = T.TrainConfig(steps=30, batch_size=64, checkpoints=(0, 15))
    h1 = T.train(cfg, np.random.default_rng(7))
    h2 = T.train(cfg, np.random.default_rng(7))
    _assert_same_history(h1, h2)
    h3 = T.train(cfg, np.random.default_rng(8))
    assert not np.array_equal(h1.loss, h3.loss)
    assert not h1.loss.flags.writeable


# ---------------------------------------------------------------------------
# progress and the time estimate (no timing asserted: a fake clock)
# ---------------------------------------------------------------------------
class FakeClock:
    """Each reading is 0.5 s after the previous one."""
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        self.now += 0.5
        return self.now


def test_progress_counts_steps_and_elapsed_grows_and_the_result_is_unchanged(default_run):
    hist, _ = default_run
    seen = []
    with_cb = T.train(T.TrainConfig(), np.random.default_rng(0), seen.append, 10, clock=FakeClock())
    _assert_same_history(with_cb, hist)                                   # same numbers with and without
    _assert_same_history(T.train(T.TrainConfig(), np.random.default_rng(0), clock=FakeClock()), hist)
    assert [p.step for p in seen] == list(range(10, 151, 10)) and {p.total for p in seen} == {150}
    # one clock reading at the start, one per callback: elapsed = 0.5 s × (callbacks so far)
    assert [p.elapsed for p in seen] == [0.5 * (i + 1) for i in range(15)]
    assert [p.loss for p in seen] == [hist.loss[p.step - 1] for p in seen]
    # remaining time from the run's own pace: 0.5 s per 10 steps so far
    assert seen[0].seconds_left == pytest.approx(0.5 * 140 / 10)
    assert seen[-1].seconds_left == 0.0 and seen[-1].fraction == 1.0
    assert all(a.seconds_left > b.seconds_left for a, b in zip(seen, seen[1:]))
    # the real clock: elapsed never decreases
    real = []
    T.train(T.TrainConfig(steps=20), np.random.default_rng(0), real.append, 5)
    assert [p.step for p in real] == [5, 10, 15, 20]
    assert all(0 <= a.elapsed <= b.elapsed for a, b in zip(real, real[1:]))


def test_experiment_progress_runs_on_across_both_runs():
    seen = []
    plain = T.run_experiment("heads", 1)
    timed = T.run_experiment("heads", 1, seen.append, 50, clock=FakeClock())
    for a, b in zip(plain, timed):
        _assert_same_history(a, b)
    total = sum(c.steps for c in T.EXPERIMENTS["heads"].configs)
    assert [(p.step, p.run) for p in seen] == [(50, 0), (100, 0), (150, 0), (200, 1), (250, 1), (300, 1)]
    assert {p.total for p in seen} == {total}
    assert all(a.elapsed < b.elapsed for a, b in zip(seen, seen[1:]))  # the second run goes on counting
    assert seen[-1].seconds_left == 0.0


def test_time_estimate_from_the_cost_model():
    default = T.TrainConfig()
    largest = T.TrainConfig(n_heads=2, d_k=64, steps=300)
    assert T.update_cost(default) == 1.0
    assert T.update_cost(largest) == pytest.approx((17 + 128) / 25)
    assert T.update_cost(T.TrainConfig(d_k=2)) < 1.0 < T.update_cost(T.TrainConfig(n_heads=2, d_k=8))
    assert T.update_cost(T.TrainConfig(batch_size=64)) == pytest.approx(64 / 512)
    assert T.run_cost(default) == T.SETUP_UPDATES + 150
    assert T.run_cost(default, largest) == T.run_cost(default) + T.run_cost(largest)
    assert T.estimate_seconds(default) == pytest.approx(165 * T.DEFAULT_UPDATE_SECONDS)
    assert T.estimate_seconds(largest, update_seconds=0.01) == pytest.approx(0.01 * (15 + 300 * 145 / 25))
    # the pace a run measured gives back its own time as the next estimate
    pace = T.measured_update_seconds(4.2, *T.EXPERIMENTS["scaling"].configs)
    assert T.estimate_seconds(*T.EXPERIMENTS["scaling"].configs, update_seconds=pace) == pytest.approx(4.2)
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="秒数"):
            T.estimate_seconds(default, update_seconds=bad)
    assert [T.whole_seconds(x) for x in (0.0, 0.49, 0.5, 1.5, 2.5, 26.4)] == [0, 0, 1, 2, 3, 26]


# ---------------------------------------------------------------------------
# experiments (seed 0): the direction asserted is the direction measured
# ---------------------------------------------------------------------------
def test_scaling_experiment_unscaled_saturates_and_stalls():
    """d_k = 64: without √d_k the それ row locks onto one wrong token within ~10 updates, the
    gradient reaching W_Q vanishes while the loss stays ≈ ln 5 (a guess among 5 foods)."""
    scaled, unscaled = T.run_experiment("scaling", 0)
    assert scaled.heldout_accuracy >= 0.95 and scaled.heldout_b_weight >= 0.8
    assert unscaled.heldout_accuracy <= 0.5
    assert unscaled.heldout.peak_weight >= 0.99                        # saturated softmax
    assert unscaled.heldout_b_weight <= 0.05                           # … on the wrong token
    assert unscaled.loss[-1] > 1.0                                     # still much to learn …
    assert unscaled.grad_norm_of("W_Q")[50:].max() < 1e-9              # … but no gradient reaches W_Q
    assert unscaled.grad_norm_of("W_Q")[10] < 1e-6                     # (stalled already at step 10)
    assert scaled.grad_norm_of("W_Q")[:20].min() > 1e-3                # scaled: it flows until solved
    # honest detail: at step 0 the unscaled gradient is NOT smaller; the stall comes after saturating
    assert unscaled.grad_norm_of("W_Q")[0] > scaled.grad_norm_of("W_Q")[0]


def test_position_experiment_order_needs_positional_encoding():
    with_pe, without = T.run_experiment("position", 0)
    assert with_pe.heldout_accuracy >= 0.95 and with_pe.heldout_b_weight >= 0.8
    assert without.heldout_accuracy <= 0.6                              # coin flip between the two animals
    assert without.heldout_b_weight <= 0.5


def test_heads_experiment_one_head_is_enough_two_are_a_bit_faster():
    one, two = T.run_experiment("heads", 0)
    assert one.heldout_accuracy >= 0.95 and two.heldout_accuracy >= 0.95
    assert one.heldout_b_weight >= 0.8 and two.heldout_b_weight >= 0.8
    assert two.probe_weights.shape[1] == 2
    assert two.steps_to(0.95) < one.steps_to(0.95)                      # measured: 9 vs 17 steps


def test_run_experiment_callback_counts_both_runs_and_unknown_key():
    seen = []
    cfg_steps = sum(c.steps for c in T.EXPERIMENTS["heads"].configs)
    T.run_experiment("heads", 1, callback=lambda pr: seen.append((pr.step, pr.total, pr.run)))
    assert seen[0] == (1, cfg_steps, 0) and seen[-1] == (cfg_steps, cfg_steps, 1) and len(seen) == cfg_steps
    with pytest.raises(ValueError, match="実験"):
        T.run_experiment("dropout", 0)


def test_exported_from_tutor():
    assert tutor.training.train is T.train and tutor.training.TrainConfig is T.TrainConfig


# ---------------------------------------------------------------------------
# quizzes for the topic "training"
# ---------------------------------------------------------------------------
def _accepted_params(gid, seed):
    """The inputs of the attempt the registry accepted (same walk as the registry)."""
    from quizzes import core
    from quizzes.calc import CALC
    params, build = CALC[gid]
    for attempt in range(core.MAX_ATTEMPTS):
        p = params(core._seed_rng(gid, seed, attempt))
        d = build(p)
        if len({t.strip() for t in [d.correct] + [w[0] for w in d.wrong]}) == 4:
            return p


def test_training_quizzes_listed_and_generate_for_seeds_0_to_200():
    import quizzes
    ids = quizzes.by_topic("training")
    calc, kb = quizzes.by_topic("training", "calc"), quizzes.by_topic("training", "knowledge")
    assert set(calc) >= {"training.softmax_grad", "training.bias_sgd", "training.cross_entropy"}
    assert len(kb) >= 8 and set(ids) == set(calc) | set(kb)
    for gid in ids:
        for seed in range(201):
            q = quizzes.GENERATORS[gid](seed)
            assert q.topic == "training" and len(set(q.choices)) == 4 and "1つ選べ" in q.stem
            assert q.misconceptions[q.answer] == "" and all(m for i, m in enumerate(q.misconceptions) if i != q.answer)
            assert quizzes.from_id(q.id) == q


def test_training_quiz_answers_equal_a_fresh_computation():
    import quizzes
    from quizzes.calc import num
    for seed in range(150):
        p = _accepted_params("training.cross_entropy", seed)
        q = quizzes.GENERATORS["training.cross_entropy"](seed)
        assert q.choices[q.answer] == num(-np.log(p["probs"][p["target"]]), 3)

        p = _accepted_params("training.bias_sgd", seed)
        q = quizzes.GENERATORS["training.bias_sgd"](seed)
        j, t = p["j"], p["target"]
        want = p["b"][j] - p["lr"] * (p["p_tenths"][j] / 10 - (1.0 if j == t else 0.0))
        assert q.choices[q.answer] == num(want, 3)
        ascent = next(i for i, m in enumerate(q.misconceptions) if m.startswith("勾配の向き"))
        assert q.choices[ascent] == num(2 * p["b"][j] - want, 3)       # b + η·grad

        p = _accepted_params("training.softmax_grad", seed)
        q = quizzes.GENERATORS["training.softmax_grad"](seed)
        a = np.array(p["m"], float) / sum(p["m"])
        i, j = p["i"], p["j"]
        assert q.choices[q.answer] == num(a[i] * ((i == j) - a[j]), 4)


def test_callback_every_and_predict_sentence(default_run):
    hist, _ = default_run
    seen = []
    T.train(T.TrainConfig(steps=23), np.random.default_rng(0), callback=seen.append, callback_every=10)
    assert [p.step for p in seen] == [10, 20, 23]
    pred = T.predict_sentence(hist.params, "犬 は 川で 豆 を 拾った 。 それ を 食べた", hist.config)
    assert pred.word == "豆" and pred.probability > 0.9
    assert pred.sore_pos == 7 and pred.weights.shape == (1, 10)
    assert pred.weights[0, 3] >= 0.8                                    # それ looks at 豆
    with pytest.raises(ValueError, match="それ"):
        T.predict_sentence(hist.params, "猫 は 魚 を 食べた", hist.config)
    with pytest.raises(ValueError, match="語彙"):
        T.predict_sentence(hist.params, "猫 は パン を 見つけた 。 それ を 食べた", hist.config)


def test_one_hot_and_the_logit_gradient():
    np.testing.assert_array_equal(tutor.training.one_hot(3, 1), [0.0, 1.0, 0.0])
    with pytest.raises(ValueError, match="範囲外"):
        tutor.training.one_hot(3, 3)
    z = np.array([2.0, 1.0, 0.0])
    np.testing.assert_allclose(tutor.training.cross_entropy_grad(z, 1), tutor.softmax(z) - [0.0, 1.0, 0.0], atol=0)
    with pytest.raises(ValueError, match="範囲外"):
        tutor.training.cross_entropy_grad(z, -1)


def test_experiment_outcome_reads_both_runs_once():
    """What ⑧ shows for an experiment (table and verdict) comes from one engine reading."""
    cfg_a, cfg_b = T.EXPERIMENTS["heads"].configs
    small = dict(steps=4, n_train=32, n_test=16)
    run_a = T.train(T.TrainConfig(**{**cfg_a.__dict__, **small}), np.random.default_rng(3))
    run_b = T.train(T.TrainConfig(**{**cfg_b.__dict__, **small}), np.random.default_rng(3))
    out = T.experiment_outcome("heads", run_a, run_b)
    assert out.experiment is T.EXPERIMENTS["heads"]
    for run, s in zip((run_a, run_b), out.runs):
        assert (s.heldout_accuracy, s.b_weight, s.peak_weight) == (run.heldout_accuracy, run.heldout_b_weight,
                                                                    run.heldout.peak_weight)
        assert s.final_loss == float(run.loss[-1]) and s.steps_to_95 == run.steps_to(0.95)
        assert (s.first_grad_w_q, s.last_grad_w_q) == (run.grad_norm_of("W_Q")[0], run.grad_norm_of("W_Q")[-1])
    assert out.switch_matters == (run_b.heldout_accuracy < run_a.heldout_accuracy)
    swapped = T.experiment_outcome("heads", run_b, run_a)
    assert not (out.switch_matters and swapped.switch_matters)
    with pytest.raises(ValueError, match="実験"):
        T.experiment_outcome("nosuch", run_a, run_b)
