"""AppTest for ⓪-2 Seq2Seq と Attention の誕生 (pages/0_seq2seq.py), section by section (ui.sections).

Every number checked is a fresh engine computation (tutor.seq2seq) on the inputs the page was
given, or the worked example's value computed by hand in tests/test_seq2seq.py.
"""
import numpy as np
import pytest

import quizzes
from apphelpers import (
    answer_card, edit_matrix, frame_after, heatmaps, metric, numbers, open_page, page_text,
    rows_of, sections_of, show_section, tables
)
from tutor import seq2seq as s2s
from ui.validate import format_number

PAGE = "pages/0_seq2seq.py"
SECTIONS = ["ねらい・解説", "手計算", "可視化", "試してみよう", "確認クイズ"]
SRC = list(s2s.SRC_TOKENS)
TEXTBOOK_ALPHA = ["0.240", "0.513", "0.247"]


def alphas(at) -> list[str]:
    """試してみよう's three metrics: α of each source word."""
    return [metric(at, f"{t} への重み α") for t in SRC]


def hand_table(at) -> dict[str, list[str]]:
    """手計算's table of scores and weights: row name → the values under 猫, 魚, 食べた."""
    table = next(t for t in tables(at) if "値" in t.columns)
    return {r["値"]: [r[t] for t in SRC] for _, r in table.iterrows()}


def assert_weights_shown(at, additive, dot=None) -> None:
    """可視化's first heatmap: α of additive attention (and of dot-product attention) over SRC."""
    h = heatmaps(at)[0]
    assert (h.rows, h.cols) == (["加法注意", "内積注意"], list(SRC))
    expected = [additive] + ([] if dot is None else [dot])
    assert h.texts[:len(expected)] == [[format_number(v, 3) for v in row] for row in expected]


def test_sections_sidebar_and_its_place_after_the_word_vectors():
    at = open_page(PAGE)
    assert not at.exception and not at.error
    assert sections_of(at) == SECTIONS
    subheaders = [h.value for h in at.subheader]
    assert subheaders[:2] == ["ねらい", "解説"]
    assert "RNN のエンコーダ・デコーダと固定長のボトルネック" in subheaders      # 解説 is drawn in the first tab
    links = [p.proto.page for p in at.sidebar.get("page_link")]
    assert links.index("wordvec") < links.index("seq2seq") < links.index("naive")      # ⓪-1 → ⓪-2 → ①
    assert at.title[0].value == "⓪-2 Seq2Seq と Attention の誕生"
    assert not any(p.proto.label.startswith("次へ：①") for p in at.main.get("page_link"))
    show_section(at, "quiz")
    assert any(p.proto.label.startswith("次へ：① 素朴なAttention") for p in at.main.get("page_link"))


def test_worked_example_numbers_section_by_section():
    at = open_page(PAGE)
    text = page_text(at)
    assert "**256 個**" in text and "7,680 個" in text                  # 解説: the bottleneck in numbers
    show_section(at, "hand")
    text = page_text(at)
    for figure in ("0.964", "1.726", "0.995", "(0.487,\\ 0.760)", "**魚**（0.513）", "(0.578, 0.845)", "= (1, 1) だけ"):
        assert figure in text, figure
    assert r"(-1) \times (-0.762) + 1 \times 0.964" in text            # the products written out
    assert "「試してみよう」で書き換えると、この手計算も変わります" in text and "下の「試してみよう」" not in text
    assert hand_table(at)["重み α（加法注意）"] == TEXTBOOK_ALPHA
    show_section(at, "visual")
    r = s2s.additive_attention(s2s.DEC_STATE, s2s.ENC_STATES, s2s.W_DEC, s2s.U_ENC, s2s.V_ATT)
    assert_weights_shown(at, r.weights, s2s.dot_attention(s2s.DEC_STATE, s2s.ENC_STATES).weights)
    show_section(at, "try")
    assert alphas(at) == TEXTBOOK_ALPHA


