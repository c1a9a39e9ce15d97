"""AppTest of ⑦-5 /cost, section by section: Table 1 and the O(·) terms (ねらい・解説), n = 100 / d = 512
(手計算), the crossover chart (可視化), inputs and live tiled attention (試してみよう), a quiz link reopening
its question."""
import tutor

from apphelpers import answer_card, chart_data, check_quiz, metric_part, open_page, page_text, sections_of, show_section


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
    assert sections_of(at) == ["ねらい・解説", "手計算", "可視化", "試してみよう", "確認クイズ"]
    text = page_text(at)
    for s in ("O(n^2 \\cdot d)", "O(n \\cdot d^2)", "O(1)", "O(n)", "| 層 | 計算量（1 層） | 逐次操作 | 最大経路長 |"):
        assert s in text
    show_section(at, "hand")
    sa = tutor.cost.layer_cost("self_attention", 100, 512).operations
    rnn = tutor.cost.layer_cost("recurrent", 100, 512).operations
    assert (f"{sa:,}", f"{rnn:,}") == ("5,120,000", "26,214,400")
    assert metric_part(at, "自己注意 n²·d（n = 100") == "5,120,000"
    assert metric_part(at, "再帰 n·d²（n = 100") == "26,214,400"
    assert "軽いのは **自己注意** です" in page_text(at)
    show_section(at, "try")
    for s in ("FlashAttention", "RoPE", "長い系列のコストを抑える 2 つのアプローチ"):
        assert s in page_text(at)
    # 可視化: the crossover chart is log-log and holds the engine's curve
    show_section(at, "visual")
    df = chart_data(at, 0)
    row = df[(df["n"] == 512) & (df["層"] == "自己注意")]
    assert row["ops"].iloc[0] == 512 ** 3
    spec = at.get("vega_lite_chart")[0].proto.spec
    assert '"type": "log"' in spec or '"type":"log"' in spec
    check_quiz(at, "cost")


def test_cost_inputs_change_output():
    at = open_page(COST, section="try")
    at.number_input(key="cost_n").set_value(1000).run()
    assert not at.exception
    assert metric_part(at, "軽いのは") == "再帰（RNN）"
    assert metric_part(at, "自己注意 n²·d") != ""
    sa = [m.value for m in at.metric if m.label == "自己注意 n²·d"][0]
    assert sa == f"{1000 ** 2 * 512:,}"
    at.select_slider(key="cost_d").set_value(1024).run()
    assert metric_part(at, "軽いのは") == "自己注意"
    assert "n = d = 1,024" in page_text(at)
    # the approaches' example below the chart is rerun with the same n and d (one fragment)
    r = tutor.cost.layer_cost("restricted_self_attention", 1000, 1024, r=64).operations
    assert f"例：n = 1,000、d = 1,024 で近傍 r = 64 だけを見ると、演算量 r·n·d = {r:,}（全部を見ると {1000 ** 2 * 1024:,}）" in page_text(at)
    # 手計算 stays the paper's n = 100, d = 512; back in 試してみよう, the learner's n and d are kept
    show_section(at, "hand")
    assert metric_part(at, "自己注意 n²·d（n = 100") == "5,120,000"
    show_section(at, "try")
    assert at.number_input(key="cost_n").value == 1000 and at.select_slider(key="cost_d").value == 1024
    assert metric_part(at, "軽いのは") == "自己注意"


def test_cost_tiled_attention_live():
    at = open_page(COST, section="try")
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
