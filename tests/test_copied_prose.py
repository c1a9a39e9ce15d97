"""The known copied sentences and table cells are gone from the pages (seeds: tests/test_own_words.py)."""
import pytest

from apphelpers import lesson_text, open_page, page_text


NAIVE, QKV, SCALING, FORMULA = "pages/1_naive.py", "pages/2_qkv.py", "pages/3_scaling.py", "pages/4_formula.py"
PAGES_1_4 = (NAIVE, QKV, SCALING, FORMULA)
GONE_1_4 = {
    NAIVE: ["見つけてもらうための目印", "どんな文脈でも「それ」に同じベクトルを返します", "弱点 4：学習の余地がない",
            "弱点 1：自分ばかり見る", "弱点 3：探す目印と渡す中身が同じ", "この 4 つをまとめて解決するのが",
            "行が「見る側」、列が「見られる側」", "内積 → softmax → 重み付き平均", "重み行列"],
    QKV: ["自分のクエリと自分のキーが似ている必要もありません", "渡す中身もバリューという別のベクトルです",
          "人が設計するのではなく", "棚に並んだ本の背", "素朴版（Q・K・V なし）", "重み行列"],
    SCALING: ["サイコロを 1 個振るより 64 個振って", "でほぼ独り占めです", "と出たとします",
              "情報を混ぜられない", "学習が進まない", "s'"],
    FORMULA: ["Attention を 1 回通っただけで", "ほぼ魚の情報に置き換わりました", "埋め込みを縦に積む",
              "全トークンのクエリ（探す顔）", "全トークンのキー（探される顔）", "全トークンのバリュー（渡す中身）",
              "Attention の重み（各行の合計 1）", "デコーダ側の文", "エンコーダ側の文", "クエリの出どころ",
              "入口から出口まで全要素を追います", "伝言ゲーム", "重み行列"],
}


MH = "pages/5_multihead.py"
MASK = "pages/6_mask.py"
POSITION = "pages/7_position.py"
BLOCK = "pages/8_block.py"
PAGES_5_7 = (MH, MASK, POSITION, BLOCK)
GONE_5_7 = {
    MH: ["各ヘッドは $d_k = 64$ 次元で働きます", "1 つ前のトークンに重みが集まっています",
         "先頭の 猫 は前がないので自分を見ます", "自分専用の $W_Q^{(i)}", "2 人の係のメモが混ざった",
         "前半が照応係のメモ", "1 組の $W_Q, W_K, W_V$ から作れる", "説明用の値"],
    MASK: ["照応は無傷です", "原因（過去）から結果（未来）への向きを守らせる", "答えを見ながら答える",
           "場合分けを書かずに、足し算だけで", "前に語がないので自分だけを見ます", "右上（未来を見る組）が"],
    POSITION: ["順番が自然に入りますが", "周期の違う sin 波と cos 波を並べたベクトルを使いました",
               "意味のベクトル（トークン埋め込み）", "順番を別に教える仕組みが要ります", "第 8 章"],
    BLOCK: ["トークンどうしの情報を混ぜるのに対し", "非線形の活性化関数を通し、元の",
            "何層重ねても 1 つの行列の掛け算にまとまってしまいます", "「入力からの変化分」だけを学べばよく",
            "最後に LayerNorm を 1 回足します"],
}


ENCDEC = "pages/9_encdec.py"
OUTPUT = "pages/10_output.py"
COST = "pages/11_cost.py"
TRAINING = "pages/12_training.py"


@pytest.mark.parametrize("page", PAGES_1_4)
def test_copied_sentences_and_cells_are_gone(pages, page):
    text = lesson_text(pages[page])
    for phrase in GONE_1_4[page]:
        assert phrase not in text, (page, phrase)


def test_copied_sentences_are_gone_in_the_other_branches_too():
    """Exact mode on ④ and the 'self is not the top' branches after edits."""
    at = open_page(FORMULA, section="hand")
    at.toggle(key="formula_pencil").set_value(False).run()
    text = lesson_text(at)
    for phrase in GONE_1_4[FORMULA]:
        assert phrase not in text, phrase


@pytest.mark.parametrize("page", PAGES_5_7)
def test_copied_sentences_are_gone(pages, page):
    text = lesson_text(pages[page])
    for phrase in GONE_5_7[page]:
        assert phrase not in text, (page, phrase)


def test_old_copied_sentences_are_gone(pages):
    assert "入力と出力がはっきり分かれる仕事" not in page_text(pages[ENCDEC])
    assert "Transformer の全体像" not in page_text(pages[ENCDEC])
    assert "| 層の種類 | 層ごとの計算量 | 逐次操作の数 | 位置間の最大経路長 |" not in page_text(pages[COST])
    assert "| 層 | 計算量（1 層） | 逐次操作 | 最大経路長 |" in page_text(pages[COST])
    assert "文脈の情報が織り込まれています" not in page_text(pages[OUTPUT])
    assert "を直す手がかりが届きません" not in page_text(pages[TRAINING])