def test_teacher_forcing_tables_and_counts():
    at = open_page(PAGE, section="visual")
    assert metric(at, "教師強制での正解数") == "5 / 6"
    assert metric(at, "自分の出力を入れたときの正解数") == "2 / 6"
    teacher, free = s2s.exposure_gap(s2s.TF_LOGITS, s2s.TF_VOCAB, s2s.TF_TARGET)
    found = {tuple(t["入力"]): list(t["正誤"]) for t in tables(at) if "入力" in t.columns}
    assert found[teacher.inputs] == ["○", "○", "×", "○", "○", "○"]
    assert found[free.inputs] == ["○", "○", "×", "×", "×", "×"]
    assert f"{teacher.loss:.3f}" in page_text(at)


def test_editing_states_recomputes_every_section_and_bad_cells_keep_the_last_valid():
    """An edit of H and s in 試してみよう is what 手計算 and 可視化 compute with when opened next."""
    at = open_page(PAGE, section="try")
    h = np.array(s2s.ENC_STATES)
    h[2] = [0, 3]                                                       # 食べた := close to s = (0, 1)
    edit_matrix(at, "seq2seq_h", rows_of(h))
    r = s2s.additive_attention(s2s.DEC_STATE, h, s2s.W_DEC, s2s.U_ENC, s2s.V_ATT)
    want = [f"{x:.3f}" for x in r.weights]
    assert alphas(at) == want != TEXTBOOK_ALPHA
    for bad in ("abc", "", "nan", "inf", "1e308"):
        edit_matrix(at, "seq2seq_h", rows_of(h, {(0, 0): bad}))
        errors = [e.value for e in at.error]
        assert any("猫 行・成分1 列のセル" in e and "最後に正しかった値" in e for e in errors), errors
        assert not at.exception
        assert alphas(at) == want                                       # the last VALID input
    show_section(at, "visual")                                          # the bad cell left: the last valid H
    assert_weights_shown(at, r.weights)
    show_section(at, "try")
    s = np.array([[1.0, -1.0]])
    edit_matrix(at, "seq2seq_h", rows_of(h))
    edit_matrix(at, "seq2seq_s", rows_of(s))
    r = s2s.additive_attention(s[0], h, s2s.W_DEC, s2s.U_ENC, s2s.V_ATT)
    dot = s2s.dot_attention(s[0], h)
    assert alphas(at) == [f"{x:.3f}" for x in r.weights]
    assert not at.error
    show_section(at, "hand")
    assert hand_table(at)["重み α（加法注意）"] == [f"{x:.3f}" for x in r.weights]
    assert hand_table(at)["重み α（内積）"] == [f"{x:.3f}" for x in dot.weights]
    np.testing.assert_array_equal(numbers(frame_after(at, "エンコーダの状態 $H$")), h)
    np.testing.assert_array_equal(numbers(frame_after(at, "デコーダの状態 s")), s)
    assert f"**{SRC[r.top]}**（{r.weights[r.top]:.3f}）" in page_text(at)
    show_section(at, "visual")
    assert_weights_shown(at, r.weights, dot.weights)


def test_editing_parameters_w_u_v_reaches_the_hand_calculation():
    at = open_page(PAGE, section="try")
    v = np.array([[1.0, 1.0]])
    w = np.array([[2.0, 0.0], [0.0, -1.0]])
    edit_matrix(at, "seq2seq_v", rows_of(v))
    edit_matrix(at, "seq2seq_w", rows_of(w))
    r = s2s.additive_attention(s2s.DEC_STATE, s2s.ENC_STATES, w, s2s.U_ENC, v[0])
    assert alphas(at) == [f"{x:.3f}" for x in r.weights] != TEXTBOOK_ALPHA
    show_section(at, "hand")
    text = page_text(at)
    assert r"v = \begin{pmatrix} 1 \\ 1 \end{pmatrix}" in text
    assert r"W = \begin{pmatrix} 2 & 0 \\ 0 & -1 \end{pmatrix}" in text
    assert hand_table(at)["重み α（加法注意）"] == [f"{x:.3f}" for x in r.weights]


