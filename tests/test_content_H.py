"""Audit C fixes on the pages of helper H: ⑦-3 encdec, ⑦-4 output, ⑦-5 cost, ⑧ training.

Copied prose gone, one notation (s / s̃, y / z / t), link labels = the pages' real titles,
the paper's BLEU / training-cost figures from tutor.textbook, no "e-5" notation, the cross-attention
hand example recomputable from the numbers shown (pencil rounding, /formula's ate/it example)."""
import ast
import re

import numpy as np
import pytest

import tutor
import ui
from apphelpers import ROOT, chart_data, open_page, page_text
from tutor import textbook as tb
from ui.validate import format_number, format_tiny

ENCDEC = "pages/9_encdec.py"
OUTPUT = "pages/10_output.py"
COST = "pages/11_cost.py"
TRAINING = "pages/12_training.py"

E_NOTATION = re.compile(r"\d(?:\.\d+)?e[-+]?\d")


def test_format_tiny_never_uses_e_notation():
    assert format_tiny(4.5399929762484854e-05) == "4.5×10⁻⁵"
    assert format_tiny(-2.0611536e-09) == "-2.1×10⁻⁹"
    assert format_tiny(1.1e-16) == "1.1×10⁻¹⁶"
    assert format_tiny(4.54e-5, tex=True) == r"4.5\times 10^{-5}"
    assert format_tiny(0.9999546) == "0.99995" == format_number(0.9999546, 5)
    assert format_tiny(0.0) == "0"
    assert format_tiny(0.2227, 3) == "0.223"
    assert format_tiny(float("-inf")) == "−∞"


# ---------------------------------------------------------------------------
# copied prose (the check against the seeds themselves is tests/test_own_words.py)
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pages():
    return {path: open_page(path) for path in (ENCDEC, OUTPUT, COST, TRAINING)}


def test_old_copied_sentences_are_gone(pages):
    assert "入力と出力がはっきり分かれる仕事" not in page_text(pages[ENCDEC])
    assert "Transformer の全体像" not in page_text(pages[ENCDEC])
    assert "| 層の種類 | 層ごとの計算量 | 逐次操作の数 | 位置間の最大経路長 |" not in page_text(pages[COST])
    assert "| 層 | 計算量（1 層） | 逐次操作 | 最大経路長 |" in page_text(pages[COST])
    assert "文脈の情報が織り込まれています" not in page_text(pages[OUTPUT])
    assert "を直す手がかりが届きません" not in page_text(pages[TRAINING])


# ---------------------------------------------------------------------------
# notation and terms
# ---------------------------------------------------------------------------
def test_training_symbols_h_z_t(pages):
    text = page_text(pages[TRAINING])
    assert r"\mathbf{h} = (\mathbf{a} V)\,W_O" in text
    assert r"\mathbf{z} = \mathbf{h} W_{\text{out}} + \mathbf{b}" in text
    assert r"\frac{\partial L}{\partial \mathbf{z}} = \mathbf{p} - \mathbf{t}" in text
    assert r"\mathbf{p} - \mathbf{y}" not in text and r"\mathbf{y} = " not in text
    assert r"\frac{\partial a_i}{\partial \tilde{s}_j}" in text          # softmax input = scaled score s̃
    # the hand calculation names the one-hot target t and shows it
    grad = tutor.training.cross_entropy_grad(tb.TEMPERATURE_LOGITS, 1)
    assert "$t = (0, 1, 0)$" in text
    assert "$p - t = (" + ", ".join(format_number(v, 3) for v in grad) + ")$" in text


