"""tutor.vocab: one tokenizer for the small vocabularies (⓪, ⑦-3, ⑦-4, ⑧, ⑨) and one padding token."""
import numpy as np
import pytest

import tutor
from tutor.vocab import PAD, Vocabulary


def test_ids_and_tokens_are_inverse():
    v = Vocabulary(("<bos>", "猫", "は", "魚"))
    assert v.ids("猫 は 魚") == (1, 2, 3) == v.ids(["猫", "は", "魚"])
    assert v.tokens((1, 2, 3)) == ("猫", "は", "魚")
    assert v.tokens(np.array([0, 3])) == ("<bos>", "魚")
    assert v[1] == "猫" and v.index("魚") == 3 and len(v) == 4 and isinstance(v, tuple)


@pytest.mark.parametrize("bad, match", [("犬", "語彙にない"), ("", "空"), ([], "空")])
def test_ids_refuse_unknown_or_empty(bad, match):
    with pytest.raises(ValueError, match=match):
        Vocabulary(("猫", "は")).ids(bad)


@pytest.mark.parametrize("ids", [[2], [-1], [0.5], [], [[0]]])
def test_tokens_refuse_bad_ids(ids):
    with pytest.raises(ValueError, match="ID"):
        Vocabulary(("猫", "は")).tokens(ids)


def test_vocabulary_refuses_duplicates_and_empty():
    with pytest.raises(ValueError, match="2 回"):
        Vocabulary(("猫", "猫"))
    with pytest.raises(ValueError):
        Vocabulary(())


def test_the_three_vocabularies_share_the_class_and_the_padding_token():
    for v in (tutor.encdec.TINY_VOCAB, tutor.output.TOY_VOCAB, tutor.training.VOCAB, tutor.seq2seq.TF_VOCAB,
              tutor.pretrain.GPT_VOCAB):
        assert isinstance(v, Vocabulary)
        assert v.tokens(v.ids(list(v))) == tuple(v)
    assert tutor.training.VOCAB[0] == PAD                         # id 0 pads ⑧'s batches
    assert tutor.mask.pad_tokens(["猫", "は", "魚"], 1)[1:] == (PAD, PAD)
