"""AppTest for ⓪ Seq2Seq と Attention の誕生 (pages/0_seq2seq.py).

Every number checked is a fresh engine computation (tutor.seq2seq) on the inputs the page was
given, or the worked example's value computed by hand in tests/test_seq2seq.py.
"""
import numpy as np
import pytest

import quizzes
from tests.apphelpers import answer_card, assert_heatmap_is, edit_matrix, heatmaps, open_page, page_text, tables
from tutor import seq2seq as s2s
from ui.validate import format_number

PAGE = "pages/0_seq2seq.py"
RHYTHM = ["ねらい", "解説", "手計算", "可視化", "試してみよう", "確認クイズ"]
SRC = list(s2s.SRC_TOKENS)


def metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def rows_of(matrix, changes=None):
    rows = [[f"{float(v):g}" for v in r] for r in np.atleast_2d(matrix)]
    for (i, j), text in (changes or {}).items():
        rows[i][j] = text
    return rows


def assert_weights_shown(at, additive, dot=None) -> None:
    """The first heatmap: α of additive attention (and of dot-product attention) over SRC."""
    h = heatmaps(at)[0]
    assert (h.rows, h.cols) == (["加法注意", "内積注意"], list(SRC))
    expected = [additive] + ([] if dot is None else [dot])
    assert h.texts[:len(expected)] == [[format_number(v, 3) for v in row] for row in expected]


@pytest.fixture()
def at():
    at = open_page(PAGE)
    assert not at.exception and not at.error
    return at


def test_runs_with_rhythm_sidebar_and_is_the_first_learning_page(at):
    headers = [h.value for h in at.header if h.value in RHYTHM]
    assert headers == RHYTHM
    links = [p.proto.page for p in at.sidebar.get("page_link")]
    assert "seq2seq" in links and links.index("seq2seq") < links.index("naive")
    assert any(p.proto.label.startswith("次へ：① 素朴なAttention") for p in at.main.get("page_link"))
    assert at.title[0].value == "⓪ Seq2Seq と Attention の誕生"


def test_worked_example_numbers(at):
    text = page_text(at)
    r = s2s.additive_attention(s2s.DEC_STATE, s2s.ENC_STATES, s2s.W_DEC, s2s.U_ENC, s2s.V_ATT)
    assert [metric(at, f"{t} への重み α") for t in SRC] == ["0.240", "0.513", "0.247"]
    for figure in ("0.964", "1.726", "0.995", "(0.487,\\ 0.760)", "**魚**（0.513）", "(0.578, 0.845)", "= (1, 1) だけ",
                   "**256 個**", "7,680 個"):
        assert figure in text, figure
    assert r"(-1) \times (-0.762) + 1 \times 0.964" in text            # the products written out
    assert_weights_shown(at, r.weights, s2s.dot_attention(s2s.DEC_STATE, s2s.ENC_STATES).weights)


def test_teacher_forcing_tables_and_counts(at):
    assert metric(at, "教師強制での正解数") == "5 / 6"
    assert metric(at, "自分の出力を入れたときの正解数") == "2 / 6"
    teacher, free = s2s.exposure_gap(s2s.TF_LOGITS, s2s.TF_VOCAB, s2s.TF_TARGET)
    found = {tuple(t["入力"]): list(t["正誤"]) for t in tables(at) if "入力" in t.columns}
    assert found[teacher.inputs] == ["○", "○", "×", "○", "○", "○"]
    assert found[free.inputs] == ["○", "○", "×", "×", "×", "×"]
    assert f"{teacher.loss:.3f}" in page_text(at)


