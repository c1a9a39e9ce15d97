"""quizzes.calc.pick / sample draw exactly what Generator.choice draws (same values, same
stream afterwards), so what a seed means does not depend on how they are written."""
from __future__ import annotations

import numpy as np
import pytest

from quizzes.calc import pick, sample

SHAPES = ((3, 2), (4, 2), (3, 3), (5, 3), (2, 1), (8, 4), (10, 2), (1, 1), (5, 0))


@pytest.mark.parametrize("n,k", SHAPES)
def test_sample_is_choice_without_replacement(n, k):
    for seed in range(1500):
        a, b = np.random.default_rng([seed, n, k]), np.random.default_rng([seed, n, k])
        assert sample(b, n, k) == a.choice(n, size=k, replace=False).tolist()
        assert a.integers(1 << 30) == b.integers(1 << 30)      # the streams go on alike


def test_pick_is_choice():
    opts = (8, 16, 32, 48, 64, 96, 128)
    for seed in range(3000):
        a, b = np.random.default_rng([seed, 7]), np.random.default_rng([seed, 7])
        assert pick(b, opts) == int(a.choice(opts))
        assert pick(b, range(5)) == int(a.choice(5))
        assert pick(b, [0, 2, 3]) == int(a.choice(np.array([0, 2, 3])))
        assert a.integers(1 << 30) == b.integers(1 << 30)


def test_sample_of_any_size_and_its_refusal():
    """sample is Generator.choice itself: any n works, more than n distinct indices do not."""
    got = sample(np.random.default_rng(0), 20_000, 3)
    assert len(set(got)) == 3 and all(0 <= g < 20_000 for g in got)
    with pytest.raises(ValueError):
        sample(np.random.default_rng(0), 3, 4)


def test_seed_rng_is_the_documented_four_word_seed():
    """quizzes.core._seed_rng may build its Generator faster, but from the very same entropy
    [seed, attempt, tag_lo, tag_hi] (so every id keeps its question)."""
    import quizzes
    from quizzes import core

    ids = sorted(quizzes.GENERATORS) + ["ab", "abcd", "abcde", "日本語のid"]
    for gid in ids:
        tag = int.from_bytes(gid.encode("utf-8")[:8].ljust(8, b"\0"), "little")
        for seed in (0, 1, 7, 2**32 - 1, 2**32 + 5, 123456789012):
            for attempt in (0, 1, 199):
                want = np.random.default_rng([seed & 0xFFFFFFFF, attempt, tag & 0xFFFFFFFF, tag >> 32])
                got = core._seed_rng(gid, seed, attempt)
                assert got.integers(1 << 62, size=4).tolist() == want.integers(1 << 62, size=4).tolist()
