"""AppTest for the home page and pages ①–④ (naive, qkv, scaling, formula).

Every number checked here is either a textbook figure (seed 000 §8.2–8.6, G検定 page 004) or a
fresh engine computation on the same inputs: a page that typed a number in, or stopped calling
the engine after an edit, fails.
"""
import re

import numpy as np
import pytest

import tutor
import ui
from tests.apphelpers import chart_data, edit_matrix, open_page, page_text
from tutor import textbook as tb

NAIVE, QKV, SCALING, FORMULA = "pages/1_naive.py", "pages/2_qkv.py", "pages/3_scaling.py", "pages/4_formula.py"
BAD_CELLS = ["abc", "", "nan", "inf", "1e308"]
CELL_ERRORS = ("数値として読めません", "が空です", "は使えません", "大きすぎます")


def rows_of(matrix, changes=None):
    """Editor rows (text) of ``matrix`` with {(i, j): "text"} replaced."""
    rows = [[f"{float(v):g}" for v in r] for r in np.asarray(matrix)]
    for (i, j), text in (changes or {}).items():
        rows[i][j] = text
    return rows


def flat_tex(text):
    """LaTeX with the line breaking of ui.handcalc.fit removed (aligned/gathered, &, \\\\, \\quad)."""
    for token in (r"\begin{aligned}", r"\end{aligned}", r"\begin{gathered}", r"\end{gathered}", r"\quad", "&"):
        text = text.replace(token, " ")
    text = text.replace("\\\\", " ")
    return re.sub(r"\s+", " ", text)


def metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def full_text(at):
    """page_text plus every st.table in full (page_text's str() elides wide tables)."""
    return page_text(at) + "\n".join(t.value.to_string() for t in at.get("table"))


def assert_heatmap_is(at, index, weights, rows, cols):
    df = chart_data(at, index)
    got = df.pivot(index="row", columns="col", values="value").loc[rows, cols].to_numpy()
    np.testing.assert_allclose(got, weights, rtol=1e-12)


def assert_cell_error(at):
    errors = [e.value for e in at.error]
    assert errors and any(any(msg in e for msg in CELL_ERRORS) for e in errors), errors
    assert any("最後に正しかった値" in e for e in errors), errors
    assert not at.exception


# --- home ------------------------------------------------------------------------------------
def test_home_runs_and_sidebar_links_every_existing_page():
    at = open_page("app.py")
    assert not at.exception
    links = {p.proto.page for p in at.sidebar.get("page_link")}
    expected = {p.url.lstrip("/") for p in ui.available_pages()}
    assert expected <= links and {"naive", "qkv", "scaling", "formula"} <= links
    body_links = {p.proto.label for p in at.main.get("page_link")}
    assert {"① 素朴なAttention", "② Q・K・V", "③ √d_k スケーリング", "④ 完成形と手計算"} <= body_links


@pytest.mark.parametrize("path", [NAIVE, QKV, SCALING, FORMULA])
def test_page_runs_with_rhythm_and_sidebar(path):
    at = open_page(path)
    assert not at.exception and not at.error
    headers = [h.value for h in at.header]
    for name in ("ねらい", "解説", "手計算", "可視化", "試してみよう", "確認クイズ"):
        assert name in headers
    assert [h for h in headers if h in ("ねらい", "解説", "手計算", "可視化", "試してみよう", "確認クイズ")] == \
        ["ねらい", "解説", "手計算", "可視化", "試してみよう", "確認クイズ"]
    links = {p.proto.page for p in at.sidebar.get("page_link")}
    assert {p.url.lstrip("/") for p in ui.available_pages()} <= links


# --- ① naive ---------------------------------------------------------------------------------
def test_naive_textbook_numbers_and_heatmap():
    at = open_page(NAIVE)
    text = page_text(at)
    for figure in ("0.576", "0.212", "0.665", "0.245", "0.788", "0.910", "0.335"):
        assert figure in text, figure
    assert metric(at, "それ → 魚") == "0.212" and metric(at, "それ → それ") == "0.576"
    assert "**0 個**" in text and "**24 個**" in text          # weakness 4: 0 vs W_Q, W_K, W_V
    assert_heatmap_is(at, 0, tutor.naive.naive_attention(tb.X).weights, tb.TOKENS, tb.TOKENS)


def test_naive_edit_changes_result_and_bad_cells_keep_last_valid():
    at = open_page(NAIVE)
    x = np.array(tb.X)
    x[2] = [0, 1, 0, 1]                                           # それ := 魚
    edit_matrix(at, "naive_x", rows_of(x))
    w = tutor.naive.naive_attention(x).weights
    assert metric(at, "それ → 魚") == f"{w[2, 1]:.3f}" != "0.212"
    assert_heatmap_is(at, 0, w, tb.TOKENS, tb.TOKENS)
    for bad in BAD_CELLS:
        edit_matrix(at, "naive_x", rows_of(x, {(0, 0): bad}))
        assert_cell_error(at)
        assert metric(at, "それ → 魚") == f"{w[2, 1]:.3f}"       # the last VALID input, not the default
        assert_heatmap_is(at, 0, w, tb.TOKENS, tb.TOKENS)


