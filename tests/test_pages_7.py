"""AppTest for the ⑦ pages: position, block, encdec, output, cost.

Every page: runs without exception, shows the textbook figures (computed by the engine),
reacts to its sliders, and keeps sampling reproducible with a seed.
"""
import numpy as np
import pytest

import tutor
from apphelpers import chart_data, edit_matrix, open_page, page_text
from tutor import textbook as tb

POSITION = "pages/7_position.py"
BLOCK = "pages/8_block.py"
ENCDEC = "pages/9_encdec.py"
OUTPUT = "pages/10_output.py"
COST = "pages/11_cost.py"


def metric(at, label_part: str) -> str:
    hits = [m.value for m in at.metric if label_part in m.label]
    assert hits, f"metric {label_part!r} not found in {[m.label for m in at.metric]}"
    return hits[0]


def check_quiz(at, topic: str) -> None:
    """The page ends with 3 questions of its own topic (calculation and knowledge mixed)."""
    import quizzes
    ids = at.session_state[f"quiz_{topic}__ids"]
    assert len(ids) == 3 and all(quizzes.from_id(i).topic == topic for i in ids)
    assert len([r for r in at.radio if r.key.startswith(f"quiz_{topic}_")]) == 3


def show(token: str) -> str:
    """How the output page prints a token in text ("<eos>" → "〈eos〉")."""
    return token.replace("<", "〈").replace(">", "〉")


# ---------------------------------------------------------------------------
# ⑦-1 position
# ---------------------------------------------------------------------------
def test_position_page_figures():
    at = open_page(POSITION)
    assert not at.exception
    check_quiz(at, "position")
    text = page_text(at)
    for s in ("0.8415", "0.5403", "0.0100", "0.99995"):
        assert s in text
    assert "確認クイズ" in text and "ねらい" in text
    # permutation demo: 0 without PE, engine's value with PE
    pe = tutor.positional_encoding(3, 4)
    with_pe = tutor.position.permutation_demo(tb.X, tb.W_Q, tb.W_K, tb.W_V, [2, 0, 1], pe).max_diff
    assert metric(at, "差の最大値（PE なし）") == "0.000"
    assert metric(at, "差の最大値（PE あり）") == f"{with_pe:.3f}" == "0.714"
    # the heatmap positions × dimensions: 50 × 64 cells, values of the engine's table
    df = chart_data(at, 0)
    assert len(df) == 50 * 64
    cell = df[(df["row"] == 1) & (df["col"] == 0)]["value"].iloc[0]
    assert cell == pytest.approx(np.sin(1.0))


def test_position_sliders_change_output():
    at = open_page(POSITION)
    before = page_text(at)
    at.slider(key="pos_pos").set_value(7).run()
    assert not at.exception
    after = page_text(at)
    assert after != before
    value = tutor.positional_encoding(8, 8)[7, 0]
    assert f"{value:.4f}" in after
    at.select_slider(key="pos_d_model").set_value(16).run()
    assert not at.exception
    charts = at.get("vega_lite_chart")
    df = chart_data(at, len(charts) - 1)        # the try-it heatmap: 30 positions × 16 dims
    assert len(df) == 30 * 16
    assert df["value"].to_numpy() == pytest.approx(tutor.positional_encoding(30, 16).ravel())


def test_position_permutation_and_rope_widgets():
    at = open_page(POSITION)
    at.selectbox(key="pos_perm").set_value("魚・猫・それ").run()
    assert not at.exception
    assert metric(at, "魚・猫・それ：差の最大値（PE なし）") == "0.000"
    assert float(metric(at, "魚・猫・それ：差の最大値（PE あり）")) > 0.01
    at.slider(key="pos_rope_offset").set_value(3).run()
    assert not at.exception
    rope = tutor.position.rope_score([1, 0, 1, 0], [1, 0, 1, 0], 8, 5)
    assert f"{rope:.4f}" in page_text(at)
    # learned position vectors: reproducible from the seed
    at.number_input(key="pos_seed").set_value(5).run()
    table = tutor.position.learned_position_table(4, 4, np.random.default_rng(5))
    assert f"{table[0, 0]:.4f}" in page_text(at)