def test_clipping_inputs():
    at = open_page(PAGE, section="try")
    assert (metric(at, "‖g‖"), metric(at, "倍率 min(1, c/‖g‖)"), metric(at, "クリップ後の g")) == ("5", "0.200", "(0.600, 0.800)")
    edit_matrix(at, "seq2seq_g", [["6", "8"]])
    at.number_input(key="seq2seq_c").set_value(2.0).run()
    r = s2s.clip_by_norm([6.0, 8.0], 2.0)
    assert metric(at, "‖g‖") == "10" and metric(at, "クリップ後の g") == "(1.200, 1.600)"
    assert r.clipped.tolist() == pytest.approx([1.2, 1.6])
    at.number_input(key="seq2seq_c").set_value(50.0).run()
    assert metric(at, "クリップ後の g") == "(6, 8)"
    assert any("勾配はそのまま" in c.value for c in at.caption)


def test_quiz_answered_right_and_wrong():
    at = open_page(PAGE, section="quiz")
    ids = list(at.session_state["quiz_seq2seq__ids"])
    assert len(ids) == 3 and all(quizzes.from_id(q).topic == "seq2seq" for q in ids)
    q = quizzes.from_id(ids[0])
    answer_card(at, 1, q.answer)
    assert not at.exception
    assert any("正解です" in s.value for s in at.success)
    q2 = quizzes.from_id(ids[1])
    wrong = (q2.answer + 1) % 4
    answer_card(at, 2, wrong)
    assert any(q2.misconceptions[wrong] in w.value for w in at.warning)
    attempts = at.session_state["progress"]["attempts"]
    assert [(a["qid"], a["correct"]) for a in attempts] == [(q.id, True), (q2.id, False)]


def test_vanishing_and_exploding_table_and_slider():
    at = open_page(PAGE, section="visual")
    table = next(v for v in tables(at) if "t = 20" in v.columns)
    assert list(table["a"]) == ["0.5", "1.0", "1.5"]
    assert list(table["t = 20"]) == ["9.5×10⁻⁷", "1.000", "3,325"]
    assert list(table["t = 5"]) == ["0.031", "1.000", "7.594"]
    show_section(at, "try")
    assert metric(at, "30 段さかのぼった勾配の長さ") == f"{1.2 ** 30:.3f}" == "237.376"
    assert metric(at, "上のしきい値 c でクリップした長さ") == "1.000"
    at.slider(key="seq2seq_a").set_value(0.5).run()
    assert metric(at, "30 段さかのぼった勾配の長さ") == "9.3×10⁻¹⁰"
    assert metric(at, "上のしきい値 c でクリップした長さ") == "9.3×10⁻¹⁰"     # short gradients are not stretched


# ---------------------------------------------------------------------------
# issue 37 §3: the names and history around Seq2Seq
# ---------------------------------------------------------------------------
from apphelpers import flat_tex  # noqa: E402
from tutor import seq2seq_rnn as rnn  # noqa: E402

FOLDED = ["RNN の形：エルマン・ジョルダン・双方向 RNN", "注意のいろいろ：ソフトとハード、グローバルとローカル",
          "LSTM と GRU のゲート", "BPTT・勾配爆発と勾配クリッピング",
          "教師強制・露出バイアスとスケジュールドサンプリング"]      # word vectors: ⓪-1 (tests/test_wordvec_page.py)


