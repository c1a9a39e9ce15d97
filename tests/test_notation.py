"""One notation across the pages: s and s̃, one name per matrix, one term per concept, no e-notation."""
import ast
import re

import pytest

import tutor
from ui.validate import format_number, format_tiny

from apphelpers import E_NOTATION, lesson_text, open_page, page_text, ROOT


NAIVE, QKV, SCALING, FORMULA = "pages/1_naive.py", "pages/2_qkv.py", "pages/3_scaling.py", "pages/4_formula.py"
PAGES_1_4 = (NAIVE, QKV, SCALING, FORMULA)
MH = "pages/5_multihead.py"
MASK = "pages/6_mask.py"
POSITION = "pages/7_position.py"
BLOCK = "pages/8_block.py"
PAGES_5_7 = (MH, MASK, POSITION, BLOCK)
ENCDEC = "pages/9_encdec.py"
OUTPUT = "pages/10_output.py"
COST = "pages/11_cost.py"


def _page_strings(path: str) -> list[str]:
    src = (ROOT / path).read_text(encoding="utf-8")
    return [n.value for n in ast.walk(ast.parse(src)) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


TRAINING = "pages/12_training.py"


def test_scores_are_s_and_scaled_scores_are_s_tilde(pages):
    scaling = lesson_text(pages[SCALING])
    assert r"\tilde{s}_{ij} = \frac{s_{ij}}{\sqrt{d_k}}" in scaling
    assert r"s_{ij} = \frac{\mathbf{q}" not in scaling                 # s is never the scaled score
    assert r"\tilde{s}_{11} = \frac{16}{8} = 2" in scaling                # (16, 8, 0) ÷ √64 written with s̃
    assert r"\tilde{s}_{11} = \frac{1}{\sqrt{2}} \approx 0.7071" in scaling   # the G検定 example
    assert r"s_{11} = 1\times 1 + 0\times 0 = 1" in scaling
    qkv = lesson_text(pages[QKV])
    assert r"\tilde{s}_{ij} = \frac{s_{ij}}{\sqrt{d_k}}" in qkv
    assert r"a_{ij} = \frac{e^{\tilde{s}_{ij}}}" in qkv
    assert r"\mathrm{softmax}(s_{i1},\dots,s_{in})" not in qkv
    assert r"\tilde{s}_{32} = \frac{4}{\sqrt{2}}" in qkv                # the scaled step is shown
    formula = lesson_text(pages[FORMULA])
    assert r"⑤ $\sqrt{d_k}$ で割る → $\tilde{S}$" in formula and "S̃ = QKᵀ/√d_k" in formula


@pytest.mark.parametrize("page", PAGES_1_4)
def test_attention_weights_and_learned_matrices_have_one_name_each(pages, page):
    text = lesson_text(pages[page])
    assert "重み行列" not in text
    if page in (NAIVE, FORMULA):
        assert "注意の重み A" in text
    if page in (QKV, FORMULA):
        for name in ("W_Q", "W_K", "W_V"):
            assert f"変換行列 ${name}$" in text


@pytest.mark.parametrize("page", PAGES_5_7)
def test_no_e_notation_on_pages_5_to_7_2(pages, page):
    text = lesson_text(pages[page])
    assert not re.search(r"\d(\.\d+)?e[-+]?\d", text), re.search(r".{20}\d(\.\d+)?e[-+]?\d.{5}", text)


def test_format_tiny_never_uses_e_notation():
    assert format_tiny(4.5399929762484854e-05) == "4.5×10⁻⁵"
    assert format_tiny(-2.0611536e-09) == "-2.1×10⁻⁹"
    assert format_tiny(1.1e-16) == "1.1×10⁻¹⁶"
    assert format_tiny(4.54e-5, tex=True) == r"4.5\times 10^{-5}"
    assert format_tiny(0.9999546) == "0.99995" == format_number(0.9999546, 5)
    assert format_tiny(0.0) == "0"
    assert format_tiny(0.2227, 3) == "0.223"
    assert format_tiny(float("-inf")) == "−∞"


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


@pytest.mark.parametrize("path", [ENCDEC, OUTPUT, COST, TRAINING])
def test_no_e_notation_on_pages_7_3_to_8(pages, path):
    quiz = {m.value for m in pages[path].markdown if m.value.startswith("**問**")}
    text = "\n".join(t for t in page_text(pages[path]).split("\n") if t not in quiz)
    assert not E_NOTATION.search(text), E_NOTATION.search(text)


def test_cost_max_diff_and_training_gradient_without_e_notation(pages):
    at = pages[COST]
    value = [m.value for m in at.metric if "出力の差の最大値" in m.label][0]
    assert value == "0" or re.fullmatch(r"\d\.\d×10⁻[¹²³⁴⁵⁶⁷⁸⁹⁰]+", value), value
    # the √d_k experiment: the vanished gradient is printed as ×10⁻ⁿ
    # (the finished run is handed to the page as its button would store it: the live charts of a
    # click cost ~25 s in AppTest, the engine alone ~3 s)
    run_a, run_b = tutor.training.run_experiment("scaling", 0, None, 5)
    at = open_page(TRAINING, session={"training__experiments": {"scaling": (0, run_a, run_b)}}, section="try")
    assert not at.exception, at.exception
    assert any(c.value == "シード 0 の結果" for c in at.caption)
    text = page_text(at)
    assert not E_NOTATION.search(text)
    if run_b.heldout_accuracy < run_a.heldout_accuracy:
        assert f"{format_tiny(run_b.grad_norm_of('W_Q')[-1], 3)} まで消えました" in text


# A symbol with a subscript or superscript written as plain text (v_c, ∂a_i/∂s_j, d_k^2) shows the
# learner its underscores; the page writes it as math ($v_c$) or as a name (`d_model` in code).
RAW_NOTATION = re.compile(r"(?<![\w\\])[A-Za-zα-ω∂]+_(\{[^}]*\}|[A-Za-z0-9]+)|\^\(?[A-Za-z0-9α-ω]")
_MATH_CODE_LINKS = re.compile(r"\$\$.*?\$\$|\$[^$]*\$|`[^`]*`|\]\([^)]*\)|<[^>]*>", re.S)


def raw_notation(text: str) -> list[str]:
    """The plain-text subscripts / superscripts in ``text`` outside math, code and link targets."""
    return [m.group(0) for m in RAW_NOTATION.finditer(_MATH_CODE_LINKS.sub(" ", text))]


def test_raw_notation_finds_plain_subscripts_only():
    assert raw_notation("v_c と u を動かします") == ["v_c"]
    assert raw_notation("∂a_i/∂s_j の絶対値") == ["∂a_i", "∂s_j"]
    assert raw_notation("$v_c$ と `d_model` と [リンク](./x_y)") == []
    assert raw_notation("d^2 に比例") == ["^2"]


@pytest.mark.parametrize("key", __import__("ui").LEARNING_KEYS)
def test_captions_and_text_write_symbols_as_math(key):
    import ui
    from apphelpers import each_section
    at = open_page(ui.PAGE_BY_KEY[key].path)
    found = {}
    for section in each_section(at):
        for el in list(at.caption) + list(at.markdown):
            if hits := raw_notation(str(el.value)):
                found.setdefault(section, []).append((hits, str(el.value)[:80]))
    assert not found, found
