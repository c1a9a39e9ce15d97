"""The textbook facts on the pages and their framing, and the feedback on 不適切 items (issue 15 §3).

⑦-3/⑦-5: base-model BLEU (27.3 / 38.1) and training time (12 h) next to the big model's
(28.4 / 41.8, 3.5 days; 41.0 in the conference text); BERT = MLM + NSP. ⑦-2: the size table
is the base model's, both parameter counts with biases, Pre-LN from GPT-2 on. ⑦-1: input =
Dropout(embedding·√d_model + PE), RoPE's score depends on position through the offset only,
permutation equivariance only without a mask. ④/⑥: Source-Target Attention's Q from the
decoder's previous sub-layer, only the source padding mask. ⑦-4: weight tying is a choice.
⑦-5: RoPE is not a remedy for the n² cost. One term for permutation equivariance. ⑦-3/⑦-5 BLEU
and training cost on the pages from tutor.textbook.
"""
from __future__ import annotations

import ast
import re

import pytest

import quizzes
import tutor
from apphelpers import ROOT, answer_card, lesson_text, open_page, open_pages, page_text, tables
from quizzes import knowledge
from tutor import textbook as tb
from ui import quiz as uq

FORMULA = "pages/4_formula.py"
MASK = "pages/6_mask.py"
POSITION = "pages/7_position.py"
BLOCK = "pages/8_block.py"
ENCDEC = "pages/9_encdec.py"
OUTPUT = "pages/10_output.py"
COST = "pages/11_cost.py"
PAGES = (FORMULA, MASK, POSITION, BLOCK, ENCDEC, OUTPUT, COST)


@pytest.fixture(scope="module")
def text():
    return {path: lesson_text(at) for path, at in open_pages(PAGES).items()}


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"[。\n]", text) if s.strip()]


def sentence_with(text: str, needle: str) -> list[str]:
    hits = [s for s in sentences(text) if needle in s]
    assert hits, needle
    return hits


# ---------------------------------------------------------------------------
# the paper's figures: base and big model
# ---------------------------------------------------------------------------
def test_textbook_has_the_base_and_big_model_figures():
    assert (tb.PAPER_BASE_BLEU_EN_DE, tb.PAPER_BASE_BLEU_EN_FR, tb.PAPER_BASE_TRAIN_HOURS) == (27.3, 38.1, 12)
    assert (tb.PAPER_BLEU_EN_DE, tb.PAPER_BLEU_EN_FR, tb.PAPER_BLEU_EN_FR_CONFERENCE) == (28.4, 41.8, 41.0)
    assert (tb.PAPER_TRAIN_DAYS, tb.PAPER_TRAIN_GPUS) == (3.5, 8)
    assert (tb.PAPER_BIG_D_MODEL, tb.PAPER_BIG_D_FF, tb.PAPER_BIG_HEADS) == (1024, 4096, 16)
    assert (tb.PAPER_D_MODEL, tb.PAPER_D_FF, tb.PAPER_HEADS, tb.PAPER_DROPOUT) == (512, 2048, 8, 0.1)


def test_encdec_bleu_base_shown_and_big_labelled(text):
    t = text[ENCDEC]
    assert f"{tb.PAPER_BASE_BLEU_EN_DE} BLEU" in t and f"{tb.PAPER_BASE_BLEU_EN_FR} BLEU" in t
    (base,) = sentence_with(t, f"{tb.PAPER_BASE_BLEU_EN_DE} BLEU")
    assert "base モデル" in base and f"{tb.PAPER_BASE_BLEU_EN_FR} BLEU" in base
    assert "big" not in base
    (big,) = sentence_with(t, f"{tb.PAPER_BLEU_EN_DE} と {tb.PAPER_BLEU_EN_FR}")
    assert "big モデル" in big and str(tb.PAPER_BIG_D_MODEL) in big
    (conf,) = sentence_with(t, f"{tb.PAPER_BLEU_EN_FR_CONFERENCE}")
    assert "arXiv" in conf and "学会" in conf
    assert "論文はこの構成で" not in t


def test_encdec_bert_is_pretrained_with_mlm_and_nsp(text):
    t = text[ENCDEC]
    bert_row = [line for line in t.splitlines() if line.startswith("事前学習の課題")]
    assert bert_row and "MLM" in bert_row[0] and "NSP" in bert_row[0] and "次文予測" in bert_row[0]


def test_cost_training_time_base_and_big(text):
    t = text[COST]
    assert re.search(rf"base モデル\*\*（[^）]*）はおよそ {tb.PAPER_BASE_TRAIN_HOURS} 時間", t)
    assert re.search(rf"big モデル\*\*（[^）]*）は {tb.PAPER_TRAIN_DAYS} 日", t)
    assert f"GPU {tb.PAPER_TRAIN_GPUS} 台" in t
    assert re.search(rf"big モデルが {tb.PAPER_BLEU_EN_FR} BLEU", t)
    assert re.search(rf"base モデルが {tb.PAPER_BASE_BLEU_EN_FR} BLEU", t)
    assert f"big が {tb.PAPER_BLEU_EN_DE}、base が {tb.PAPER_BASE_BLEU_EN_DE} BLEU" in t
    assert f"英語→フランス語の翻訳モデルは GPU {tb.PAPER_TRAIN_GPUS} 台で" not in t   # the old, big-only sentence


