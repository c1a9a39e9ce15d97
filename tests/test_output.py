"""tutor.output: temperature, greedy / top-k / top-p choice, generation loop."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from tutor import textbook
from tutor.output import Choice, choose, generate, greedy, probabilities, sample, top_k_sample, top_p_sample
import tutor
from tutor import textbook as tb

SETTINGS = settings(max_examples=60)

logit_vectors = hnp.arrays(
    np.float64,
    st.integers(2, 12),
    elements=st.floats(-8, 8, allow_nan=False, allow_infinity=False),
)


def _probs(logits):
    return probabilities(logits, 1.0)


# ---------------------------------------------------------------------------
# textbook figures: logits (2, 1, 0) at T = 1, 0.5, 2
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "temperature, expected",
    [(1.0, (0.665, 0.245, 0.090)), (0.5, (0.867, 0.117, 0.016)), (2.0, (0.506, 0.307, 0.186))],
)


def test_temperature_figures(temperature, expected):
    got = probabilities(textbook.TEMPERATURE_LOGITS, temperature)
    np.testing.assert_array_equal(np.round(got, 3), expected)


def test_textbook_temperatures_cover_the_figures():
    assert textbook.TEMPERATURES == (1.0, 0.5, 2.0)


def test_minus_inf_logit_gets_exact_zero():
    pr = probabilities([1.0, -np.inf, 0.0])
    assert pr[1] == 0.0
    assert pr.sum() == pytest.approx(1.0)


def test_probabilities_does_not_mutate_input():
    z = np.array([2.0, 1.0, 0.0])
    probabilities(z, 0.5)
    np.testing.assert_array_equal(z, [2.0, 1.0, 0.0])


# ---------------------------------------------------------------------------
# the choice rules on the textbook distribution
# ---------------------------------------------------------------------------
def test_greedy_picks_the_largest_and_uses_no_randomness():
    c = greedy(_probs([2, 1, 0]))
    assert isinstance(c, Choice)
    assert c.index == 0 and c.u is None
    np.testing.assert_array_equal(c.kept, [0])
    np.testing.assert_array_equal(c.distribution, [1.0, 0.0, 0.0])


def test_greedy_tie_goes_to_lowest_index():
    assert greedy([0.1, 0.45, 0.45]).index == 1
    assert greedy([0.25, 0.25, 0.25, 0.25]).index == 0


def test_top_k_renormalises_over_kept():
    pr = _probs([2, 1, 0])  # 0.665, 0.245, 0.090
    c = top_k_sample(pr, 2, np.random.default_rng(0))
    np.testing.assert_array_equal(c.kept, [0, 1])
    assert c.kept_mass == pytest.approx(0.665241 + 0.244728, abs=1e-6)
    # renormalised 0.665/0.910 = 0.731, 0.245/0.910 = 0.269 (= softmax(2, 1))
    np.testing.assert_allclose(c.distribution, [0.731059, 0.268941, 0.0], atol=1e-6)
    np.testing.assert_allclose(c.cumulative, [0.731059, 1.0], atol=1e-6)
    assert c.distribution[2] == 0.0


def test_top_k_tie_at_the_cut_keeps_lowest_index():
    c = top_k_sample([0.4, 0.2, 0.2, 0.2], 2, np.random.default_rng(1))
    np.testing.assert_array_equal(c.kept, [0, 1])


def test_top_k_larger_than_vocab_keeps_everything():
    c = top_k_sample(_probs([2, 1, 0]), 10, np.random.default_rng(0))
    np.testing.assert_array_equal(c.kept, [0, 1, 2])


@pytest.mark.parametrize("p, kept", [(0.5, [0]), (0.665, [0]), (0.9, [0, 1]), (0.95, [0, 1, 2]), (1.0, [0, 1, 2])])
def test_top_p_nucleus_on_textbook_distribution(p, kept):
    # cumulative: 0.665, 0.910, 1.000
    c = top_p_sample(_probs([2, 1, 0]), p, np.random.default_rng(0))
    np.testing.assert_array_equal(c.kept, kept)


def test_top_p_one_excludes_zero_probability_tokens():
    c = top_p_sample([0.5, 0.0, 0.5, 0.0], 1.0, np.random.default_rng(0))
    np.testing.assert_array_equal(np.sort(c.kept), [0, 2])


def test_inverse_cdf_uses_the_drawn_u():
    # u from seed 0 is 0.637 (< 0.731) → token 0; find a seed with u > 0.731 → token 1
    pr = _probs([2, 1, 0])
    for seed in range(50):
        c = top_k_sample(pr, 2, np.random.default_rng(seed))
        assert c.u == np.random.default_rng(seed).random()
        assert c.index == (0 if c.u < c.cumulative[0] else 1)


def test_sampling_frequencies_match_the_distribution():
    rng = np.random.default_rng(123)
    pr = _probs([2, 1, 0])
    counts = np.bincount([sample(pr, rng).index for _ in range(4000)], minlength=3) / 4000
    np.testing.assert_allclose(counts, pr, atol=0.03)


def test_choose_dispatch():
    pr = _probs([0, 3, 1])
    assert choose(pr, "greedy").index == 1
    assert choose(pr, "top_k", np.random.default_rng(0), k=1).index == 1
    assert choose(pr, "top_p", np.random.default_rng(0), p=0.01).index == 1


# ---------------------------------------------------------------------------
# properties (hypothesis)
# ---------------------------------------------------------------------------
@SETTINGS
@given(logit_vectors, st.floats(0.05, 20))
def test_probabilities_sum_to_one(z, t):
    pr = probabilities(z, t)
    assert pr.sum() == pytest.approx(1.0, abs=1e-12)
    assert (pr >= 0).all()
    # order preserved: a larger logit never gets a smaller probability
    order = np.argsort(z, kind="stable")
    assert np.all(np.diff(pr[order]) >= -1e-15)


@SETTINGS
@given(logit_vectors, st.floats(0.05, 10), st.floats(0.05, 10))
def test_lower_temperature_sharpens(z, t1, t2):
    lo, hi = min(t1, t2), max(t1, t2)
    assert probabilities(z, lo).max() >= probabilities(z, hi).max() - 1e-12


@SETTINGS
@given(logit_vectors, st.integers(1, 15), st.integers(0, 2**32 - 1))
def test_top_k_never_picks_outside_the_k_largest(z, k, seed):
    pr = _probs(z)
    c = top_k_sample(pr, k, np.random.default_rng(seed))
    m = min(k, z.size)
    assert len(c.kept) == m
    assert c.index in c.kept
    # every kept probability ≥ every dropped probability
    dropped = np.setdiff1d(np.arange(z.size), c.kept)
    if dropped.size:
        assert pr[c.kept].min() >= pr[dropped].max()
    # the chosen token is among the k largest: fewer than k tokens are strictly more probable
    assert (pr > pr[c.index]).sum() < m
    assert c.distribution.sum() == pytest.approx(1.0)
    assert (c.distribution[dropped] == 0).all()


@SETTINGS
@given(logit_vectors, st.floats(0.01, 1.0), st.integers(0, 2**32 - 1))
def test_top_p_kept_set_is_minimal(z, p, seed):
    pr = _probs(z)
    c = top_p_sample(pr, p, np.random.default_rng(seed))
    kept_probs = pr[c.kept]
    assert c.index in c.kept
    assert kept_probs.sum() >= p - 1e-9                 # reaches p
    assert kept_probs.sum() - kept_probs.min() < p + 1e-9  # dropping the smallest falls below p
    # kept are the most probable ones
    dropped = np.setdiff1d(np.arange(z.size), c.kept)
    if dropped.size:
        assert kept_probs.min() >= pr[dropped].max()
    np.testing.assert_allclose(c.distribution[c.kept], kept_probs / kept_probs.sum())


@SETTINGS
@given(logit_vectors, st.integers(0, 2**32 - 1))
def test_same_seed_same_choice(z, seed):
    pr = _probs(z)
    a = top_p_sample(pr, 0.8, np.random.default_rng(seed))
    b = top_p_sample(pr, 0.8, np.random.default_rng(seed))
    assert a.index == b.index and a.u == b.u


# ---------------------------------------------------------------------------
# generate
# ---------------------------------------------------------------------------
def _bigram_model(vocab=6, seed=0):
    """A fixed bigram table: logits for the next token depend on the last token only."""
    table = np.random.default_rng(seed).normal(size=(vocab, vocab)) * 2

    def next_logits(ids):
        return table[ids[-1]].copy()

    return next_logits, table


def test_generate_greedy_follows_the_argmax_chain():
    next_logits, table = _bigram_model()
    res = generate(next_logits, [0], 5, "greedy")
    expect = [0]
    for _ in range(5):
        expect.append(int(np.argmax(table[expect[-1]])))
    assert res.ids == tuple(expect)
    assert res.generated == tuple(expect[1:])
    assert len(res.steps) == 5
    for i, step in enumerate(res.steps):
        assert step.step == i
        assert step.ids == tuple(expect[: i + 1])
        np.testing.assert_array_equal(step.logits, table[expect[i]])
        np.testing.assert_allclose(step.probs, probabilities(table[expect[i]]))
        assert step.chosen == expect[i + 1]


def test_generate_stops_at_eos():
    table = np.full((3, 3), -5.0)
    table[0, 1] = 5  # 0 → 1
    table[1, 2] = 5  # 1 → 2 (= eos)
    res = generate(lambda ids: table[ids[-1]], [0], 10, "greedy", eos_id=2)
    assert res.ids == (0, 1, 2)
    assert res.stopped_at_eos
    assert len(res.steps) == 2


def test_generate_records_temperature_and_kept_set():
    next_logits, table = _bigram_model()
    res = generate(next_logits, [3], 4, "top_k", np.random.default_rng(7), temperature=0.5, k=2)
    for step in res.steps:
        np.testing.assert_allclose(step.probs, probabilities(table[step.ids[-1]], 0.5))
        assert len(step.kept) == 2
        assert step.chosen in step.kept


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.sampled_from(["sample", "top_k", "top_p"]), st.floats(0.3, 3.0))
def test_generate_same_seed_same_sequence(seed, strategy, t):
    next_logits, _ = _bigram_model()
    kw = dict(temperature=t, k=3, p=0.8)
    a = generate(next_logits, [1, 2], 8, strategy, np.random.default_rng(seed), **kw)
    b = generate(next_logits, [1, 2], 8, strategy, np.random.default_rng(seed), **kw)
    assert a.ids == b.ids
    assert [s.choice.u for s in a.steps] == [s.choice.u for s in b.steps]


def test_generate_different_seeds_can_differ():
    next_logits, _ = _bigram_model()
    seqs = {generate(next_logits, [0], 6, "sample", np.random.default_rng(s), temperature=2.0).ids for s in range(20)}
    assert len(seqs) > 1


def test_generate_does_not_mutate_prompt():
    next_logits, _ = _bigram_model()
    prompt = [0, 1]
    generate(next_logits, prompt, 3, "greedy")
    assert prompt == [0, 1]


# ---------------------------------------------------------------------------
# bad input → Japanese ValueError
# ---------------------------------------------------------------------------
JAPANESE = r"[ぁ-んァ-ン一-龥]"


@pytest.mark.parametrize("t", [0, -1.0, np.nan, np.inf])
def test_bad_temperature(t):
    with pytest.raises(ValueError, match="温度"):
        probabilities([2, 1, 0], t)
    next_logits, _ = _bigram_model()
    with pytest.raises(ValueError, match="温度"):
        generate(next_logits, [0], 2, "greedy", temperature=t)


@pytest.mark.parametrize("k", [0, -3, 1.5, "2", True])
def test_bad_k(k):
    with pytest.raises(ValueError, match="k"):
        top_k_sample(_probs([2, 1, 0]), k, np.random.default_rng(0))


@pytest.mark.parametrize("p", [0, -0.1, 1.0001, 2, np.nan])
def test_bad_p(p):
    with pytest.raises(ValueError, match="p は 0 より大きく 1 以下"):
        top_p_sample(_probs([2, 1, 0]), p, np.random.default_rng(0))


@pytest.mark.parametrize(
    "probs",
    [[0.5, 0.6], [1.2, -0.2], [[0.5, 0.5]], [], [np.nan, 1.0]],
)


def test_bad_probability_vectors(probs):
    with pytest.raises(ValueError, match=JAPANESE):
        greedy(probs)


def test_missing_rng_or_parameters():
    pr = _probs([2, 1, 0])
    with pytest.raises(ValueError, match="乱数生成器"):
        sample(pr, None)
    with pytest.raises(ValueError, match="乱数生成器"):
        top_k_sample(pr, 2, 42)
    next_logits, _ = _bigram_model()
    with pytest.raises(ValueError, match="k を指定"):
        generate(next_logits, [0], 2, "top_k", np.random.default_rng(0))
    with pytest.raises(ValueError, match="p を指定"):
        generate(next_logits, [0], 2, "top_p", np.random.default_rng(0))
    with pytest.raises(ValueError, match="知りません"):
        generate(next_logits, [0], 2, "beam")
    with pytest.raises(ValueError, match="プロンプト"):
        generate(next_logits, [], 2)
    with pytest.raises(ValueError, match="ステップ数"):
        generate(next_logits, [0], -1)


def test_bad_logits_from_model():
    with pytest.raises(ValueError, match="1 次元"):
        generate(lambda ids: np.zeros((2, 3)), [0], 1)
    with pytest.raises(ValueError, match="NaN"):
        generate(lambda ids: np.array([0.0, np.nan]), [0], 1)
    lengths = iter([3, 4])
    with pytest.raises(ValueError, match="語彙サイズ"):
        generate(lambda ids: np.zeros(next(lengths)), [0], 2)


def test_temperature_mistakes_and_figures():
    z = np.array([2.0, 1.0, 0.0])
    assert [round(float(v), 3) for v in tutor.output.temperature_mistake(z, 0.5)] == [0.867, 0.117, 0.016]
    np.testing.assert_allclose(tutor.output.temperature_mistake(z, 2.0, "inverted"), tutor.output.probabilities(z, 0.5))
    np.testing.assert_allclose(tutor.output.temperature_mistake(z, 2.0, "ignored"), tutor.output.probabilities(z, 1.0))
    np.testing.assert_allclose(tutor.output.temperature_mistake(z, 2.0, "no_normalise"), np.exp(z / 2))
    with pytest.raises(ValueError, match="温度"):
        tutor.output.temperature_mistake(z, 0.0)


def test_top_k_mistakes():
    p = np.array([0.1, 0.4, 0.3, 0.2])
    np.testing.assert_allclose(tutor.output.top_k_mistake(p, 2), [0, 4 / 7, 3 / 7, 0])
    np.testing.assert_allclose(tutor.output.top_k_mistake(p, 2, "k_plus"), [0, 4 / 9, 3 / 9, 2 / 9])
    np.testing.assert_allclose(tutor.output.top_k_mistake(p, 2, "k_minus"), [0, 1, 0, 0])
    np.testing.assert_allclose(tutor.output.top_k_mistake(p, 2, "no_renormalise"), [0, 0.4, 0.3, 0])


def test_top_p_mistakes():
    p = [0.5, 0.3, 0.15, 0.05]
    assert tutor.output.top_p_mistake(p, 0.9).kept == (0, 1, 2)
    assert tutor.output.top_p_mistake(p, 0.9).mass == pytest.approx(0.95)
    assert tutor.output.top_p_mistake(p, 0.9, "stop_before").kept == (0, 1)
    assert tutor.output.top_p_mistake(p, 0.9, "ascending").kept == (3, 2, 1, 0)
    assert tutor.output.top_p_mistake(p, 0.8).kept == (0, 1)                           # exactly p reached → stop there


def test_residual_temperature_top_k_top_p_plural_forms():
    x, f = np.array([1.0, -2.0, 0.0, 3.0]), np.array([2.0, 2.0, -1.0, 0.0])
    r = tutor.block.residual_block_mistakes(x, f)
    np.testing.assert_array_equal(r[None], tutor.layer_norm(x + f, eps=0))
    np.testing.assert_array_equal(r["norm_sublayer_only"], x + tutor.layer_norm(f, eps=0))
    z = np.array([2.0, 1.0, 0.0])
    t = tutor.output.temperature_mistakes(z, 2.0)
    np.testing.assert_array_equal(t["inverted"], tutor.output.probabilities(z, 0.5))
    p = np.array([0.1, 0.4, 0.3, 0.2])
    k = tutor.output.top_k_mistakes(p, 2)
    np.testing.assert_allclose(k[None], [0, 4 / 7, 3 / 7, 0])
    np.testing.assert_allclose(k["k_minus"], [0, 1, 0, 0])
    assert tutor.output.top_p_mistakes([0.5, 0.3, 0.15, 0.05], 0.9)["ascending"].kept == (3, 2, 1, 0)
    with pytest.raises(ValueError):
        tutor.output.top_k_mistakes(p, 1, ("k_minus",))                          # k − 1 = 0 tokens kept


def test_kept_distribution_is_the_sampled_rules_distribution():
    p = np.array([0.1, 0.4, 0.3, 0.2])
    c = tutor.output.kept_distribution(p, "top_k", k=2)
    s = tutor.output.top_k_sample(p, 2, np.random.default_rng(3))
    np.testing.assert_array_equal(c.distribution, s.distribution)
    assert c.kept_mass == pytest.approx(0.7) and c.u is None and c.index == 1
    assert tutor.output.kept_distribution(p, "top_p", p=0.65).kept.tolist() == [1, 2]
    with pytest.raises(ValueError, match="top_k"):
        tutor.output.kept_distribution(p, "greedy")


def test_toy_model_and_generation_step():
    ids = tutor.output.TOY_VOCAB.ids("猫")
    logits = tutor.output.toy_next_logits(ids)
    assert logits.shape == (len(tutor.output.TOY_VOCAB),)
    step = tutor.output.generation_step(ids, "greedy", 0)
    assert tutor.output.TOY_VOCAB[step.chosen] == "は"
    # reproducible: same seed and history → same token and same u
    s1 = tutor.output.generation_step(ids, "sample", 7, temperature=2.0)
    s2 = tutor.output.generation_step(ids, "sample", 7, temperature=2.0)
    assert s1.chosen == s2.chosen and s1.choice.u == s2.choice.u
    # greedy path: 猫 は 魚 を 食べた 。 <eos>
    seq = ids
    for _ in range(6):
        seq = seq + (tutor.output.generation_step(seq, "greedy", 0).chosen,)
    assert [tutor.output.TOY_VOCAB[i] for i in seq] == ["猫", "は", "魚", "を", "食べた", "。", "<eos>"]
    with pytest.raises(ValueError, match="語彙"):
        tutor.output.TOY_VOCAB.ids("犬")
    with pytest.raises(ValueError, match="シード"):
        tutor.output.generation_step(ids, "sample", -1)


def test_toy_logits_read_only():
    with pytest.raises(ValueError):
        tutor.output.TOY_LOGITS[0, 0] = 5


def test_temperature_table_figures():
    rows = tutor.output.temperature_table(tb.TEMPERATURE_LOGITS, tb.TEMPERATURES)
    got = [tuple(round(float(p), 3) for p in r.probs) for r in rows]
    assert got == [(0.665, 0.245, 0.090), (0.867, 0.117, 0.016), (0.506, 0.307, 0.186)]
    np.testing.assert_allclose(rows[1].scaled, [4, 2, 0])
    np.testing.assert_allclose(rows[2].scaled, [1, 0.5, 0])
    with pytest.raises(ValueError, match="温度"):
        tutor.output.temperature_table([2, 1, 0], [0.0])


@settings(max_examples=300)
@given(hnp.arrays(np.float64, st.integers(1, 9), elements=st.floats(-1e3, 1e3)),
       st.lists(st.floats(1e-2, 1e2), min_size=1, max_size=5))


def test_temperature_table_rows_are_one_softmax_per_temperature_bit_for_bit(z, temps):
    """Each row is exactly z / T and probabilities(z, T) for its own T, in the order given; z is untouched."""
    z_before = z.copy()
    rows = tutor.output.temperature_table(z, temps)
    assert [r.temperature for r in rows] == [float(t) for t in temps]
    for row, t in zip(rows, temps):
        assert np.array_equal(row.scaled, z / float(t))
        assert np.array_equal(row.probs, tutor.output.probabilities(z, t))
    assert np.array_equal(z, z_before)
    assert tutor.output.temperature_table(z, []) == []


def test_tiny_temperature_does_not_overflow():
    """z / T overflows for T = 1e-308; the probabilities are computed as exp((z − max z) / T)."""
    p = probabilities([1, 2, 3], 1e-308)
    np.testing.assert_array_equal(p, [0.0, 0.0, 1.0])
    np.testing.assert_array_equal(p, tutor.softmax([1, 2, 3], temperature=1e-308))
    np.testing.assert_array_equal(probabilities([3, 3, 1], 1e-300), [0.5, 0.5, 0.0])
