"""AppTest for ⑤ /multihead and ⑥ /mask: textbook numbers shown, widgets change what is shown."""
import numpy as np
import pytest

import tutor
from apphelpers import chart_data, open_page, page_text
from tutor import textbook as tb
from ui.validate import format_number

MH = "pages/5_multihead.py"
MASK = "pages/6_mask.py"


def heatmaps(at) -> int:
    return len(at.get("vega_lite_chart"))


def dataframe_texts(at) -> list[str]:
    return [df.value.to_string() for df in at.table]


# ---------------------------------------------------------------------------
# ⑤ /multihead
# ---------------------------------------------------------------------------
@pytest.fixture
def mh():
    at = open_page(MH)
    assert not at.exception, at.exception
    return at


def test_multihead_textbook_numbers(mh):
    text = page_text(mh)
    ex = tutor.multihead.textbook_two_heads()
    # それ: head 1 (0.159, 1.841), head 2 (1.0, 1.7), concat, W_O output (1.859, 2.841, 1.0, 1.7)
    assert "(0.159, 1.841, 1.000, 1.700)" in text
    assert "(1.859, 2.841, 1.000, 1.700)" in text
    assert "(1.00, 1.70)" in text          # head 2 of それ, 2 decimals like its table (0.15 is not shown as 0.2)
    assert format_number(ex.combined.output[2, 0], 3) == "1.859"  # the page's number is the engine's
    # the seed's two-head figures as tables
    assert "0.894" in text and "0.053" in text
    # d_k = 512 / 8 = 64 and 4·512² = 1,048,576
    assert "d_k = 64" in text
    assert "1,048,576" in text
    assert not mh.error


def test_multihead_why_one_head_numbers(mh):
    text = page_text(mh)
    blend = tutor.multihead.blend_weights(tutor.multihead.textbook_two_heads().head1.weights, tb.HEAD2_WEIGHTS, 0.5)
    assert format_number(blend[1, 0], 3) in text  # 0.601: the half-and-half row of 魚
    assert "0.401" in text and "0.80" in text


def test_blend_slider_changes_table(mh):
    before = dataframe_texts(mh)
    mh.slider(key="mh_blend").set_value(1.0).run()
    after = dataframe_texts(mh)
    assert before != after
    # t = 1 is exactly head 2's pattern; the row 猫 of head 2 is (0.90, 0.05, 0.05)
    assert any("0.900" in t and "0.050" in t for t in after)


def test_number_of_heads_changes_heatmaps(mh):
    assert heatmaps(mh) == 2 + 2          # two textbook heads + h = 2 live heads
    mh.number_input(key="mh_heads").set_value(4).run()
    assert not mh.exception and not mh.error
    assert heatmaps(mh) == 2 + 4
    assert "d_k = d_{\\text{model}} / h = 8 / 4 = 2" in page_text(mh)
    mh.number_input(key="mh_heads").set_value(8).run()
    assert heatmaps(mh) == 2 + 8


def test_d_model_changes_heads_data(mh):
    first = chart_data(mh, 2)
    mh.selectbox(key="mh_d_model").set_value(16).run()
    assert not mh.exception
    assert heatmaps(mh) == 4
    second = chart_data(mh, 2)
    assert not np.allclose(first["value"].to_numpy(), second["value"].to_numpy())
    live = tutor.multihead.random_multihead(3, 16, 2, np.random.default_rng(0))
    np.testing.assert_allclose(second["value"].to_numpy(), live.result.weights[0].ravel())
    assert f"{tutor.multihead.mha_param_count(16):,}" in page_text(mh)  # 1,024


def test_seed_changes_heads(mh):
    first = chart_data(mh, 2)
    mh.number_input(key="mh_seed").set_value(7).run()
    second = chart_data(mh, 2)
    assert not np.allclose(first["value"].to_numpy(), second["value"].to_numpy())


def test_indivisible_d_model_shows_japanese_error_and_keeps_last_result(mh):
    mh.number_input(key="mh_heads").set_value(4).run()
    assert heatmaps(mh) == 6
    mh.selectbox(key="mh_d_model").set_value(6).run()
    assert not mh.exception
    errors = [e.value.replace("\\", "") for e in mh.error]  # alerts are escaped Markdown (ui.state.plain)
    assert any("d_model = 6 はヘッド数 h = 4 で割り切れません" in e for e in errors), errors
    assert heatmaps(mh) == 6              # the last valid result (d_model = 8, h = 4) is still shown
    assert "直前の正しい入力" in page_text(mh)
    mh.number_input(key="mh_heads").set_value(3).run()
    assert not mh.error and heatmaps(mh) == 2 + 3