def test_explain_keeps_the_core_open_and_folds_the_exam_words_one_tap_away():
    """解説 shows the chapter's core (the bottleneck, the exam's names for the hidden state,
    additive attention); the exam words of the RNN era are lazy expanders, closed (nothing of
    theirs is sent until tapped), and opened they hold every fact."""
    closed = open_page(PAGE, unfold=False)
    subheaders = [h.value for h in closed.subheader]
    assert subheaders[2:6] == ["RNN のエンコーダ・デコーダと固定長のボトルネック", "試験での呼び名：中間層・隠れ層・隠れ状態",
                               "Attention の誕生：加法注意（Bahdanau ら、2014 年）", "RNN の時代の用語"]
    assert [e.label for e in closed.expander] == FOLDED
    assert not any(fact in page_text(closed) for fact in ("Hochreiter", "**CEC**", "Luong らは 2015 年", "Bengio ら", "Elman"))
    at = open_page(PAGE)
    text = page_text(at)
    for fact in ("1997 年に Hochreiter と Schmidhuber", "**CEC**", "1999〜2000 年に Gers ら", "**GRU**（Cho ら、2014 年）",
                 "Bengio ら、2015 年", "Luong らは 2015 年", "Xu らが 2015 年", "**truncated BPTT**", "**中間層**", "**隠れ層**",
                 "1 つ前の ⓪-1 で学びます", "（Elman、1990 年）", "（Jordan、1986 年）", "（Schuster と Paliwal、1997 年）",
                 "戻すのが中間層か出力層か", "「生成には使えない」"):
        assert fact in text, fact
    assert r"c_t &= f \odot c_{t-1} + i \odot g" in text and r"h_t &= z \odot h_{t-1} + (1 - z) \odot \tilde h" in text
    assert r"\sigma &= \frac{D}{2}" in text and r"\frac{k}{k + \exp(i / k)}" in text


def test_hand_computes_one_lstm_and_one_gru_step_and_the_counts():
    at = open_page(PAGE, section="hand")
    assert not at.exception and not at.error
    subheaders = [h.value for h in at.subheader]
    assert subheaders[:4] == ["加法注意のスコアと重み", "LSTM の 1 ステップ（d = 2）", "GRU の 1 ステップ（d = 2）",
                              "パラメータ数：LSTM が GRU より重い理由"]
    text = page_text(at)
    for figure in (r"a_f &= W_f x_t + U_f h_{t-1} + b_f \\ &= (1,\ 0) + (1,\ 0) + (0,\ 0) = (2,\ 0)",
                   r"f &= \sigma(a_f) \approx (0.881,\ 0.500)", r"(0.881 \times 2,\ 0.500 \times (-1))",
                   r"\approx (2.142,\ -1.057)", r"\approx (0.711,\ -0.691)",
                   r"r \odot h_{t-1} &= (0.500 \times 0,\ 0.731 \times 1) \\ &= (0,\ 0.731)", r"\approx (0.112,\ 0.925)",
                   r"4 \times (2 \times (2 + 2) + 2) = 4 \times 10 = 40"):
        assert figure in text, figure
    table = next(t for t in tables(at) if "モデル" in t.columns)
    assert list(table["d_x = d_h = 256"]) == ["131,328", "393,984", "525,312"]
    assert list(table["d_x = d_h = 2"]) == ["10", "30", "40"]
    assert "（393,984 / 525,312）" in text


def test_visual_shows_schedules_and_kinds_of_attention():
    at = open_page(PAGE, section="visual")
    assert not at.exception and not at.error
    schedule = next(t for t in tables(at) if "下げ方" in t.columns)
    assert list(schedule["i = 5,000"]) == ["0.500", "0.223", "0.871"]
    assert list(schedule["i = 10,000"]) == ["0.100", "0.050", "0.043"]
    runs = next(t for t in tables(at) if "ε" in t.columns)
    assert list(runs["正解数"]) == ["5 / 6", "3 / 6", "2 / 6"]
    assert list(runs["入力の出どころ（時刻 2〜6）"])[1] == "正解・正解・自分・自分・正解"
    h = heatmaps(at)[1]
    # one row per word, one column per kind (narrow enough for a phone); the caption names each column
    assert h.cols == ["ソフト", "ハード", "local-m", "local-p"] and h.rows == list(s2s.LONG_SRC)
    assert any("ローカル local-m（p = 4）" in c.value and "ローカル local-p（p = 5.6）" in c.value for c in at.caption)
    soft = s2s.dot_attention(s2s.LONG_QUERY, s2s.LONG_STATES)
    local_p = s2s.local_attention(s2s.LONG_QUERY, s2s.LONG_STATES, 5.6, 1)
    column = [[row[k] for row in h.texts] for k in range(4)]
    assert column[0] == [format_number(v, 3) for v in soft.weights]
    assert column[3] == [format_number(v, 3) for v in local_p.weights]
    assert sorted(column[1]) == ["0.000"] * 7 + ["1.000"]                               # one draw, one position
    text = page_text(at)
    assert "**猫**（0.378）" in text and "窓が「昨日・駅・で」に来てしまい" in text and "猫 に 0.640 を配ります" in text
    assert "はし" not in text                                                            # the two はし are ⓪-1's


