"""AppTest of ③ /scaling, section by section (ui.sections): textbook numbers, spread chart, the
saturation explorer (every c of its slider), tiny numbers without e-notation."""
import io
import json

import numpy as np
import pyarrow as pa

import tutor
from tutor import textbook as tb

from apphelpers import (
    chart_data, E_NOTATION, lesson_elements, lesson_text, open_page, page_text, sections_of, show_section,
    table_frame
)


SCALING = "pages/3_scaling.py"
SECTIONS = ["ねらい・解説", "手計算", "可視化", "試してみよう", "確認クイズ"]


def test_scaling_textbook_numbers_and_spread_chart():
    at = open_page(SCALING)
    assert sections_of(at) == SECTIONS
    assert "64 回分の合計はおよそ ±8" in page_text(at)                 # 解説, in the first tab
    show_section(at, "hand")
    text = page_text(at)
    for figure in ("0.4011", "0.1978", "0.4223", "0.1554", "0.99995", "0.66524", "0.99966", "5.056", "2.028"):
        assert figure in text, figure
    # our own example, named as what it is: no claim that it is an item of the real exam (issue 37 §4)
    assert "計算練習：クエリ 1 つとキー 3 つ" in text and "G検定の例" not in text
    show_section(at, "visual")
    assert "22.63" in page_text(at)                                    # the measured spread at d_k = 512
    exp = tutor.scaling.dot_product_spread(np.random.default_rng(0))
    df = chart_data(at, 0)
    measured = df[df["系列"] == "測定した標準偏差"]["値"].to_numpy()
    np.testing.assert_allclose(measured, exp.raw_std, rtol=1e-12)
    np.testing.assert_allclose(df[df["系列"] == "√d_k（理論）"]["値"].to_numpy(), np.sqrt([2, 8, 64, 512]))
    at.number_input(key="scaling_seed").set_value(7).run()
    other = tutor.scaling.dot_product_spread(np.random.default_rng(7))
    df7 = chart_data(at, 0)
    np.testing.assert_allclose(df7[df7["系列"] == "測定した標準偏差"]["値"].to_numpy(), other.raw_std, rtol=1e-12)
    assert not np.allclose(other.raw_std, exp.raw_std, rtol=1e-9)
    show_section(show_section(at, "try"), "visual")                    # away and back: the seed is kept
    assert at.number_input(key="scaling_seed").value == 7
    df7 = chart_data(at, 0)
    np.testing.assert_allclose(df7[df7["系列"] == "測定した標準偏差"]["値"].to_numpy(), other.raw_std, rtol=1e-12)


def _explorer(at):
    """(spec, {dataset name: DataFrame}) of 試してみよう's chart (the section's last)."""
    el = at.get("vega_lite_chart")[-1]
    frames = {ds.name: pa.ipc.open_stream(io.BytesIO(ds.data.data)).read_all().to_pandas() for ds in el.proto.datasets}
    return json.loads(el.proto.spec), frames


def test_scaling_try_it_holds_every_c_of_its_slider_computed_by_the_engine():
    """The slider is Vega's own (a param bound to a range input): a step filters the data in the
    browser, so every c the slider can reach must be in the chart, each computed by the engine."""
    spec, data = _explorer(open_page(SCALING, section="try"))
    (param,) = spec["params"]
    factors = tutor.scaling.SATURATION_FACTORS
    assert param["name"] == "c" and param["value"] == 1.0 and param["bind"]["input"] == "range"
    assert (param["bind"]["min"], param["bind"]["max"], param["bind"]["step"]) == (factors[0], factors[-1], 0.5)
    assert param["bind"]["name"].strip() == "スコアの倍率 c"
    assert spec["usermeta"]["embedOptions"]["renderer"] == "svg"     # the readout is text, not pixels
    base = tb.SATURATION_SCORES[0]
    assert data["readout"]["倍率 c"].tolist() == list(factors)
    for c in factors:
        p = tutor.scaling.saturation_point(base, c)
        bars = data["bars"][data["bars"]["倍率 c"] == c]
        np.testing.assert_allclose(bars["重み"], p.weights, rtol=1e-12)
        on_curve = data["curve"][data["curve"]["倍率 c"] == c].set_index("系列")["値"]
        np.testing.assert_allclose([on_curve["最大の重み"], on_curve["勾配の大きさ"]], [p.max_weight, p.gradient],
                                   rtol=1e-12)
    readout = data["readout"].set_index("倍率 c")["読み"]
    assert readout[1.0].split("\n") == ["softmax(2, 1, 0)", "≈ (0.66524, 0.24473, 0.09003)", "最大の重み = 0.66524",
                                        "勾配の大きさ max|∂a/∂s| = 0.22270"]
    assert readout[10.0].split("\n")[2:] == ["最大の重み = 0.99995", "勾配の大きさ max|∂a/∂s| = 4.5×10⁻⁵"]
    assert readout[0.5].startswith("softmax(1.0, 0.5, 0.0)\n")
    # every layer that shows the current c filters on the param; the curve itself does not
    layers = [spec["vconcat"][0], spec["vconcat"][1], *spec["vconcat"][2]["layer"]]
    assert [lay.get("transform") for lay in layers] == [[{"filter": "datum['倍率 c'] == c"}]] * 2 + [None] + [
        [{"filter": "datum['倍率 c'] == c"}]] * 2


def test_scaling_tiny_numbers_without_e_notation(pages):
    at = pages[SCALING]
    text = lesson_text(at)
    assert not E_NOTATION.search(text), E_NOTATION.search(text)
    table = next(f for f in map(table_frame, lesson_elements(at)) if f is not None)
    assert table.loc["(20, 10, 0)", "softmax 後の重み"] == "(0.99995, 4.5×10⁻⁵, 2.1×10⁻⁹)"
    assert table.loc["(20, 10, 0)", "勾配の大きさ"] == "4.5×10⁻⁵"
    assert table.loc["(16, 8, 0)", "softmax 後の重み"] == "(0.99966, 0.00034, 1.1×10⁻⁷)"
    # the expander writes the same row with 5 decimals: 0.99995, not 1.0000
    assert r"\approx 0.99995" in text and r"\approx 4.5\times 10^{-5}" in text
    assert r"\approx 2.1\times 10^{-9}" in text and r"\approx 1.0000" not in text
    p = tutor.scaling.saturation_point(tb.SATURATION_SCORES[0], 10.0)
    assert round(p.weights[1], 6) == 4.5e-5 and round(p.gradient, 6) == 4.5e-5


def test_scaling_try_it_readout_without_e_notation():
    _, data = _explorer(open_page(SCALING, section="try"))
    readout = data["readout"].set_index("倍率 c")["読み"]
    assert not any(E_NOTATION.search(t) for t in readout), [t for t in readout if E_NOTATION.search(t)]
    p = tutor.scaling.saturation_point(tb.SATURATION_SCORES[0], 20.0)            # (40, 20, 0)
    assert p.weights[1] < 1e-8 and p.weights[2] < 1e-17
    assert readout[20.0].split("\n") == ["softmax(40, 20, 0)", "≈ (1.00000, 2.1×10⁻⁹, 4.2×10⁻¹⁸)",
                                         "最大の重み = 1.00000", "勾配の大きさ max|∂a/∂s| = 2.1×10⁻⁹"]
    bars = data["bars"][data["bars"]["倍率 c"] == 20.0]
    assert bars["表示"].tolist() == ["1.00000", "2.1×10⁻⁹", "4.2×10⁻¹⁸"]
