"""AppTest of ③ /scaling: textbook numbers, spread chart, saturation slider, tiny numbers without e-notation."""
import io

import numpy as np
import pyarrow as pa

import tutor
from tutor import textbook as tb

from apphelpers import chart_data, E_NOTATION, full_text, lesson_elements, lesson_text, metric, open_page


NAIVE, QKV, SCALING, FORMULA = "pages/1_naive.py", "pages/2_qkv.py", "pages/3_scaling.py", "pages/4_formula.py"


def test_scaling_textbook_numbers_and_spread_chart():
    at = open_page(SCALING)
    text = full_text(at)
    for figure in ("0.4011", "0.1978", "0.4223", "0.1554", "0.99995", "0.66524", "0.99966", "22.63", "5.056", "2.028"):
        assert figure in text, figure
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


def _try_charts(at):
    """(spec, {dataset name: DataFrame}) of the two charts of 試してみよう (the page's last two)."""
    out = []
    for el in at.get("vega_lite_chart")[-2:]:
        frames = {ds.name: pa.ipc.open_stream(io.BytesIO(ds.data.data)).read_all().to_pandas()
                  for ds in el.proto.datasets}
        out.append((el.proto.spec, frames))
    return out


def test_scaling_slider_step_keeps_both_chart_specs_and_swaps_their_data():
    """The browser keeps a drawn Vega chart when its spec is unchanged and only swaps the data: a
    slider step must change the datasets (weights, the dashed rule at c) and nothing else."""
    at = open_page(SCALING)
    before = _try_charts(at)
    at.slider(key="scaling_factor").set_value(10.0).run()
    after = _try_charts(at)
    assert [spec for spec, _ in before] == [spec for spec, _ in after]
    (_, bars1), (_, sat1) = before
    (_, bars10), (_, sat10) = after
    p1 = tutor.scaling.saturation_point(tb.SATURATION_SCORES[0], 1.0)
    p10 = tutor.scaling.saturation_point(tb.SATURATION_SCORES[0], 10.0)
    np.testing.assert_allclose(bars1["weights"]["重み"], p1.weights, rtol=1e-12)
    np.testing.assert_allclose(bars10["weights"]["重み"], p10.weights, rtol=1e-12)
    assert sat1["current"]["倍率 c"].tolist() == [1.0] and sat10["current"]["倍率 c"].tolist() == [10.0]
    # the two points at the current c sit on the curves: the page's metrics in numbers
    for sat, p in ((sat1, p1), (sat10, p10)):
        assert sat["here"]["倍率 c"].tolist() == [p.factor] * 2
        np.testing.assert_allclose(sat["here"]["値"], [p.max_weight, p.gradient], rtol=1e-12)
        on_curve = sat["curve"][sat["curve"]["倍率 c"] == p.factor].set_index("系列")["値"]
        np.testing.assert_allclose(on_curve.loc[sat["here"]["系列"]], sat["here"]["値"], rtol=1e-12)
    assert sat1["curve"].equals(sat10["curve"])          # the curve itself does not depend on c


def test_scaling_slider_shows_saturation_and_persists_across_pages():
    at = open_page(SCALING)
    assert metric(at, "最大の重み") == "0.66524"
    at.slider(key="scaling_factor").set_value(10.0).run()
    p = tutor.scaling.saturation_point(tb.SATURATION_SCORES[0], 10.0)
    assert metric(at, "最大の重み") == "0.99995" == f"{p.max_weight:.5f}"
    assert metric(at, "勾配の大きさ max|∂a/∂s|") == "4.5×10⁻⁵"
    at.switch_page(NAIVE).run()
    at.switch_page(SCALING).run()
    assert not at.exception
    assert at.slider(key="scaling_factor").value == 10.0 and metric(at, "最大の重み") == "0.99995"


def test_scaling_tiny_numbers_without_e_notation(pages):
    at = pages[SCALING]
    text = lesson_text(at)
    assert not E_NOTATION.search(text), E_NOTATION.search(text)
    table = next(el for el in lesson_elements(at) if getattr(el, "type", "") == "table").value
    assert table.loc["(20, 10, 0)", "softmax 後の重み"] == "(0.99995, 4.5×10⁻⁵, 2.1×10⁻⁹)"
    assert table.loc["(20, 10, 0)", "勾配の大きさ"] == "4.5×10⁻⁵"
    assert table.loc["(16, 8, 0)", "softmax 後の重み"] == "(0.99966, 0.00034, 1.1×10⁻⁷)"
    # the expander writes the same row with 5 decimals: 0.99995, not 1.0000
    assert r"\approx 0.99995" in text and r"\approx 4.5\times 10^{-5}" in text
    assert r"\approx 2.1\times 10^{-9}" in text and r"\approx 1.0000" not in text
    p = tutor.scaling.saturation_point(tb.SATURATION_SCORES[0], 10.0)
    assert round(p.weights[1], 6) == 4.5e-5 and round(p.gradient, 6) == 4.5e-5


def test_scaling_slider_latex_and_metrics_without_e_notation():
    at = open_page(SCALING)
    at.slider(key="scaling_factor").set_value(20.0).run()
    text = lesson_text(at)
    assert not E_NOTATION.search(text), E_NOTATION.search(text)
    p = tutor.scaling.saturation_point(tb.SATURATION_SCORES[0], 20.0)            # (40, 20, 0)
    assert p.weights[1] < 1e-8 and p.weights[2] < 1e-17
    assert r"2.1\times 10^{-9}" in text and r"4.2\times 10^{-18}" in text
    assert next(m.value for m in at.metric if m.label == "勾配の大きさ max|∂a/∂s|") == "2.1×10⁻⁹"