def test_editing_states_recomputes_and_bad_cells_keep_the_last_valid(at):
    h = np.array(s2s.ENC_STATES)
    h[2] = [0, 3]                                                       # 食べた := close to s = (0, 1)
    edit_matrix(at, "seq2seq_h", rows_of(h))
    r = s2s.additive_attention(s2s.DEC_STATE, h, s2s.W_DEC, s2s.U_ENC, s2s.V_ATT)
    want = [f"{x:.3f}" for x in r.weights]
    assert [metric(at, f"{t} への重み α") for t in SRC] == want != ["0.240", "0.513", "0.247"]
    assert_weights_shown(at, r.weights)
    for bad in ("abc", "", "nan", "inf", "1e308"):
        edit_matrix(at, "seq2seq_h", rows_of(h, {(0, 0): bad}))
        errors = [e.value for e in at.error]
        assert any("猫 行・成分1 列のセル" in e and "最後に正しかった値" in e for e in errors), errors
        assert not at.exception
        assert [metric(at, f"{t} への重み α") for t in SRC] == want       # the last VALID input
    s = np.array([[1.0, -1.0]])
    edit_matrix(at, "seq2seq_h", rows_of(h))
    edit_matrix(at, "seq2seq_s", rows_of(s))
    r = s2s.additive_attention(s[0], h, s2s.W_DEC, s2s.U_ENC, s2s.V_ATT)
    assert [metric(at, f"{t} への重み α") for t in SRC] == [f"{x:.3f}" for x in r.weights]
    assert not at.error


def test_editing_parameters_w_u_v(at):
    v = np.array([[1.0, 1.0]])
    edit_matrix(at, "seq2seq_v", rows_of(v))
    r = s2s.additive_attention(s2s.DEC_STATE, s2s.ENC_STATES, s2s.W_DEC, s2s.U_ENC, v[0])
    assert [metric(at, f"{t} への重み α") for t in SRC] == [f"{x:.3f}" for x in r.weights]


def test_clipping_inputs(at):
    assert (metric(at, "‖g‖"), metric(at, "倍率 min(1, c/‖g‖)"), metric(at, "クリップ後の g")) == ("5", "0.200", "(0.600, 0.800)")
    edit_matrix(at, "seq2seq_g", [["6", "8"]])
    at.number_input(key="seq2seq_c").set_value(2.0).run()
    r = s2s.clip_by_norm([6.0, 8.0], 2.0)
    assert metric(at, "‖g‖") == "10" and metric(at, "クリップ後の g") == "(1.200, 1.600)"
    assert r.clipped.tolist() == pytest.approx([1.2, 1.6])
    at.number_input(key="seq2seq_c").set_value(50.0).run()
    assert metric(at, "クリップ後の g") == "(6, 8)"
    assert any("勾配はそのまま" in c.value for c in at.caption)


def test_embedding_zero_row_is_a_japanese_error(at):
    e = np.array(s2s.EMB_VECTORS)
    e[1] = [0, 0, 0]
    edit_matrix(at, "seq2seq_emb", rows_of(e))
    assert not at.exception
    assert any("2 行目がすべて 0" in x.value for x in at.error), [x.value for x in at.error]
    e[1] = [1, 1, 1]
    edit_matrix(at, "seq2seq_emb", rows_of(e))
    assert not at.error
    sim = s2s.similarity_matrix(e)
    assert_heatmap_is(at, 2, sim, list(s2s.EMB_WORDS), list(s2s.EMB_WORDS))


def test_quiz_answered_right_and_wrong(at):
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


def test_vanishing_and_exploding_table_and_slider(at):
    table = next(v for v in tables(at) if "t = 20" in v.columns)
    assert list(table["a"]) == ["0.5", "1.0", "1.5"]
    assert list(table["t = 20"]) == ["9.5×10⁻⁷", "1.000", "3,325"]
    assert list(table["t = 5"]) == ["0.031", "1.000", "7.594"]
    assert metric(at, "30 段さかのぼった勾配の長さ") == f"{1.2 ** 30:.3f}" == "237.376"
    assert metric(at, "上のしきい値 c でクリップした長さ") == "1.000"
    at.slider(key="seq2seq_a").set_value(0.5).run()
    assert metric(at, "30 段さかのぼった勾配の長さ") == "9.3×10⁻¹⁰"
    assert metric(at, "上のしきい値 c でクリップした長さ") == "9.3×10⁻¹⁰"     # short gradients are not stretched
