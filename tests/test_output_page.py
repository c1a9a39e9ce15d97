"""AppTest of ⑦-4 /output, section by section: the explanation's terms (ねらい・解説), the temperature
table (手計算), the tiny model's logits and the temperature bars (可視化), the temperature explorer (every T
of its slider), reproducible sampling, generation steps, greedy stop at EOS (試してみよう)."""
import io
import json

import numpy as np
import pyarrow as pa

import tutor
from tutor import textbook as tb

from apphelpers import chart_data, check_quiz, metric_part, open_page, page_text, sections_of, show_section, tables


OUTPUT = "pages/10_output.py"


def show(token: str) -> str:
    """How the output page prints a token in text ("<eos>" → "〈eos〉")."""
    return token.replace("<", "〈").replace(">", "〉")


def test_output_page_temperature_figures():
    at = open_page(OUTPUT)
    assert not at.exception
    assert sections_of(at) == ["ねらい・解説", "手計算", "可視化", "試してみよう", "確認クイズ"]
    text = page_text(at)
    for s in ("貪欲法", "top-k", "top-p", "ビームサーチ", "ソフトマックス", "「可視化」の小さなモデルは共有を使います"):
        assert s in text
    show_section(at, "hand")
    (table,) = tables(at)
    expected = {1.0: ("0.665", "0.245", "0.090"), 0.5: ("0.867", "0.117", "0.016"), 2.0: ("0.506", "0.307", "0.186")}
    for t, figures in expected.items():
        probs = tutor.output.probabilities(tb.TEMPERATURE_LOGITS, t)
        assert tuple(f"{p:.3f}" for p in probs) == figures
        assert tuple(table.loc[f"T = {t:.1f}", ["P(A)", "P(B)", "P(C)"]]) == figures
    # 可視化: one bar chart per T of the table, holding the engine's probabilities
    show_section(at, "visual")
    assert "温度で分布の形が変わる" in [h.value for h in at.subheader]
    bars = [chart_data(at, i) for i in range(len(at.get("vega_lite_chart")))][-len(tb.TEMPERATURES):]
    for t, df in zip(tb.TEMPERATURES, bars):
        assert df["token"].tolist() == ["A", "B", "C"]
        np.testing.assert_allclose(df["prob"], tutor.output.probabilities(tb.TEMPERATURE_LOGITS, t), rtol=1e-12)
    check_quiz(at, "output")


def _tiny_model_probs(seed: int) -> np.ndarray:
    model = tutor.encdec.TinyDecoderOnly.from_seed(seed)
    return tutor.output.probabilities(model.forward(model.vocab.ids("猫 は 魚 を")).next_logits, 1.0)


def test_visual_tiny_model_follows_its_seed():
    """可視化's untrained decoder: its next-token bars are the engine's softmax(z) for the model's seed."""
    at = open_page(OUTPUT, section="visual")
    df = chart_data(at, 0)
    np.testing.assert_allclose(df["prob"], _tiny_model_probs(0), rtol=1e-12)
    at.number_input(key="output_model_seed").set_value(7).run()
    assert not at.exception
    df = chart_data(at, 0)
    np.testing.assert_allclose(df["prob"], _tiny_model_probs(7), rtol=1e-12)
    assert not np.allclose(_tiny_model_probs(7), _tiny_model_probs(0))


def _explorer(at):
    """(spec, {dataset name: DataFrame}) of 温度を動かす's chart (the one whose param is T)."""
    for el in at.get("vega_lite_chart"):
        spec = json.loads(el.proto.spec)
        if [p["name"] for p in spec.get("params", [])] == ["T"]:
            return spec, {ds.name: pa.ipc.open_stream(io.BytesIO(ds.data.data)).read_all().to_pandas()
                          for ds in el.proto.datasets}
    raise AssertionError("no chart with the temperature slider")


def test_temperature_try_it_holds_every_T_of_its_slider_computed_by_the_engine():
    """温度を動かす's slider is Vega's own (a param bound to a range input): a step filters the
    data in the browser, so every T the slider can reach is in the chart, computed by the engine."""
    spec, data = _explorer(open_page(OUTPUT, section="try"))
    (param,) = spec["params"]
    temps = tutor.output.TRY_TEMPERATURES
    assert param["value"] == 1.0 and param["bind"]["input"] == "range" and param["bind"]["name"].strip() == "温度 T"
    assert (param["bind"]["min"], param["bind"]["max"], param["bind"]["step"]) == (0.1, 3.0, 0.1)
    assert spec["usermeta"]["embedOptions"]["renderer"] == "svg"     # the readout is text, not pixels
    assert data["readout"]["T"].tolist() == list(temps) and len(temps) == 30
    for t in temps:
        bars = data["bars"][data["bars"]["T"] == t]
        assert bars["トークン"].tolist() == ["A", "B", "C"]
        np.testing.assert_allclose(bars["確率"], tutor.output.probabilities(tb.TEMPERATURE_LOGITS, t), rtol=1e-12)
    readout = data["readout"].set_index("T")["読み"]
    assert readout[1.0].split("\n") == ["T = 1.0", "z / T = (2.00, 1.00, 0.00)", "softmax(z / T) = (0.665, 0.245, 0.090)"]
    assert readout[0.5].split("\n")[2] == "softmax(z / T) = (0.867, 0.117, 0.016)"
    assert readout[0.1].split("\n")[1:] == ["z / T = (20.00, 10.00, 0.00)", "softmax(z / T) = (1.000, 4.5×10⁻⁵, 2.1×10⁻⁹)"]
    shown = data["bars"][data["bars"]["T"] == 0.1]["表示"].tolist()
    assert shown == ["1.000", "4.5×10⁻⁵", "2.1×10⁻⁹"]                  # a tiny probability is never "0.000"
    # the readout and the bars show the current T only
    assert [v["transform"] for v in spec["vconcat"]] == [[{"filter": "abs(datum['T'] - T) < 1e-6"}]] * 2