def test_cost_rope_is_not_a_remedy_for_the_n2_cost(text):
    t = text[COST]
    assert "3 つのアプローチ" not in t and "位置の入れ方を変える 1 つ" not in t
    assert "長い系列のコストを抑える 2 つのアプローチ" in t
    (rope,) = [s for s in sentence_with(t, "RoPE") if "コストを減らす方法ではありません" in s]
    assert "RoPE" in rope
    assert "3. **位置の入れ方を見直す（RoPE）**" not in t


# ---------------------------------------------------------------------------
# ⑦-2: base-model table, like-for-like parameter counts, Pre-LN
# ---------------------------------------------------------------------------
def test_block_size_table_is_the_base_model_with_biases_counted_alike():
    at = open_page(BLOCK)
    t = lesson_text(at)
    assert "原論文の大きさ（base モデル）" in t
    table = next(tab for tab in tables(at) if "記号" in (tab.index.name or ""))
    params = {k: v for k, v in table["値"].items() if "パラメータ" in k}
    assert len(params) == 2
    mha_label = next(k for k in params if k.startswith("Multi-Head"))
    ffn_label = next(k for k in params if k.startswith("FFN"))
    with_b = (tutor.multihead.mha_param_count(512, bias=True), tutor.block.ffn_param_count(512, 2048, bias=True))
    without_b = (tutor.multihead.mha_param_count(512, bias=False), tutor.block.ffn_param_count(512, 2048, bias=False))
    assert with_b == (1_050_624, 2_099_712) and without_b == (1_048_576, 2_097_152)
    assert (params[mha_label], params[ffn_label]) == tuple(f"{v:,}" for v in with_b)
    assert "バイアス" in mha_label and "b_1" in ffn_label and "b_2" in ffn_label
    assert "4·d_model² + 4·d_model" in table.loc[mha_label, "意味"]
    # the caption says how they were counted and gives both without biases too
    (cap,) = [c.value for c in at.caption if "base モデル" in c.value and "バイアス" in c.value]
    assert all(f"{v:,}" in cap for v in without_b)
    assert str(tb.PAPER_BIG_D_MODEL) in cap.replace(",", "")


def test_block_pre_ln_starts_with_gpt2_and_no_exam_claim(text):
    t = text[BLOCK]
    assert "GPT 系" not in t and "GPT系" not in t
    assert "Pre-LN（GPT-2 以降）" in t and "Post-LN（原論文）と Pre-LN（GPT-2 以降）" in t
    assert "G検定で問われる" not in t
    (post,) = sentence_with(t, "BERT や初代の GPT もこの形")
    assert "足し算のあとで正規化" in post or post.startswith("BERT")
    assert "GPT などで使われる **Pre-LN**" not in t


# ---------------------------------------------------------------------------
# ⑦-1: the input sum, RoPE, permutation equivariance
# ---------------------------------------------------------------------------
def test_position_input_is_scaled_embedding_plus_pe_then_dropout(text):
    t = text[POSITION]
    assert (r"\mathrm{Dropout}\big(\text{トークン埋め込み} \\ &\qquad\quad \times \sqrt{d_{\mathrm{model}}} + \mathrm{PE}\big)"
            in t)   # (broken into rows that fit a 390 px phone)
    assert r"\text{第 1 層の入力} = \text{トークン埋め込み} + \mathrm{PE}" not in t
    (drop,) = sentence_with(t, "ドロップアウト（")
    assert f"率 {tb.PAPER_DROPOUT}" in drop


def test_position_rope_depends_on_position_through_the_offset_only(text):
    t = text[POSITION]
    assert "2 つの位置の **差** だけで決まります" not in t and "スコアは位置の差だけで決まる" not in t
    (rope,) = sentence_with(t, "を通してしか影響を受けません")
    assert "中身" in rope and "**差**" in rope


def test_position_permutation_equivariance_only_without_a_mask(text):
    t = text[POSITION]
    (claim,) = sentence_with(t, "並び順が入れ替わるだけです")
    assert claim.startswith("実際、マスクをかけない自己注意では")
    assert "**並べ替え同変性**（permutation equivariance）" in t
    (mask,) = sentence_with(t, "この性質は成り立ちません")
    assert "因果マスク" in mask


PERMUTATION_TERM_VARIANTS = ("置換同変", "順列同変", "置換不変", "並べ替え不変", "並び替え同変", "並べかえ同変",
                             "順序同変", "permutation invariance", "置換等変", "並べ替え等変")