def _page_strings(path: str) -> list[str]:
    src = (ROOT / path).read_text(encoding="utf-8")
    return [n.value for n in ast.walk(ast.parse(src)) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def test_one_term_per_concept():
    # 自己注意 is the term; the English is given once, on /cost and /encdec
    for path in (ENCDEC, COST):
        strings = "\n".join(_page_strings(path))
        assert strings.count("Self-Attention") == 1, path
        assert "自己注意（Self-Attention" in strings
    # /output: softmax, with ソフトマックス関数 given once
    assert "\n".join(_page_strings(OUTPUT)).count("ソフトマックス") == 1
    # /encdec: A is 注意の重み, never 重み行列
    assert "重み行列" not in "\n".join(_page_strings(ENCDEC))


def test_encdec_links_use_the_pages_titles(pages):
    links = {el.proto.label: el.proto.page for el in pages[ENCDEC].get("page_link")}
    for key in ("position", "formula", "multihead", "mask", "block", "output", "cost"):
        assert links.get(ui.PAGE_BY_KEY[key].label) == key, key


# ---------------------------------------------------------------------------
# textbook figures
# ---------------------------------------------------------------------------
def test_bleu_and_training_cost_from_textbook(pages):
    # big model: 28.4 / 41.8 BLEU, 3.5 days; base model (the size the pages configure): 27.3 / 38.1, 12 hours
    assert (tb.PAPER_BLEU_EN_DE, tb.PAPER_BLEU_EN_FR, tb.PAPER_TRAIN_DAYS, tb.PAPER_TRAIN_GPUS) == (28.4, 41.8, 3.5, 8)
    assert (tb.PAPER_BASE_BLEU_EN_DE, tb.PAPER_BASE_BLEU_EN_FR, tb.PAPER_BASE_TRAIN_HOURS) == (27.3, 38.1, 12)
    cost = page_text(pages[COST])
    assert f"GPU {tb.PAPER_TRAIN_GPUS} 台のマシン 1 台で学習し" in cost
    assert f"はおよそ {tb.PAPER_BASE_TRAIN_HOURS} 時間" in cost and f"は {tb.PAPER_TRAIN_DAYS} 日で学習を終えました" in cost
    assert f"big モデルが {tb.PAPER_BLEU_EN_FR} BLEU" in cost and f"base モデルが {tb.PAPER_BASE_BLEU_EN_FR} BLEU" in cost
    assert f"big が {tb.PAPER_BLEU_EN_DE}、base が {tb.PAPER_BASE_BLEU_EN_DE} BLEU" in cost
    encdec = page_text(pages[ENCDEC])
    assert f"{tb.PAPER_BASE_BLEU_EN_DE} BLEU" in encdec and f"{tb.PAPER_BASE_BLEU_EN_FR} BLEU" in encdec
    assert f"よく引用される {tb.PAPER_BLEU_EN_DE} と {tb.PAPER_BLEU_EN_FR} は、幅を広げた **big モデル**" in encdec


# ---------------------------------------------------------------------------
# numbers: recomputable hand calculation, no e-notation
# ---------------------------------------------------------------------------
def test_encdec_hand_is_formula_cross_example_and_recomputable(pages):
    at = pages[ENCDEC]
    text = page_text(at)
    assert "ate, it" in text
    steps = tutor.handcalc.attention_steps(*(lambda c: (c.q, c.k, c.v))(
        tutor.cross_attention(tb.CROSS_X_DEC, tb.X, tb.W_Q, tb.W_K, tb.W_V)), decimals=3)
    z_frames = [df for df in (d.value for d in at.table) if list(df.columns) == ["z1", "z2"]]
    assert len(z_frames) == 1
    shown_z = z_frames[0].astype(float).to_numpy()
    np.testing.assert_array_equal(shown_z, steps.z)
    assert shown_z[0].tolist() == [1.870, 0.132] and shown_z[1].tolist() == [0.159, 1.841]
    # recompute Z from the weights shown (3 decimals, the heatmap) and V shown: exactly the shown Z
    weights = chart_data(at, 0)["text"].astype(float).to_numpy().reshape(2, 3)
    v = [df for df in (d.value for d in at.table) if list(df.columns) == ["v1", "v2"]][0].astype(float).to_numpy()
    np.testing.assert_allclose(np.round(weights @ v, 3), shown_z)
    # each softmax row: the shown exponentials add up to the shown denominator
    for row in steps.softmax.rows:
        assert sum(row.exps) == pytest.approx(row.total, abs=1e-9)
        assert row.total_latex.split("=")[-1].strip() in text
    # the inputs are shown: both embeddings and W_Q/W_K/W_V
    for cap in ("X_dec：ターゲットの埋め込み", "X_enc：ソースの埋め込み", "W_Q", "W_K", "W_V"):
        assert any(c.value == cap for c in at.caption), cap


@pytest.mark.parametrize("path", [ENCDEC, OUTPUT, COST, TRAINING])
def test_no_e_notation(pages, path):
    quiz = {m.value for m in pages[path].markdown if m.value.startswith("**問**")}
    text = "\n".join(t for t in page_text(pages[path]).split("\n") if t not in quiz)
    assert not E_NOTATION.search(text), E_NOTATION.search(text)


def test_training_saturated_softmax_formatting(pages):
    text = page_text(pages[TRAINING])
    a = tutor.softmax(tb.SATURATION_SCORES[1])
    assert "(0.99995, 4.5\\times 10^{-5}, 2.1\\times 10^{-9})" in text
    assert ", ".join(format_tiny(x, 5, tex=True) for x in a) in text
    jac = tutor.softmax_jacobian(tb.SATURATION_SCORES[1])
    table = [t.value for t in pages[TRAINING].get("table")][1]
    assert table.iloc[0, 0] == format_tiny(jac[0, 0]) == "4.5×10⁻⁵"
    assert table.iloc[1, 2] == format_tiny(jac[1, 2]) == "-9.4×10⁻¹⁴"
    assert "0.00000" not in table.to_string()


def test_cost_max_diff_and_training_gradient_without_e_notation(pages):
    at = pages[COST]
    value = [m.value for m in at.metric if "出力の差の最大値" in m.label][0]
    assert value == "0" or re.fullmatch(r"\d\.\d×10⁻[¹²³⁴⁵⁶⁷⁸⁹⁰]+", value), value
    # the √d_k experiment: the vanished gradient is printed as ×10⁻ⁿ
    # (the finished run is handed to the page as its button would store it: the live charts of a
    # click cost ~25 s in AppTest, the engine alone ~3 s)
    run_a, run_b = tutor.training.run_experiment("scaling", 0, None, 5)
    at = open_page(TRAINING, session={"training__experiments": {"scaling": (0, run_a, run_b)}})
    assert not at.exception, at.exception
    assert any(c.value == "シード 0 の結果" for c in at.caption)
    text = page_text(at)
    assert not E_NOTATION.search(text)
    if run_b.heldout_accuracy < run_a.heldout_accuracy:
        assert f"{format_tiny(run_b.grad_norm_of('W_Q')[-1], 3)} まで消えました" in text
