"""⑦-2's dropout item (block.dropout, issue 37 §1): inverted dropout's output in training and at
inference, recomputed here from the plain rule (no engine call); each distractor is the named
slip it claims; the inputs keep every value exact; the knowledge items on dropout are in the bank."""
from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest

import quizzes
from quizzes import core, knowledge
from calchelpers import accepted_params
from quizzes.misconceptions import distractor_name, id_for_name

GID = "block.dropout"
SEEDS = range(300)


def drawn(seed: int):
    return accepted_params(GID, seed)


def vec(xs) -> str:
    """Decimals as the items write them (exact here: no rounding needed)."""
    def one(x: Decimal) -> str:
        text = f"{x.normalize():f}"
        return "0" if text in ("-0", "0") else text
    return "$(" + ",\\ ".join(one(x) for x in xs) + ")$"


def test_dropout_answers_from_the_plain_rule():
    modes = set()
    for seed in SEEDS:
        p, q = drawn(seed)
        x = [Decimal(repr(v)) for v in p["x"]]
        rate = Decimal(repr(p["p"]))
        keep = p["keep"]
        modes.add(p["training"])
        if p["training"]:
            right = [v / (1 - rate) if k else Decimal(0) for v, k in zip(x, keep)]
            slips = {"1/(1−p) の掛け忘れ": [v if k else Decimal(0) for v, k in zip(x, keep)],
                     "掛けると割るの取り違え": [v * (1 - rate) if k else Decimal(0) for v, k in zip(x, keep)],
                     "p と 1−p の取り違え": [v / rate if k else Decimal(0) for v, k in zip(x, keep)]}
        else:
            right = x
            slips = {"推論時の縮め方との混同": [v * (1 - rate) for v in x],
                     "推論時にも拡大した": [v / (1 - rate) for v in x],
                     "推論時にも落とした": [v / (1 - rate) if k else Decimal(0) for v, k in zip(x, keep)]}
        assert q.choices[q.answer] == vec(right), (seed, q.choices[q.answer])
        for label, choice in zip(q.misconceptions, q.choices):
            if label:
                assert choice == vec(slips[distractor_name(label)]), (seed, label)
                assert id_for_name(distractor_name(label)) == "dropout_scaling"
        assert 0 < sum(keep) < 4                                                     # something kept, something dropped
        assert "逆ドロップアウト" in q.stem and "1/(1-p)" in q.stem
    assert modes == {True, False}


def test_dropout_inputs_make_every_value_end():
    """x is a multiple of 0.9 for p = 0.1 and of 3 for p = 0.25: x/(1 − p), x·(1 − p), x/p have ≤ 3 decimals."""
    for seed in range(200):
        p, _ = drawn(seed)
        for v in p["x"]:
            for value in (Decimal(repr(v)) / (1 - Decimal(repr(p["p"]))), Decimal(repr(v)) * (1 - Decimal(repr(p["p"]))),
                          Decimal(repr(v)) / Decimal(repr(p["p"]))):
                assert value == value.quantize(Decimal("0.001")), (seed, v, p["p"])


def test_dropout_item_is_not_advanced_and_the_bank_covers_dropout():
    assert core.GENERATOR_INFO[GID].topic == "block" and not core.GENERATOR_INFO[GID].advanced
    items = {it["id"]: it for it in knowledge.bank()["block"]}
    assert {"block.k13", "block.k14", "block.k15", "block.k16"} <= set(items)          # placement, scaling, the formula
    assert items["block.k16"]["answer"] == "$\\mathrm{LayerNorm}(x + \\mathrm{Dropout}(\\mathrm{Sublayer}(x)))$"
    for k in ("block.k15", "block.k16"):
        for w in items[k]["wrong"]:
            assert id_for_name(distractor_name(w["why"])) in ("dropout_scaling", "dropout_role")


@pytest.mark.parametrize("seed", [0, 7, 123])
def test_same_seed_same_question(seed):
    assert quizzes.GENERATORS[GID](seed) == quizzes.GENERATORS[GID](seed)
    assert np.all([c.startswith("$(") for c in quizzes.GENERATORS[GID](seed).choices])