def _literals(path) -> str:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return "\n".join(n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str))


def test_one_term_for_permutation_equivariance_on_pages_and_ui():
    files = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "ui").glob("*.py"))]
    for path in files:
        strings = _literals(path)
        for variant in PERMUTATION_TERM_VARIANTS:
            assert variant not in strings, (path.name, variant)
        assert "同変" not in strings.replace("並べ替え同変性", ""), path.name
    assert "並べ替え同変性" in _literals(ROOT / POSITION)


# ---------------------------------------------------------------------------
# ④ ⑥ ⑦-4: Source-Target Attention and weight tying
# ---------------------------------------------------------------------------
def test_formula_cross_attention_query_from_the_previous_sublayer(text):
    t = text[FORMULA]
    assert "Q を訳文側の入力から作り" not in t and "訳文側（デコーダ）の入力" not in t
    (q,) = sentence_with(t, "そこでは Q を")
    assert "直前のサブレイヤー" in q
    assert "訳文側（デコーダの直前のサブレイヤーの出力）" in t


def test_encdec_cross_attention_query_from_the_previous_sublayer(text):
    (q,) = sentence_with(text[ENCDEC], "**クエリ** は")
    assert "直前のサブレイヤー" in q


def test_mask_source_target_attention_needs_only_the_source_padding_mask(text):
    t = text[MASK]
    (line,) = sentence_with(t, "Source-Target Attention は")
    assert "ソースのパディングマスクだけ" in line
    assert "エンコーダはパディングマスクだけ、デコーダは" not in t
    assert "両方（デコーダの自己注意）" in t


def test_output_weight_tying_is_a_choice(text):
    t = text[OUTPUT]
    assert "出力用の行列を別に持たず" not in t
    (tie,) = sentence_with(t, "この共有を選びました")
    assert "設計の選択" in tie and "決まりではありません" in tie
    assert r"z = h\,W_{\text{out}}" in t and r"W_{\text{out}} = E^\top" in t


# ---------------------------------------------------------------------------
# feedback on 不適切 items
# ---------------------------------------------------------------------------
def test_asks_for_incorrect_matches_the_banks_worst_form():
    forms = {f"kb.{item['id']}": item["form"] for items in knowledge.bank().values() for item in items}
    assert "worst" in forms.values() and "best" in forms.values() and "blank" in forms.values()
    for gid, form in forms.items():
        assert uq.asks_for_incorrect(quizzes.from_id(f"{gid}#0")) == (form == "worst"), gid
    calc = [g for g in quizzes.GENERATORS if not g.startswith("kb.")]
    for gid in calc:
        for seed in (0, 7):
            q = quizzes.from_id(f"{gid}#{seed}")
            assert uq.asks_for_incorrect(q) == gid.endswith("_worst"), gid


def test_feedback_wording_on_a_worst_and_a_best_item():
    worst = quizzes.from_id("kb.block.k03#0")
    best = quizzes.from_id(next(g for g in quizzes.GENERATORS if g.startswith("kb.block.")
                                and not uq.asks_for_incorrect(quizzes.from_id(g + "#0"))) + "#0")
    right = worst.choices[worst.answer]
    wrong = (worst.answer + 1) % 4
    assert uq.verdict(worst, wrong) == f"不正解です。正解（誤っている記述）は「{right}」です。"
    assert uq.verdict(worst, worst.answer) == f"正解です。「{right}」は誤っている記述です。"
    assert uq.answer_tag(worst) == "正解（誤っている記述）" and uq.answer_tag(best) == "正解"
    assert uq.mistake_line(worst, "x").startswith("あなたの選んだ選択肢は誤りではありません")
    assert uq.verdict(best, (best.answer + 1) % 4) == f"不正解です。正解は「{best.choices[best.answer]}」です。"
    assert uq.verdict(best, best.answer) == "正解です。"
    assert uq.mistake_line(best, "x") == "あなたの選んだ選択肢につながる誤解 — x"


def test_feedback_on_a_worst_item_in_the_page_quiz():
    qid = "kb.block.k03#0"
    q = quizzes.from_id(qid)
    at = open_page(BLOCK, query={"q": qid})
    assert not at.exception and at.session_state["quiz_block__ids"][0] == qid
    wrong = (q.answer + 1) % 4
    answer_card(at, 1, wrong)
    assert not at.exception
    errors = [e.value for e in at.error]
    assert f"不正解です。正解（誤っている記述）は「{q.choices[q.answer]}」です。" in errors
    assert not any(e.startswith("不正解です。正解は") for e in errors)
    assert any(w.value == f"あなたの選んだ選択肢は誤りではありません — {q.misconceptions[wrong]}" for w in at.warning)


ENCDEC = "pages/9_encdec.py"



COST = "pages/11_cost.py"



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
