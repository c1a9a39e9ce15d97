"""Shared by the engine tests (tests/test_<key>.py): a bad input raises a ValueError said in Japanese;
and by the tests that recompute a calculation item's answer from its inputs by the plain formula (not
the engine): the inputs the question registry accepted for an id."""
from __future__ import annotations

import re

import pytest

import quizzes
from quizzes import core
from quizzes.calc import CALC


def accepted_params(gid: str, seed: int):
    """(the params of the attempt the registry accepted for ``gid#seed``, the question). The
    registry draws params attempt by attempt until the four choices are distinct
    (quizzes.core.MAX_ATTEMPTS); this replays that search."""
    q = quizzes.GENERATORS[gid](seed)
    params, build = CALC[gid]
    for attempt in range(core.MAX_ATTEMPTS):
        p = params(core._seed_rng(gid, seed, attempt))
        d = build(p)
        if len({t.strip() for t in [d.correct] + [w[0] for w in d.wrong]}) == 4:
            assert d.stem == q.stem
            return p, q
    raise AssertionError(gid)


JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def raises_japanese(fn, *args, **kwargs) -> str:
    """The message of the ValueError ``fn(*args, **kwargs)`` raises; it must be said in Japanese."""
    with pytest.raises(ValueError) as info:
        fn(*args, **kwargs)
    assert JAPANESE.search(str(info.value)), str(info.value)
    return str(info.value)