def test_output_sampling_reproducible_with_seed():
    at = open_page(OUTPUT, section="try")
    # defaults: previous token を, T = 1.5, k = 2, p = 0.9
    probs = tutor.output.probabilities(tutor.output.toy_next_logits(tutor.output.TOY_VOCAB.ids(["を"])), 1.5)
    for strategy in ("sample", "top_k", "top_p"):
        at.selectbox(key="output_strategy").set_value(strategy).run()
        seen = {}
        for seed in ((123, 7, 123, 1, 2, 3) if strategy == "sample" else (123, 7, 123)):
            at.number_input(key="output_seed").set_value(seed).run()
            assert not at.exception
            chosen = metric_part(at, "選ばれたトークン")
            assert seen.setdefault(seed, chosen) == chosen          # same seed → same token
            expected = tutor.output.choose(probs, strategy, np.random.default_rng(seed), k=2, p=0.9)
            assert chosen == show(tutor.output.TOY_VOCAB[expected.index])  # exactly the engine's draw
        if strategy == "sample":
            assert len(set(seen.values())) >= 2                     # different seeds do differ
    # greedy ignores the seed
    at.selectbox(key="output_strategy").set_value("greedy").run()
    assert metric_part(at, "選ばれたトークン") == tutor.output.TOY_VOCAB[int(np.argmax(probs))]


def test_output_generation_button_appends_steps():
    at = open_page(OUTPUT, section="try")
    assert len(at.expander) == 0
    at.button(key="output_gen_one").click().run()
    assert not at.exception
    assert len(at.expander) == 1
    at.button(key="output_gen_one").click().run()
    assert len(at.expander) == 2
    # the steps equal the engine's reproducible steps (defaults: top_k, seed 0, T = 1.5, k = 2, prompt 猫)
    ids = tutor.output.TOY_VOCAB.ids(["猫"])
    s1 = tutor.output.generation_step(ids, "top_k", 0, 1.5, k=2, p=0.9)
    s2 = tutor.output.generation_step(ids + (s1.chosen,), "top_k", 0, 1.5, k=2, p=0.9)
    labels = [e.label for e in at.expander]
    assert labels[0].endswith("→ " + show(tutor.output.TOY_VOCAB[s1.chosen]))
    assert labels[1].endswith("→ " + show(tutor.output.TOY_VOCAB[s2.chosen]))
    at.button(key="output_gen_reset").click().run()
    assert len(at.expander) == 0


def test_output_greedy_generation_reaches_eos_and_stops():
    at = open_page(OUTPUT, section="try")
    at.selectbox(key="output_strategy").set_value("greedy").run()
    at.selectbox(key="output_prompt").set_value("を").run()
    for _ in range(3):
        at.button(key="output_gen_one").click().run()
    assert not at.exception
    assert "を 食べた 。 〈eos〉" in page_text(at)
    assert at.button(key="output_gen_one").disabled


def test_try_settings_and_steps_are_kept_while_the_learner_opens_other_sections():
    """試してみよう's settings and generated steps live in the session: back from 手計算, they are as left."""
    at = open_page(OUTPUT, section="try")
    at.selectbox(key="output_strategy").set_value("greedy").run()
    at.button(key="output_gen_one").click().run()
    before = [e.label for e in at.expander]
    assert len(before) == 1
    show_section(at, "hand")
    assert not at.expander and not [s for s in at.selectbox if s.key == "output_strategy"]
    show_section(at, "try")
    assert at.selectbox(key="output_strategy").value == "greedy"
    assert [e.label for e in at.expander] == before
    probs = tutor.output.probabilities(tutor.output.toy_next_logits(tutor.output.TOY_VOCAB.ids(["を"])), 1.5)
    assert metric_part(at, "選ばれたトークン") == tutor.output.TOY_VOCAB[int(np.argmax(probs))]
