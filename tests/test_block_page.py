"""AppTest of ⑦-2 /block: figures, batch editor and FFN widgets, the FFN step's input, Pre-LN wording, and
dropout as the paper uses it (explained, by hand, averaged over many masks, tried)."""
import numpy as np

import tutor
from tutor import textbook as tb

from apphelpers import (
    check_quiz, edit_matrix, frame_after, lesson_text, metric_part, open_page, page_text, sections_of, show_section, tables
)


BLOCK = "pages/8_block.py"


def test_block_page_figures():
    at = open_page(BLOCK)
    assert not at.exception
    assert sections_of(at) == ["ねらい・解説", "手計算", "可視化", "試してみよう", "確認クイズ"]
    text = page_text(at)                     # ねらい・解説: the size table, Post-LN / Pre-LN
    assert f"{tutor.multihead.mha_param_count(512):,}" == "1,048,576" and "1,048,576" in text   # without biases (caption)
    assert f"{tutor.multihead.mha_param_count(512, bias=True):,}" == "1,050,624" and "1,050,624" in text   # table: with biases, like FFN
    assert f"{tutor.block.ffn_param_count(512, 2048):,}" in text
    assert tutor.head_dim(512, 8) == 64
    for s in ("Post-LN — 原論文", "Pre-LN — GPT", "RMSNorm", "\\mathrm{LayerNorm}\\big(x + \\mathrm{Sublayer}(x)\\big)",
              "x + \\mathrm{Sublayer}\\big(\\mathrm{LayerNorm}(x)\\big)", "SwiGLU", "GELU", "ReLU"):
        assert s in text, s
    show_section(at, "hand")
    text = page_text(at)
    ln = tutor.layer_norm([1, 2, 3, 4], eps=0)
    assert f"({ln[0]:.3f},\\ {ln[1]:.3f},\\ {ln[2]:.3f},\\ {ln[3]:.3f})" in text   # (−1.342, −0.447, 0.447, 1.342)
    rms = tutor.block.rms_norm([1, 2, 3, 4], eps=0)
    assert f"{rms[0]:.3f}" in text
    # LayerNorm vs BatchNorm: example 1 unchanged under LN, changed under BN
    show_section(at, "visual")
    assert metric_part(at, "例 1 の差（層正規化）") == "0.000"
    assert float(metric_part(at, "例 1 の差（バッチ正規化）")) > 0.5
    check_quiz(at, "block")


def test_block_batch_editor_and_ffn_widgets():
    at = open_page(BLOCK, section="try")
    edit_matrix(at, "block_batch_others", [["2", "0", "1", "1"], ["0", "0", "4", "0"]])   # = batch A
    assert not at.exception
    assert metric_part(at, "例 1 の差：層正規化") == "0.000"
    assert metric_part(at, "例 1 の差：バッチ正規化") == "0.000"
    edit_matrix(at, "block_batch_others", [["9", "9", "9", "1"], ["-3", "0", "4", "0"]])
    assert metric_part(at, "例 1 の差：層正規化") == "0.000"
    assert float(metric_part(at, "例 1 の差：バッチ正規化")) > 0.1
    edit_matrix(at, "block_batch_others", [["x", "9", "9", "1"], ["-3", "0", "4", "0"]])
    assert not at.exception and at.error                                            # Japanese error, no traceback
    # FFN: activation and d_ff change the output; per-token independence holds
    before = page_text(at)
    at.selectbox(key="block_act").set_value("gelu").run()
    at.select_slider(key="block_dff").set_value(8).run()
    assert not at.exception
    after = page_text(at)
    assert after != before and "(3, 8)" in after
    params = tutor.block.init_ffn_params(4, 8, np.random.default_rng(0))
    out = tutor.block.ffn(tb.X, *params, activation="gelu").output
    assert f"{out[0, 0]:.3f}" in after
    assert metric_part(at, "猫だけを FFN に通した結果との差") == "0.000"
    # 可視化 keeps the fixed batches A and B whatever was tried; back in 試してみよう the edits are kept
    show_section(at, "visual")
    assert list(frame_after(at, "バッチ B（入力").loc["例 2"]) == ["20", "0", "10", "10"]
    assert float(metric_part(at, "例 1 の差（バッチ正規化）")) > 0.5
    show_section(at, "try")
    assert at.selectbox(key="block_act").value == "gelu" and at.select_slider(key="block_dff").value == 8
    assert at.error and "(3, 8)" in page_text(at)