# ---------------------------------------------------------------------------
# ⑦-5 cost
# ---------------------------------------------------------------------------
def test_cost_page_figures():
    at = open_page(COST)
    assert not at.exception
    check_quiz(at, "cost")
    text = page_text(at)
    sa = tutor.cost.layer_cost("self_attention", 100, 512).operations
    rnn = tutor.cost.layer_cost("recurrent", 100, 512).operations
    assert (f"{sa:,}", f"{rnn:,}") == ("5,120,000", "26,214,400")
    assert metric(at, "自己注意 n²·d（n = 100") == "5,120,000"
    assert metric(at, "再帰 n·d²（n = 100") == "26,214,400"
    for s in ("O(n^2 \\cdot d)", "O(n \\cdot d^2)", "O(1)", "O(n)", "FlashAttention", "RoPE"):
        assert s in text
    # the crossover chart is log-log and holds the engine's curve
    df = chart_data(at, 0)
    row = df[(df["n"] == 512) & (df["層"] == "自己注意")]
    assert row["ops"].iloc[0] == 512 ** 3
    spec = at.get("vega_lite_chart")[0].proto.spec
    assert '"type": "log"' in spec or '"type":"log"' in spec


def test_cost_inputs_change_output():
    at = open_page(COST)
    at.number_input(key="cost_n").set_value(1000).run()
    assert not at.exception
    assert metric(at, "軽いのは") == "再帰（RNN）"
    assert metric(at, "自己注意 n²·d") != ""
    sa = [m.value for m in at.metric if m.label == "自己注意 n²·d"][0]
    assert sa == f"{1000 ** 2 * 512:,}"
    at.select_slider(key="cost_d").set_value(1024).run()
    assert metric(at, "軽いのは") == "自己注意"
    assert "n = d = 1,024" in page_text(at)