# --- ② qkv -----------------------------------------------------------------------------------
def test_qkv_textbook_numbers_asymmetry_and_heatmaps():
    at = open_page(QKV)
    text = page_text(at)
    for figure in ("0.894", "0.053", "0.212", "0.576"):
        assert figure in text, figure
    assert metric(at, "それ → 魚 のスコア") == "4" and metric(at, "魚 → それ のスコア") == "1"
    assert "非対称" in text
    assert r"q_{11} = 1\times 0 + 0\times 0 + 1\times 2 + 0\times 1 = 2" in flat_tex(text)
    ref = tutor.qkv.compare_naive_qkv(tb.X, tb.W_Q, tb.W_K, tb.W_V)
    assert_heatmap_is(at, 0, ref.naive.scores, tb.TOKENS, tb.TOKENS)
    assert_heatmap_is(at, 1, ref.attn.scores, tb.TOKENS, tb.TOKENS)
    assert_heatmap_is(at, 2, ref.attn.weights, tb.TOKENS, tb.TOKENS)


def test_qkv_edit_and_bad_cell():
    at = open_page(QKV)
    edit_matrix(at, "qkv_wk", rows_of(tb.W_Q))                    # W_K := W_Q → QKᵀ symmetric
    assert any("対称" in w.value for w in at.warning)
    ref = tutor.qkv.compare_naive_qkv(tb.X, tb.W_Q, tb.W_Q, tb.W_V)
    assert metric(at, "それ → 魚 の重み") == f"{ref.attn.weights[2, 1]:.3f}" != "0.894"
    edit_matrix(at, "qkv_wk", rows_of(tb.W_Q, {(1, 1): "abc"}))
    assert_cell_error(at)
    assert metric(at, "それ → 魚 の重み") == f"{ref.attn.weights[2, 1]:.3f}"
    assert_heatmap_is(at, 2, ref.attn.weights, tb.TOKENS, tb.TOKENS)


# --- ③ scaling -------------------------------------------------------------------------------
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


# --- ④ formula -------------------------------------------------------------------------------
def test_formula_pencil_and_exact_modes():
    at = open_page(FORMULA)
    assert at.toggle(key="formula_pencil").value is True
    text = page_text(at)
    for figure in ("1.510", "0.492", "1.000", "0.159", "1.841", "0.673", "0.894", "0.053", "2.828"):
        assert figure in text, figure
    assert r"z_{11} = 0.673\times 2 + 0.164\times 0 + 0.164\times 1 = 1.510" in flat_tex(text)
    at.toggle(key="formula_pencil").set_value(False).run()
    text = page_text(at)
    assert "1.5093" in text and "0.4907" in text and "1.8414" in text
    assert r"z_{11} = 0.6728\times 2 + 0.1636\times 0 + 0.1636\times 1 \approx 1.5093" in flat_tex(text)
    assert "1.510" not in text


def test_formula_heatmaps_shape_table_and_edits():
    at = open_page(FORMULA)
    qkv = tutor.project_qkv(tb.X, tb.W_Q, tb.W_K, tb.W_V)
    assert_heatmap_is(at, 0, tutor.attention(qkv.q, qkv.k, qkv.v).weights, tb.TOKENS, tb.TOKENS)
    cross = tutor.cross_attention(tb.CROSS_X_DEC, tb.X, tb.W_Q, tb.W_K, tb.W_V)
    assert_heatmap_is(at, 1, cross.weights, list(tb.CROSS_DEC_TOKENS), tb.TOKENS)
    text = full_text(at)
    assert "3×4" in text and "2×3" in text and "一致しました" in text
    x = np.array(tb.X)
    x[2] = [1, 0, 1, 0]                                           # それ := 猫
    edit_matrix(at, "formula_x", rows_of(x))
    hc = tutor.handcalc.hand_calculation(x, tb.W_Q, tb.W_K, tb.W_V, decimals=3)
    text = page_text(at)
    assert f"「それ」の出力：**({hc.z[2, 0]:.3f}, {hc.z[2, 1]:.3f})**" in text
    q2 = tutor.project_qkv(x, tb.W_Q, tb.W_K, tb.W_V)
    assert_heatmap_is(at, 0, tutor.attention(q2.q, q2.k, q2.v).weights, tb.TOKENS, tb.TOKENS)
    for bad in ("1e308", "nan"):
        edit_matrix(at, "formula_wv", rows_of(tb.W_V, {(0, 0): bad}))
        assert_cell_error(at)
        assert f"「それ」の出力：**({hc.z[2, 0]:.3f}, {hc.z[2, 1]:.3f})**" in page_text(at)


def test_step_latex_is_broken_for_phones_without_changing_it():
    from ui.handcalc import LINE_CHARS, _visible_len, element_latex, fit, softmax_row_latex

    hc = tutor.handcalc.hand_calculation(tb.X, tb.W_Q, tb.W_K, tb.W_V, decimals=3)
    ns = tutor.handcalc.naive_steps(tb.X, decimals=3)
    elems = list(hc.q.flat) + list(hc.output.flat) + list(ns.output.flat) + list(hc.softmax.rows[0].elements)
    for elem in elems:
        tex = element_latex(elem)
        assert flat_tex(tex).strip() == flat_tex(elem.latex).strip()
        for line in re.sub(r"\\(begin|end)\{aligned\}", "", tex).split(r"\\"):
            assert _visible_len(line) <= LINE_CHARS or len(elem.parts) == 1, line
    ws = ns.weighted_sums[2]
    assert flat_tex(fit(ws.label, ws.parts, ws.tail)).strip() == flat_tex(ws.latex).strip()
    assert len(softmax_row_latex(hc.softmax.rows[2])) == 2 + 3