def test_editing_the_cell_states_reaches_the_hand_calculation_and_bad_values_are_japanese():
    at = open_page(PAGE, section="try")
    assert metric(at, "LSTM のセル c_t") == "(2.142, -1.057)"
    assert metric(at, "GRU の隠れ状態 h_t") == "(0.112, 0.925)"
    states = np.array([[0.0, 1.0], [1.0, 1.0], [3.0, 0.0]])
    edit_matrix(at, "seq2seq_cell", rows_of(states))
    lstm = rnn.lstm_step(*states, rnn.LSTM_WEIGHTS)
    gru = rnn.gru_step(states[0], states[1], rnn.GRU_WEIGHTS)
    want = "(" + ", ".join(f"{x:.3f}" for x in lstm.c) + ")"
    assert metric(at, "LSTM のセル c_t") == want
    assert metric(at, "GRU の隠れ状態 h_t") == "(" + ", ".join(f"{x:.3f}" for x in gru.h) + ")"
    for bad in ("1e308", "abc", "", "nan"):
        edit_matrix(at, "seq2seq_cell", rows_of(states, {(2, 0): bad}))
        assert not at.exception
        errors = [e.value for e in at.error]
        assert any("行・成分1 列のセル" in e and "最後に正しかった値" in e for e in errors), errors
        assert metric(at, "LSTM のセル c_t") == want                                   # the last valid result
    edit_matrix(at, "seq2seq_cell", rows_of(states))
    show_section(at, "hand")
    text = flat_tex(page_text(at))
    assert r"c_{t-1} = (3,\ 0)" in text and f"\\approx {s2s_row(lstm.c)}" in text
    assert f"\\approx {s2s_row(gru.h)}" in text


def s2s_row(xs) -> str:
    return "(" + ",\\ ".join(format_number(x, 3) if not float(x).is_integer() else format_number(x, 0) for x in xs) + ")"


def test_parameter_boxes_and_the_local_window():
    at = open_page(PAGE, section="try")
    assert metric(at, "LSTM（4 組）") == "525,312" and metric(at, "GRU（3 組）") == "393,984"
    at.number_input(key="seq2seq_dx").set_value(300).run()
    at.number_input(key="seq2seq_dh").set_value(512).run()
    assert metric(at, "LSTM（4 組）") == f"{rnn.rnn_param_count('lstm', 300, 512):,}" == "1,665,024"
    assert metric(at, "単純な RNN（1 組）") == "416,256"
    at.number_input(key="seq2seq_dh").set_value(0).run()
    assert not at.exception
    assert any("1〜100,000" in w.value and "1 を使っています" in w.value for w in at.warning), [w.value for w in at.warning]
    assert metric(at, "GRU（3 組）") == f"{rnn.rnn_param_count('gru', 300, 1):,}"
    window = next(t for t in tables(at) if "6 猫" in t.columns)
    assert list(window["6 猫"]) == ["○", "0.881", "0.640"] and list(window["4 駅"]) == ["", "0", "0"]
    at.slider(key="seq2seq_p").set_value(4.0).run()
    at.slider(key="seq2seq_d").set_value(2).run()
    res = s2s.local_attention(s2s.LONG_QUERY, s2s.LONG_STATES, 4.0, 2)
    window = next(t for t in tables(at) if "6 猫" in t.columns)
    assert list(window["6 猫"]) == ["○", format_number(res.align[5], 3), format_number(res.weights[5], 3)]
    assert list(window["1 私"])[0] == ""
