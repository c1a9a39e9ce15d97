"""AppTest of ⑦-3 /encdec: figures, inputs, links by page title, the recomputable cross-attention hand calculation."""
import numpy as np
import pytest

import tutor
from tutor import textbook as tb
import ui

from apphelpers import (
    assert_heatmap_is, check_quiz, heatmap_numbers, heatmaps, metric_part, open_page, page_text, show_section, tables
)


ENCDEC = "pages/9_encdec.py"
SECTIONS = ["ねらい・解説", "手計算", "可視化", "試してみよう", "確認クイズ"]


def test_encdec_page_figures():
    at = open_page(ENCDEC)
    assert not at.exception
    assert [t.label for t in at.tabs] == SECTIONS
    text = page_text(at)                                   # ねらい・解説
    for s in ("Source-Target Attention", "Seq2Seq", "N = 6"):
        assert s in text, s
    # the whole-picture diagram renders (DOT string, no graphviz package needed) with links next to it
    dot = at.get("graphviz_chart")[0].proto.spec
    assert "Source-Target Attention" in dot and "位置エンコーディング" in dot
    links = {el.proto.label: el.proto.page for el in at.get("page_link")}
    for key in ("position", "formula", "block", "output", "cost"):   # labels = the pages' own titles
        assert links.get(ui.PAGE_BY_KEY[key].label) == key, key
    # hand example: ④'s cross-attention example (ate, it), 2 target rows × 3 source columns,
    # pencil-rounded like ④ (the exact weights agree to 3 decimals)
    show_section(at, "hand")
    cross = tutor.cross_attention(tb.CROSS_X_DEC, tb.X, tb.W_Q, tb.W_K, tb.W_V)
    hand = heatmap_numbers(at, 0)
    assert hand.shape == (2, 3)
    assert hand == pytest.approx(cross.weights, abs=5e-4)
    # 可視化: the tiny seeded model: n_tgt × n_src heatmap (5 × 6) equal to the engine's weights,
    # then the inner tabs (encoder self-attention, decoder masked self-attention)
    show_section(at, "visual")
    assert [t.label for t in at.tabs][3:5] == ["エンコーダの自己注意", "デコーダのマスク付き自己注意"]
    text = page_text(at)
    for s in ("BERT", "GPT", "双方向", "因果マスク"):
        assert s in text, s
    model = tutor.encdec.TinyEncoderDecoder.from_seed(0)
    res = model.decode_step(tutor.encdec.TINY_VOCAB.ids("猫 は 魚 を 食べた 。"), tutor.encdec.TINY_VOCAB.ids("<bos> the cat ate fish"))
    h = heatmaps(at)[0]
    assert (len(h.rows), len(h.cols)) == (5, 6)
    assert_heatmap_is(at, 0, res.cross_weights[0][0], h.rows, h.cols, digits=2)
    # decoder self-attention: exact zeros above the diagonal
    dec = heatmap_numbers(at, 2)
    assert dec.shape == (5, 5) and np.all(dec[np.triu_indices(5, 1)] == 0)
    show_section(at, "try")
    assert metric_part(at, "Source-Target Attention の重みの形") == "5 × 6"
    check_quiz(at, "encdec")


def test_encdec_inputs_change_output():
    at = open_page(ENCDEC, section="try")
    at.text_input(key="encdec_tgt").set_value("<bos> the cat").run()
    assert not at.exception
    assert metric_part(at, "Source-Target Attention の重みの形") == "3 × 6"
    at.selectbox(key="encdec_layer").set_value(2).run()
    at.selectbox(key="encdec_head").set_value(2).run()
    at.number_input(key="encdec_seed").set_value(3).run()
    assert not at.exception
    model = tutor.encdec.TinyEncoderDecoder.from_seed(3)
    res = model.decode_step(tutor.encdec.TINY_VOCAB.ids("猫 は 魚 を 食べた 。"), tutor.encdec.TINY_VOCAB.ids("<bos> the cat"))
    assert len(heatmaps(at)) == 2                # the try-it heatmap and the (opened) expander's
    h = heatmaps(at)[0]
    assert_heatmap_is(at, 0, res.cross_weights[1][1], h.rows, h.cols, digits=2)
    assert_heatmap_is(at, 1, res.layers[1].self_weights[1], h.rows, h.rows, digits=2)
    # an unknown word: a Japanese error, the last valid result stays
    at.text_input(key="encdec_src").set_value("犬 は 魚 を 食べた").run()
    assert not at.exception
    assert at.error and "語彙にない" in at.error[0].value and "〈bos〉" in at.error[0].value
    assert metric_part(at, "Source-Target Attention の重みの形") == "3 × 6"
    # 可視化 keeps its fixed example (seed 0, the default sentences); back in 試してみよう the inputs are kept
    show_section(at, "visual")
    res0 = tutor.encdec.TinyEncoderDecoder.from_seed(0).decode_step(
        tutor.encdec.TINY_VOCAB.ids("猫 は 魚 を 食べた 。"), tutor.encdec.TINY_VOCAB.ids("<bos> the cat ate fish"))
    h = heatmaps(at)[0]
    assert_heatmap_is(at, 0, res0.cross_weights[0][0], h.rows, h.cols, digits=2)
    show_section(at, "try")
    assert at.number_input(key="encdec_seed").value == 3 and at.selectbox(key="encdec_layer").value == 2
    assert metric_part(at, "Source-Target Attention の重みの形") == "3 × 6"


def test_encdec_links_use_the_pages_titles(pages):
    links = {el.proto.label: el.proto.page for el in pages[ENCDEC].get("page_link")}
    for key in ("position", "formula", "multihead", "mask", "block", "output", "cost"):
        assert links.get(ui.PAGE_BY_KEY[key].label) == key, key


def test_encdec_hand_is_formula_cross_example_and_recomputable():
    at = open_page(ENCDEC, section="hand")
    text = page_text(at)
    assert "ate, it" in text
    steps = tutor.handcalc.attention_steps(*(lambda c: (c.q, c.k, c.v))(
        tutor.cross_attention(tb.CROSS_X_DEC, tb.X, tb.W_Q, tb.W_K, tb.W_V)), decimals=3)
    z_frames = [df for df in tables(at) if list(df.columns) == ["z1", "z2"]]
    assert len(z_frames) == 1
    shown_z = z_frames[0].astype(float).to_numpy()
    np.testing.assert_array_equal(shown_z, steps.z)
    assert shown_z[0].tolist() == [1.870, 0.132] and shown_z[1].tolist() == [0.159, 1.841]
    # recompute Z from the weights shown (3 decimals, the heatmap) and V shown: exactly the shown Z
    weights = heatmap_numbers(at, 0)
    v = [df for df in tables(at) if list(df.columns) == ["v1", "v2"]][0].astype(float).to_numpy()
    np.testing.assert_allclose(np.round(weights @ v, 3), shown_z)
    # each softmax row (in the opened expander A): the shown exponentials add up to the shown denominator
    for row in steps.softmax.rows:
        assert sum(row.exps) == pytest.approx(row.total, abs=1e-9)
        assert row.total_latex.split("=")[-1].strip() in text
    # the inputs are shown: both embeddings and W_Q/W_K/W_V
    for cap in ("$X_{\\text{dec}}$：ターゲットの埋め込み", "$X_{\\text{enc}}$：ソースの埋め込み", "$W_Q$", "$W_K$", "$W_V$"):
        assert any(c.value == cap for c in at.caption), cap