def test_multihead_widgets_survive_page_switch(mh):
    mh.number_input(key="mh_heads").set_value(4).run()
    mh.switch_page(MASK).run()
    mh.switch_page(MH).run()
    assert not mh.exception
    assert heatmaps(mh) == 6


# ---------------------------------------------------------------------------
# ⑥ /mask
# ---------------------------------------------------------------------------
@pytest.fixture
def mask():
    at = open_page(MASK)
    assert not at.exception, at.exception
    return at


def test_mask_textbook_numbers(mask):
    text = page_text(mask)
    # masked rows 1.000 / 0.500 0.500 / 0.053 0.894 0.053; それ unchanged
    assert "(1.000, 0.000, 0.000)" in text
    assert "(0.500, 0.500, 0.000)" in text
    assert "マスクなしと同じ値 → $(0.053, 0.894, 0.053)$" in text
    # M with −∞ above the diagonal, pencil-mode numerators e^2.828 = 16.912 and e^1.414 = 4.112 (as ④)
    assert "−∞" in text and "16.912" in text and "4.112" in text and "8.224" in text
    # G検定: key 3 hidden → (0.6698, 0.3302), sum still 1
    assert "(0.6698, 0.3302)" in text
    assert "0.4011" in text and "0.1978" in text
    assert not mask.error


def test_mask_matrix_table(mask):
    m_table = mask.table[0].value
    assert m_table.loc["猫", "魚"] == "−∞" and m_table.loc["猫", "猫"] == "0"
    assert m_table.loc["それ", "猫"] == "0" and m_table.loc["魚", "それ"] == "−∞"


def test_mask_toggle_changes_row_sums(mask):
    def sums_shown(at):
        frames = [df.value for df in at.table if "行の合計" in df.value.columns and "猫" in df.value.index]
        return list(frames[-1]["行の合計"])

    assert sums_shown(mask) == ["1.000", "1.000", "1.000"]
    mask.toggle(key="mask_wrong_order").set_value(True).run()
    assert not mask.exception
    c = tutor.mask.compare_mask_order(tutor.multihead.textbook_two_heads().head1.scaled, tutor.causal_mask(3))
    assert sums_shown(mask) == [format_number(v, 3) for v in c.wrong_sums] == ["0.673", "0.802", "1.000"]
    assert any("行の合計が 1 になりません" in e.value and "0.673" in e.value for e in mask.error)
    mask.toggle(key="mask_wrong_order").set_value(False).run()
    assert sums_shown(mask) == ["1.000", "1.000", "1.000"] and not mask.error


def test_padding_slider_changes_mask(mask):
    def padding_table(at):  # the first 5 × 5 table is the padding mask
        return next(df.value for df in at.table if df.value.shape == (5, 5))

    before = padding_table(mask)             # valid length 3: two PAD
    assert list(before.columns) == ["猫", "は", "魚", "PAD", "PAD(2)"]
    assert (before.iloc[0] == ["0", "0", "0", "−∞", "−∞"]).all()
    mask.slider(key="mask_valid_len").set_value(2).run()
    assert not mask.exception
    after = padding_table(mask)
    assert list(after.columns)[:2] == ["猫", "は"]
    assert (after.iloc[0] == ["0", "0", "−∞", "−∞", "−∞"]).all()
    expected = tutor.additive_mask(tutor.padding_mask(2, 5))
    assert ((after.to_numpy() == "−∞") == np.isneginf(expected)).all()


def test_padding_heatmaps_follow_slider(mask):
    # charts: encoder / decoder (3 tokens), then padding-only / causal+padding (5 positions)
    mask.slider(key="mask_valid_len").set_value(4).run()
    enc = chart_data(mask, 2)["value"].to_numpy().reshape(5, 5)
    dec = chart_data(mask, 3)["value"].to_numpy().reshape(5, 5)
    np.testing.assert_allclose(enc[0], [0.25, 0.25, 0.25, 0.25, 0])
    np.testing.assert_allclose(dec[1], [0.5, 0.5, 0, 0, 0])
    np.testing.assert_allclose(dec[4], [0.25, 0.25, 0.25, 0.25, 0])


def test_mask_encoder_decoder_heatmaps(mask):
    enc = chart_data(mask, 0)["value"].to_numpy().reshape(3, 3)
    dec = chart_data(mask, 1)["value"].to_numpy().reshape(3, 3)
    np.testing.assert_allclose(dec[0], [1, 0, 0])
    assert enc[0, 1] > 0
    np.testing.assert_allclose(dec[2], enc[2])