def test_block_ffn_step_shows_its_input(pages):
    at = pages[BLOCK]
    text = lesson_text(at)
    assert r"$x = (2,\ 0)$" in text
    # and the shown x really gives the shown x W₁ and x + FFN(x)
    x = np.array([[2.0, 0.0]])
    w1 = frame_after(at, "W₁").to_numpy(dtype=float)
    assert tutor.block.ffn(x, w1, None, frame_after(at, "W₂").to_numpy(dtype=float), None).pre_activation.tolist() \
        == [[2.0, 0.0, -2.0, 4.0]]
    assert r"x W_1 &= (2,\ 0,\ -2,\ 4)" in text and r"x + \mathrm{FFN}(x) &= (4,\ -4)" in text


def test_block_shows_both_batches_and_the_pre_ln_wording(pages):
    at = pages[BLOCK]
    a = frame_after(at, "バッチ A（入力）")
    b = frame_after(at, "バッチ B（入力")
    assert list(a.loc["例 2"]) == ["2", "0", "1", "1"] and list(a.loc["例 3"]) == ["0", "0", "4", "0"]
    assert list(b.loc["例 2"]) == ["20", "0", "10", "10"] and list(b.loc["例 1"]) == list(a.loc["例 1"])
    text = lesson_text(at)
    assert "LayerNorm をもう 1 つ置きます" in text
    assert "FFN のパラメータ" in text and "FFN の重み" not in text       # 重み is A, not W (#9)


# ---------------------------------------------------------------------------
# dropout as the paper uses it (issue 37 §1)
# ---------------------------------------------------------------------------
def test_block_dropout_explained_and_calculated():
    at = open_page(BLOCK)
    text = page_text(at)
    assert "ドロップアウト：原論文がかける場所と率" in [h.value for h in at.subheader]
    assert r"\mathrm{LayerNorm}\big(x \\ &\qquad + \mathrm{Dropout}(\mathrm{Sublayer}(x))\big)" in text
    assert r"P_{\text{drop}} = 0.1" in text and "埋め込みと位置エンコーディングの和" in text
    assert "推論時は何も落とさず、倍率もかけずに" in text
    show_section(at, "hand")
    text = page_text(at)
    res = tutor.training.dropout_with_mask(tutor.training.DROPOUT_X, np.array(tutor.training.DROPOUT_KEEP), 0.2)
    assert res.output.tolist() == [2.5, 0.0, -1.25, 3.75]
    assert r"m &= (1,\ 0,\ 1,\ 1)" in text and r"\frac{1}{0.8} = 1.25" in text
    assert r"&= (2.50,\ 0.00,\ -1.25,\ 3.75)" in text and r"y_{\text{推論時}} = x &= (2,\ 4,\ -1,\ 3)" in text
    assert "3. ドロップアウト：学習時と推論時" in [h.value for h in at.subheader]


def test_block_dropout_average():
    at = open_page(BLOCK, section="visual")
    table = next(t for t in tables(at) if "入力 x" in t.index)
    inverted, plain_mean = tutor.training.dropout_average(tutor.training.DROPOUT_X, 0.1, np.random.default_rng(0), 10_000)
    assert table.loc["入力 x"].tolist() == ["2.000", "4.000", "-1.000", "3.000"]
    assert table.iloc[1].tolist() == [f"{v:.3f}" for v in inverted]
    assert table.iloc[2].tolist() == [f"{v:.3f}" for v in plain_mean]
    np.testing.assert_allclose(inverted, tutor.training.DROPOUT_X, atol=0.05)                # ≈ x
    np.testing.assert_allclose(plain_mean, 0.9 * np.array(tutor.training.DROPOUT_X), atol=0.05)   # ≈ 0.9 x


def test_block_try_dropout():
    at = open_page(BLOCK, section="try")
    at.select_slider(key="block_drop_p").set_value(0.5)
    at.number_input(key="block_drop_seed").set_value(3).run()
    assert not at.exception
    want = tutor.training.dropout(tutor.training.DROPOUT_X, 0.5, np.random.default_rng(3))
    table = next(t for t in tables(at) if "出力 y" in t.index)
    assert table.loc["出力 y"].tolist() == [f"{v:.3f}" for v in want.output]
    assert metric_part(at, "残した成分の倍率") == "2"
    at.radio(key="block_drop_mode").set_value("infer").run()
    table = next(t for t in tables(at) if "出力 y" in t.index)
    assert table.loc["出力 y"].tolist() == table.loc["入力 x"].tolist() == ["2.000", "4.000", "-1.000", "3.000"]
    assert metric_part(at, "残した成分の倍率") == "1"
    edit_matrix(at, "block_drop_x", [["1", "あ", "3", "4"]])                           # a bad cell: Japanese, no traceback
    assert not at.exception and at.error
    show_section(at, "hand")
    show_section(at, "try")
    assert at.select_slider(key="block_drop_p").value == 0.5 and at.radio(key="block_drop_mode").value == "infer"