def max_diff(at) -> float:
    """The metric prints 5.6×10⁻¹⁶ (never e-notation) or 0."""
    text = metric(at, "出力の差の最大値")
    if text == "0":
        return 0.0
    mantissa, exponent = text.split("×10")
    return float(mantissa) * 10.0 ** int(exponent.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")))


def test_cost_tiled_attention_live():
    at = open_page(COST)
    assert max_diff(at) < 1e-12
    assert metric(at, "ふつうの Attention が抱えるスコア") == f"{256 * 256:,} 個"
    assert metric(at, "タイル版が一度に抱えるスコア") == f"{32 * 32:,} 個"
    at.select_slider(key="cost_tile_block").set_value(8).run()
    at.toggle(key="cost_tile_causal").set_value(True).run()
    assert not at.exception
    assert metric(at, "タイル版が一度に抱えるスコア") == "64 個"
    computed, skipped = metric(at, "計算したブロック").split(" / ")
    assert int(skipped) > 0
    assert max_diff(at) < 1e-12


# ---------------------------------------------------------------------------
# ⑦-4 output
# ---------------------------------------------------------------------------
def test_output_page_temperature_figures():
    at = open_page(OUTPUT)
    assert not at.exception
    check_quiz(at, "output")
    text = page_text(at)
    expected = {1.0: ("0.665", "0.245", "0.090"), 0.5: ("0.867", "0.117", "0.016"), 2.0: ("0.506", "0.307", "0.186")}
    for t, figures in expected.items():
        probs = tutor.output.probabilities(tb.TEMPERATURE_LOGITS, t)
        assert tuple(f"{p:.3f}" for p in probs) == figures
        for f in figures:
            assert f in text
    for s in ("貪欲法", "top-k", "top-p", "ビームサーチ", "ソフトマックス"):
        assert s in text
    # the temperature slider changes the distribution
    at.slider(key="output_temp").set_value(0.3).run()
    assert not at.exception
    probs = tutor.output.probabilities(tb.TEMPERATURE_LOGITS, 0.3)
    text = page_text(at)
    assert f"{probs[0]:.3f}" in text and f"{probs[2]:.3f}" in text


def test_output_sampling_reproducible_with_seed():
    at = open_page(OUTPUT)
    # defaults: previous token を, T = 1.5, k = 2, p = 0.9
    probs = tutor.output.probabilities(tutor.output.toy_next_logits(tutor.output.TOY_VOCAB.ids(["を"])), 1.5)
    for strategy in ("sample", "top_k", "top_p"):
        at.selectbox(key="output_strategy").set_value(strategy).run()
        seen = {}
        for seed in ((123, 7, 123, 1, 2, 3) if strategy == "sample" else (123, 7, 123)):
            at.number_input(key="output_seed").set_value(seed).run()
            assert not at.exception
            chosen = metric(at, "選ばれたトークン")
            assert seen.setdefault(seed, chosen) == chosen          # same seed → same token
            expected = tutor.output.choose(probs, strategy, np.random.default_rng(seed), k=2, p=0.9)
            assert chosen == show(tutor.output.TOY_VOCAB[expected.index])  # exactly the engine's draw
        if strategy == "sample":
            assert len(set(seen.values())) >= 2                     # different seeds do differ
    # greedy ignores the seed
    at.selectbox(key="output_strategy").set_value("greedy").run()
    assert metric(at, "選ばれたトークン") == tutor.output.TOY_VOCAB[int(np.argmax(probs))]


def test_output_generation_button_appends_steps():
    at = open_page(OUTPUT)
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
    at = open_page(OUTPUT)
    at.selectbox(key="output_strategy").set_value("greedy").run()
    at.selectbox(key="output_prompt").set_value("を").run()
    for _ in range(3):
        at.button(key="output_gen_one").click().run()
    assert not at.exception
    assert "を 食べた 。 〈eos〉" in page_text(at)
    assert at.button(key="output_gen_one").disabled


# ---------------------------------------------------------------------------
# ⑦-2 block
# ---------------------------------------------------------------------------
def test_block_page_figures():
    at = open_page(BLOCK)
    assert not at.exception
    check_quiz(at, "block")
    text = page_text(at)
    assert f"{tutor.multihead.mha_param_count(512):,}" == "1,048,576" and "1,048,576" in text   # without biases (caption)
    assert f"{tutor.multihead.mha_param_count(512, bias=True):,}" == "1,050,624" and "1,050,624" in text   # table: with biases, like FFN
    assert f"{tutor.block.ffn_param_count(512, 2048):,}" in text
    assert tutor.head_dim(512, 8) == 64
    for s in ("Post-LN — 原論文", "Pre-LN — GPT", "RMSNorm", "\\mathrm{LayerNorm}\\big(x + \\mathrm{Sublayer}(x)\\big)",
              "x + \\mathrm{Sublayer}\\big(\\mathrm{LayerNorm}(x)\\big)", "SwiGLU", "GELU", "ReLU"):
        assert s in text, s
    ln = tutor.layer_norm([1, 2, 3, 4], eps=0)
    assert f"({ln[0]:.3f},\\ {ln[1]:.3f},\\ {ln[2]:.3f},\\ {ln[3]:.3f})" in text   # (−1.342, −0.447, 0.447, 1.342)
    rms = tutor.block.rms_norm([1, 2, 3, 4], eps=0)
    assert f"{rms[0]:.3f}" in text
    # LayerNorm vs BatchNorm: example 1 unchanged under LN, changed under BN
    assert metric(at, "例 1 の差（層正規化）") == "0.000"
    assert float(metric(at, "例 1 の差（バッチ正規化）")) > 0.5


def test_block_batch_editor_and_ffn_widgets():
    at = open_page(BLOCK)
    edit_matrix(at, "block_batch_others", [["2", "0", "1", "1"], ["0", "0", "4", "0"]])   # = batch A
    assert not at.exception
    assert metric(at, "例 1 の差：層正規化") == "0.000"
    assert metric(at, "例 1 の差：バッチ正規化") == "0.000"
    edit_matrix(at, "block_batch_others", [["9", "9", "9", "1"], ["-3", "0", "4", "0"]])
    assert metric(at, "例 1 の差：層正規化") == "0.000"
    assert float(metric(at, "例 1 の差：バッチ正規化")) > 0.1
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
    assert metric(at, "猫だけを FFN に通した結果との差") == "0.000"


# ---------------------------------------------------------------------------
# ⑦-3 encdec
# ---------------------------------------------------------------------------
def test_encdec_page_figures():
    at = open_page(ENCDEC)
    assert not at.exception
    check_quiz(at, "encdec")
    text = page_text(at)
    for s in ("Source-Target Attention", "Seq2Seq", "BERT", "GPT", "双方向", "因果マスク", "N = 6"):
        assert s in text, s
    # the whole-picture diagram renders (DOT string, no graphviz package needed) with links next to it
    dot = at.get("graphviz_chart")[0].proto.spec
    assert "Source-Target Attention" in dot and "位置エンコーディング" in dot
    links = {el.proto.label: el.proto.page for el in at.get("page_link")}
    import ui
    for key in ("position", "formula", "block", "output", "cost"):   # labels = the pages' own titles
        assert links.get(ui.PAGE_BY_KEY[key].label) == key, key
    # hand example: ④'s cross-attention example (ate, it), 2 target rows × 3 source columns,
    # pencil-rounded like ④ (the exact weights agree to 3 decimals)
    cross = tutor.cross_attention(tb.CROSS_X_DEC, tb.X, tb.W_Q, tb.W_K, tb.W_V)
    hand = chart_data(at, 0)
    assert len(hand) == 2 * 3
    assert hand["value"].to_numpy() == pytest.approx(cross.weights.ravel(), abs=5e-4)
    # the tiny seeded model: n_tgt × n_src heatmap (5 × 6) equal to the engine's weights
    model = tutor.encdec.TinyEncoderDecoder.from_seed(0)
    res = model.decode_step(tutor.encdec.TINY_VOCAB.ids("猫 は 魚 を 食べた 。"), tutor.encdec.TINY_VOCAB.ids("<bos> the cat ate fish"))
    df = chart_data(at, 1)
    assert len(df) == 5 * 6
    assert df["value"].to_numpy() == pytest.approx(res.cross_weights[0][0].ravel())
    # decoder self-attention: exact zeros above the diagonal
    dec = chart_data(at, 3)["value"].to_numpy().reshape(5, 5)
    assert np.all(dec[np.triu_indices(5, 1)] == 0)
    assert metric(at, "Source-Target Attention の重みの形") == "5 × 6"


def test_encdec_inputs_change_output():
    at = open_page(ENCDEC)
    at.text_input(key="encdec_tgt").set_value("<bos> the cat").run()
    assert not at.exception
    assert metric(at, "Source-Target Attention の重みの形") == "3 × 6"
    at.selectbox(key="encdec_layer").set_value(2).run()
    at.selectbox(key="encdec_head").set_value(2).run()
    at.number_input(key="encdec_seed").set_value(3).run()
    assert not at.exception
    model = tutor.encdec.TinyEncoderDecoder.from_seed(3)
    res = model.decode_step(tutor.encdec.TINY_VOCAB.ids("猫 は 魚 を 食べた 。"), tutor.encdec.TINY_VOCAB.ids("<bos> the cat"))
    n = len(at.get("vega_lite_chart"))
    df = chart_data(at, n - 2)                   # the try-it heatmap (the expander's chart is last)
    assert df["value"].to_numpy() == pytest.approx(res.cross_weights[1][1].ravel())
    # an unknown word: a Japanese error, the last valid result stays
    at.text_input(key="encdec_src").set_value("犬 は 魚 を 食べた").run()
    assert not at.exception
    assert at.error and "語彙にない" in at.error[0].value and "〈bos〉" in at.error[0].value
    assert metric(at, "Source-Target Attention の重みの形") == "3 × 6"


# ---------------------------------------------------------------------------
# quiz sections of the ⑦ pages
# ---------------------------------------------------------------------------
def test_quiz_link_reopens_question_and_wrong_answer_names_the_mistake():
    import quizzes
    qid = "cost.self_attention_ops#42"
    q = quizzes.from_id(qid)
    at = open_page(COST, query={"q": qid})
    assert not at.exception
    assert q.stem in page_text(at)
    wrong = next(i for i in range(4) if i != q.answer)
    radio = next(r for r in at.radio if r.key.endswith("_1__choice"))
    radio.set_value(wrong)  # a form: sent with the submit
    next(b for b in at.button if b.key.endswith("_1__submit")).click().run()
    assert not at.exception
    assert any(q.misconceptions[wrong] in w.value for w in at.warning)
    assert any("不正解" in e.value for e in at.error)
