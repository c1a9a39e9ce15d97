"""AppTest of ⑦-5 /cost: figures, inputs, live tiled attention, a quiz link reopening its question."""
import tutor

from apphelpers import answer_card, chart_data, check_quiz, metric_part, open_page, page_text


COST = "pages/11_cost.py"


def max_diff(at) -> float:
    """The metric prints 5.6×10⁻¹⁶ (never e-notation) or 0."""
    text = metric_part(at, "出力の差の最大値")
    if text == "0":
        return 0.0
    mantissa, exponent = text.split("×10")
    return float(mantissa) * 10.0 ** int(exponent.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")))


def test_cost_page_figures():
    at = open_page(COST)
    assert not at.exception
    check_quiz(at, "cost")
    text = page_text(at)
    sa = tutor.cost.layer_cost("self_attention", 100, 512).operations
    rnn = tutor.cost.layer_cost("recurrent", 100, 512).operations
    assert (f"{sa:,}", f"{rnn:,}") == ("5,120,000", "26,214,400")
    assert metric_part(at, "自己注意 n²·d（n = 100") == "5,120,000"
    assert metric_part(at, "再帰 n·d²（n = 100") == "26,214,400"
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
    assert metric_part(at, "軽いのは") == "再帰（RNN）"
    assert metric_part(at, "自己注意 n²·d") != ""
    sa = [m.value for m in at.metric if m.label == "自己注意 n²·d"][0]
    assert sa == f"{1000 ** 2 * 512:,}"
    at.select_slider(key="cost_d").set_value(1024).run()
    assert metric_part(at, "軽いのは") == "自己注意"
    assert "n = d = 1,024" in page_text(at)


def test_cost_tiled_attention_live():
    at = open_page(COST)
    assert max_diff(at) < 1e-12
    assert metric_part(at, "ふつうの Attention が抱えるスコア") == f"{256 * 256:,} 個"
    assert metric_part(at, "タイル版が一度に抱えるスコア") == f"{32 * 32:,} 個"
    at.select_slider(key="cost_tile_block").set_value(8).run()
    at.toggle(key="cost_tile_causal").set_value(True).run()
    assert not at.exception
    assert metric_part(at, "タイル版が一度に抱えるスコア") == "64 個"
    computed, skipped = metric_part(at, "計算したブロック").split(" / ")
    assert int(skipped) > 0
    assert max_diff(at) < 1e-12


def test_quiz_link_reopens_question_and_wrong_answer_names_the_mistake():
    import quizzes
    qid = "cost.self_attention_ops#42"
    q = quizzes.from_id(qid)
    at = open_page(COST, query={"q": qid})
    assert not at.exception
    assert q.stem in page_text(at)
    wrong = next(i for i in range(4) if i != q.answer)
    answer_card(at, 1, wrong)
    assert not at.exception
    assert any(q.misconceptions[wrong] in w.value for w in at.warning)
    assert any("不正解" in e.value for e in at.error)
