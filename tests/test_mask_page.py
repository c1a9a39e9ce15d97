"""AppTest of ⑥ /mask: textbook numbers, mask table and toggle, padding, enc/dec heatmaps, hand calculation.
The page's sections: ねらい・解説 (M, the next-token table), 手計算 (S̃ + M, softmax, the practice calculation of ③),
可視化 (encoder and decoder weights), 試してみよう (the wrong order, padding)."""
import numpy as np
import pytest

import tutor
from ui.validate import format_number

from apphelpers import frame_after, heatmap_numbers, heatmaps, lesson_text, open_page, page_text, sections_of, tables


MASK = "pages/6_mask.py"


@pytest.fixture
def mask():
    """⑥ opened at 試してみよう, where its widgets are."""
    at = open_page(MASK, section="try")
    assert not at.exception, at.exception
    return at


def test_mask_has_the_four_sections():
    at = open_page(MASK)
    assert sections_of(at) == ["ねらい・解説", "手計算", "可視化", "試してみよう", "確認クイズ"]


def test_mask_textbook_numbers():
    at = open_page(MASK, section="hand")
    text = page_text(at)
    # masked rows 1.000 / 0.500 0.500 / 0.053 0.894 0.053; それ unchanged
    assert "(1.000, 0.000, 0.000)" in text
    assert "(0.500, 0.500, 0.000)" in text
    assert "マスクなしと同じ値 → $(0.053, 0.894, 0.053)$" in text
    # M with −∞ above the diagonal, pencil-mode numerators e^2.828 = 16.912 and e^1.414 = 4.112 (as ④)
    assert "−∞" in text and "16.912" in text and "4.112" in text and "8.224" in text
    # the practice calculation (③'s query and keys): key 3 hidden → (0.6698, 0.3302), sum still 1
    assert "(0.6698, 0.3302)" in text
    assert "計算練習：3 番目のキーを隠す（③ と同じクエリとキー）" in text and "G検定の例" not in text
    assert "0.4011" in text and "0.1978" in text
    assert not at.error


def test_mask_matrix_table():
    at = open_page(MASK)                     # ねらい・解説: M, then the next-token problems of one sentence
    m_table = tables(at)[0]
    assert m_table.loc["猫", "魚"] == "−∞" and m_table.loc["猫", "猫"] == "0"
    assert m_table.loc["それ", "猫"] == "0" and m_table.loc["魚", "それ"] == "−∞"
    tasks = tables(at)[1]
    assert list(tasks["当てる次の語"]) == ["は", "魚", "を", "食べた", "。"]
    assert tasks["見てよい語（因果マスクの行）"].iloc[-1] == "猫・は・魚・を・食べた"


def test_mask_toggle_changes_row_sums(mask):
    def sums_shown(at):
        frames = [df for df in tables(at) if "行の合計" in df.columns and "猫" in df.index]
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
        return next(df for df in tables(at) if df.shape == (5, 5))

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
    # 試してみよう's charts: padding-only / causal+padding (5 positions)
    assert len(heatmaps(mask)) == 2
    mask.slider(key="mask_valid_len").set_value(4).run()
    enc, dec = heatmap_numbers(mask, 0), heatmap_numbers(mask, 1)     # two decimals
    assert enc.shape == dec.shape == (5, 5)
    np.testing.assert_allclose(enc[0], [0.25, 0.25, 0.25, 0.25, 0])
    np.testing.assert_allclose(dec[1], [0.5, 0.5, 0, 0, 0])
    np.testing.assert_allclose(dec[4], [0.25, 0.25, 0.25, 0.25, 0])


def test_mask_encoder_decoder_heatmaps():
    at = open_page(MASK, section="visual")
    assert len(heatmaps(at)) == 2
    enc, dec = heatmap_numbers(at, 0), heatmap_numbers(at, 1)
    assert enc.shape == dec.shape == (3, 3)
    np.testing.assert_allclose(dec[0], [1, 0, 0])
    assert enc[0, 1] > 0
    np.testing.assert_allclose(dec[2], enc[2])
    # compared side by side, they share one colour range: the same value has the same colour
    enc_map, dec_map = heatmaps(at)
    assert enc_map.key == dec_map.key and enc_map.key.startswith("色：0.000")
    assert enc_map.colours[2] == dec_map.colours[2]                 # それ's row: same weights, same colours


def test_mask_hand_calculation_follows_from_the_shown_numbers(pages):
    at = pages[MASK]
    scaled = frame_after(at, "① スケール済みスコア S̃").to_numpy(dtype=float)
    exps = frame_after(at, "③ 分子")
    weights = frame_after(at, "④ 重み").drop(columns="行の合計").to_numpy(dtype=float)
    assert scaled[0, 0] == 2.828 and exps.loc["猫", "猫"] == "16.912"
    num = exps.drop(columns="分母（行の合計）").to_numpy(dtype=float)
    den = exps["分母（行の合計）"].to_numpy(dtype=float)
    visible = np.tril(np.ones((3, 3), dtype=bool))
    # e^s̃ of the SHOWN score, rounded to 3 decimals; e^(−∞) = 0
    np.testing.assert_allclose(num[visible], np.round(np.exp(scaled[visible]), 3), atol=1e-9)
    assert np.all(num[~visible] == 0)
    # the denominator is the sum of the shown numerators, each weight their shown quotient
    np.testing.assert_allclose(den, num.sum(axis=1), atol=1e-9)
    np.testing.assert_allclose(weights, np.round(num / den[:, None], 3), atol=1e-9)
    assert list(den) == [16.912, 8.224, 18.912]
    text = lesson_text(at)
    assert "マスクなしと同じ値 → $(0.053, 0.894, 0.053)$" in text
    assert "（マスクなし $(0.053" not in text                             # no repeated vector (#16)
    assert r"\tilde{S}" in text and r"e^{\tilde{s}}" in text              # s̃ = scaled score (#8)
