"""⑦-6 原論文の実験と評価: what "Attention Is All You Need" (2017) tested beyond its training recipe —
the WMT 2014 data, the BLEU metric computed step by step, beam search's length penalty, checkpoint
averaging, the training cost of Table 2, the variations of Table 3 and English constituency parsing.

Every number comes from tutor.paper: the clipped n-gram counts, BP and BLEU, the length-penalised
scores, the averaged checkpoints, the FLOPs estimate, the published tables.
"""
import numpy as np
import pandas as pd
import streamlit as st

import ui
from tutor import numfmt
from tutor import paper as pp
from ui.figures import lines_chart, points_chart
from ui.validate import format_number

ui.page("paper")
st.caption("原論文はどんなデータで学習し、どう訳を作り、何で測ったのか：BLEU・ビームサーチの設定・表 2〜4")

DEMO = pp.bleu(pp.DEMO_CANDIDATE, pp.DEMO_REFERENCES, 2)
DEMO4 = pp.bleu(pp.DEMO_CANDIDATE, pp.DEMO_REFERENCES, 4)
CLIP = pp.ngram_match(pp.CLIP_DEMO_CANDIDATE, pp.CLIP_DEMO_REFERENCES, 1)
ALPHAS = tuple(round(0.05 * i, 2) for i in range(31))          # 0 … 1.5 for the chart and the slider
RUN_SEED = 3                                                    # the noisy descent of 可視化


def tex(x, digits: int = 3) -> str:
    """A number for LaTeX (thousands separators as {,})."""
    return numfmt.trimmed(x, digits).replace(",", "{,}")


def sci(x) -> str:
    return numfmt.sci(x, 1, tex=True)


def link(key: str, section: str = "aim") -> str:
    return f"[{ui.PAGE_BY_KEY[key].label}]({ui.section_url(key, section)})"


def match_frame(m: pp.NgramMatch) -> pd.DataFrame:
    return pd.DataFrame({f"{m.n}-gram": [" ".join(g) for g in m.grams], "候補訳の回数": list(m.counts),
                         "参照訳での最大": list(m.ref_max), "数える回数": list(m.clipped)})


def precision_frame(b: pp.Bleu) -> pd.DataFrame:
    return pd.DataFrame({"n": [m.n for m in b.matches], "一致 / 候補訳の n-gram": [f"{m.matched} / {m.total}" for m in b.matches],
                         "p_n": [format_number(m.precision, 3) for m in b.matches]})


def table2_frame() -> pd.DataFrame:
    def cell(v, fmt):
        return "—" if v is None else fmt(v)
    return pd.DataFrame({"モデル": [r.model for r in pp.TABLE2],
                         "BLEU 英独": [cell(r.bleu_de, lambda v: numfmt.trimmed(v, 2)) for r in pp.TABLE2],
                         "BLEU 英仏": [cell(r.bleu_fr, lambda v: numfmt.trimmed(v, 2)) for r in pp.TABLE2],
                         "FLOPs 英独": [cell(r.cost_de, lambda v: numfmt.sci(v, 1)) for r in pp.TABLE2],
                         "FLOPs 英仏": [cell(r.cost_fr, lambda v: numfmt.sci(v, 1)) for r in pp.TABLE2]})


def table3_frame() -> pd.DataFrame:
    return pd.DataFrame({"行": [r.group for r in pp.TABLE3], "base から変えたところ": [r.change for r in pp.TABLE3],
                         "PPL": [numfmt.fixed(r.ppl, 2) for r in pp.TABLE3], "BLEU": [numfmt.fixed(r.bleu, 1) for r in pp.TABLE3],
                         "パラメータ（百万）": ["" if r.params_m is None else str(r.params_m) for r in pp.TABLE3]})


def ranking_frame(r: pp.Ranking, names) -> pd.DataFrame:
    return pd.DataFrame({"訳の候補": list(names), "|Y|": list(r.lengths), "log P": [numfmt.trimmed(x, 3) for x in r.log_probs],
                         "lp(Y)": [numfmt.fixed(x, 3) for x in r.penalties], "スコア log P / lp": [numfmt.fixed(x, 3) for x in r.scores]})


# ---------------------------------------------------------------------------
# ねらい・解説
# ---------------------------------------------------------------------------
def aim_and_explain() -> None:
    ui.section("aim")
    st.markdown(
        "- 原論文（2017 年）が Transformer を **機械翻訳**（WMT 2014 の英独・英仏）と英語の構文解析で確かめたことと、"
        "その結果（BLEU と学習コスト）を説明できる。\n"
        "- 翻訳の自動評価指標 **BLEU** を、一致のクリップ・相乗平均・短さのペナルティの 3 点から手で計算できる。\n"
        "- 訳を作るときの設定（ビーム幅 4、**長さペナルティ** α = 0.6、**チェックポイント平均**）が何をしているかを数で確かめる。"
    )
    ui.section("explain")
    st.subheader("原論文が確かめたこと：機械翻訳と構文解析")
    explain_overview()
    st.subheader("BLEU：機械の訳を人の訳と比べる")
    explain_bleu()
    st.subheader("訳の作り方：ビームサーチの設定とチェックポイント平均")
    explain_decoding()
    ui.folded_topics("論文の実験をもう少し詳しく", (
        ("学習データとバッチ：WMT 2014 と BPE", explain_data, "data"),
        ("ハードウェア・学習時間・学習コスト（表 2）", explain_cost, "cost"),
        ("モデルの形を変えた実験（表 3）", explain_variations, "variations"),
        ("翻訳以外の課題：英語の構文解析（表 4）", explain_parsing, "parsing")), key="paper")


def explain_overview() -> None:
    big = {r.model: r for r in pp.TABLE2}["Transformer (big)"]
    st.markdown(
        "**機械翻訳** は、ある言語の文を別の言語の文に変える課題です。入力と訳文の長さは違ってよく、エンコーダが入力を読み、"
        "デコーダが入力を参照しながら訳語を 1 つずつ生成します（系列変換、Seq2Seq）。試験で機械翻訳が問われたら、"
        "「入力と出力で長さが違う系列変換で、推論は 1 語ずつ」「Transformer はもともと翻訳のために作られた」の 2 点が決め手です。"
    )
    st.markdown(
        "Vaswani ら（2017 年）の原論文は、WMT 2014 の **英語→ドイツ語** と **英語→フランス語** の翻訳で Transformer を評価しました。"
        f"big モデルは英独で **{numfmt.trimmed(big.bleu_de, 1)} BLEU** を出し、複数のモデルを組み合わせたものを含むそれまでの最高を 2 以上上回りました。"
        f"英仏では 1 つのモデルとして当時最高の **{numfmt.trimmed(big.bleu_fr, 1)} BLEU**（本文の 6.1 節では 41.0 と書かれています）を、"
        "それまでの最良のモデルの 4 分の 1 未満の学習コストで出しました。さらに翻訳以外の課題として英語の構文解析にも使い、"
        "課題向けの調整をほとんどしなくても既存の手法に並ぶことを示しました。"
    )
    st.markdown(f"学習のやり方（Adam と学習率の warm-up、ラベル平滑化 0.1、ドロップアウト 0.1）は {link('training')} で、"
                f"ビームサーチと貪欲法そのものは {link('output')} で扱います。このページは、それ以外の実験の中身を扱います。")


def explain_bleu() -> None:
    st.markdown(
        "**BLEU**（Papineni ら、2002 年）は、機械が出した訳（候補訳）と人の訳（参照訳）の間で、語の並び（n-gram）がどれだけ重なるかを"
        "測る自動評価指標です。人が採点するより速く安く、何度でも同じ値が出ます。次の 3 つが BLEU を決めます。\n\n"
        "1. **修正 n-gram 精度** $p_n$：候補訳の n-gram のうち参照訳に現れるものの割合（候補訳の側の割合＝適合率）。"
        "同じ n-gram は、どれか 1 つの参照訳に現れる最大の回数までしか数えません（**クリップ**）。\n"
        "2. **相乗平均**：$p_1$〜$p_4$ を掛けて 4 乗根をとります。1 つでも 0 なら BLEU も 0 です。\n"
        "3. **短さのペナルティ（BP）**：候補訳の語数 $c$ が参照訳の語数 $r$ 以下なら $e^{1 - r/c}$ を掛けます。長い訳には掛けません。"
    )
    st.latex(r"\begin{aligned}p_n &= \frac{\text{上限で切った一致の数}}{\text{候補訳の } n\text{-gram の数}} \\"
             r"\mathrm{BP} &= \begin{cases} 1 & (c > r) \\ e^{\,1 - r/c} & (c \le r)\end{cases}\end{aligned}")
    st.latex(r"\mathrm{BLEU} = \mathrm{BP} \cdot \exp\Big(\sum_{n=1}^{4} \tfrac{1}{4} \log p_n\Big)")
    st.markdown("BLEU は 0〜1 の値で、大きいほど人の訳に近いことを表します。論文は 100 倍して書くので、28.4 BLEU は 0.284 です。"
                "1 文だけでは 4-gram が 1 つも一致せず 0 になりやすいので、BLEU は本来、テスト用の文全体で一致と長さを合計してから計算します。"
                "小さいほど良い perplexity（正解の語の確率から作る指標）とは向きが逆なので、取り違えないようにしましょう。")


def explain_decoding() -> None:
    st.markdown(
        f"原論文は訳を **ビーム幅 {pp.PAPER_BEAM}** のビームサーチで作り、出力の長さの上限を「入力の長さ + {pp.PAPER_MAX_EXTRA}」としました。"
        "対数確率 $\\log P(Y|X)$ は語が増えるたびに負の値が足されるので、そのまま比べると短い訳が選ばれがちです。そこで GNMT"
        f"（Wu ら、2016 年）の **長さペナルティ** $lp(Y)$ で割ってから比べます（原論文は α = {numfmt.trimmed(pp.PAPER_ALPHA, 1)}）。"
    )
    st.latex(r"\begin{aligned}lp(Y) &= \left(\frac{5 + |Y|}{5 + 1}\right)^{\alpha} \\ s(Y) &= \frac{\log P(Y|X)}{lp(Y)}\end{aligned}")
    st.markdown(
        f"もう 1 つの工夫が **チェックポイント平均** です。base モデルは {pp.BASE_CHECKPOINT_MINUTES} 分おきに保存したパラメータの最後の "
        f"{pp.BASE_CHECKPOINTS} 個を、big モデルは最後の {pp.BIG_CHECKPOINTS} 個を成分ごとに平均し、その 1 つのモデルで訳しました。"
        "複数のモデルの出力を合わせるアンサンブルとは違い、訳を作る手間は 1 つのモデルのままです。"
        "これらの値は開発用のデータ（newstest2013）で試して決め、表 2 の成績はテスト用の newstest2014 で測りました。"
    )


def explain_data() -> None:
    st.markdown(
        f"英独は WMT 2014 の約 {numfmt.grouped(pp.in_man(pp.EN_DE.size))} 万文対で、文を **BPE（バイト対符号化）** でサブワードに分け、"
        f"原文と訳文で共有する約 {numfmt.grouped(pp.EN_DE.vocabulary)} トークンの語彙を使いました。BPE はよく隣り合う文字の組を"
        "つないで語彙を作る方法で、翻訳への使い方は Sennrich ら（2016 年）が示しました。"
        f"英仏はずっと大きい約 {numfmt.grouped(pp.in_man(pp.EN_FR.size))} 万文で、{numfmt.grouped(pp.EN_FR.vocabulary)} の word-piece の語彙です。"
        f"文対はおおよその長さが近いものどうしで束ね、1 つのバッチに原文・訳文それぞれ約 {numfmt.grouped(pp.BATCH_TOKENS)} トークンを入れました"
        "（長さをそろえるとパディングの無駄が減ります）。"
    )


def explain_cost() -> None:
    st.markdown(
        f"学習は NVIDIA P100 を {pp.GPUS} 台積んだ 1 台のマシンで行いました。base モデルは 1 ステップ約 {numfmt.trimmed(pp.BASE_STEP_SECONDS, 1)} 秒で "
        f"{numfmt.grouped(pp.BASE_STEPS)} ステップ（約 {pp.BASE_HOURS} 時間）、big モデルは 1 ステップ {numfmt.trimmed(pp.BIG_STEP_SECONDS, 1)} 秒で "
        f"{numfmt.grouped(pp.BIG_STEPS)} ステップ（{numfmt.trimmed(pp.BIG_DAYS, 1)} 日）です。表 2 の学習コストは"
        "「学習時間 × GPU の台数 × GPU 1 台の持続的な演算性能」で見積もった浮動小数点演算の回数（FLOPs）で、"
        f"P100 は {numfmt.trimmed(pp.GPU_TFLOPS['P100'], 1)} TFLOPS と仮定されています。"
    )
    ui.cached_table(table2_frame, hide_index=True)
    st.caption("表 2（newstest2014）。— は論文に値がないところ。Transformer の 2 行は学習コストが 1 つだけ書かれ（英独・英仏の列にまたがる）、"
               "ここでは両方の列に同じ値を入れています。")


def explain_variations() -> None:
    st.markdown(
        "base モデルの形を 1 か所ずつ変え、英独の開発用データで比べたのが表 3 です。ヘッドを 1 つにすると BLEU が 0.9 下がり、"
        "32 まで増やしても良くなりませんでした（$d_k \\times h = 512$ に保ち、計算量はそろえてあります）。$d_k$ だけを小さくすると下がり、"
        "大きなモデルほど良く、ドロップアウトをなくすと過学習で下がりました。正弦波の位置エンコーディングを学習で覚える位置埋め込みに替えても、"
        "ほとんど同じでした。**PPL（perplexity）** は正解の語の確率 $p$ から $\\exp(-\\text{平均} \\log p)$ で作る指標で、小さいほど良く、"
        "ラベル平滑化をなくす（$\\varepsilon_{ls} = 0$）と PPL は良くなりましたが BLEU は下がりました。"
    )
    ui.cached_table(table3_frame, hide_index=True)
    st.caption("表 3（newstest2013、ビームサーチあり・チェックポイント平均なし）。PPL は word-piece ごとの値で、単語ごとの値とは比べられません。")


def explain_parsing() -> None:
    st.markdown(
        f"翻訳以外に通用するかを見るため、英語の構文解析（文を句の木に分ける課題）も試しました。Penn Treebank の WSJ の約 "
        f"{numfmt.grouped(pp.in_man(pp.WSJ_SENTENCES))} 万文で {pp.PARSING_LAYERS} 層・$d_{{\\text{{model}}}} = {pp.PARSING_D_MODEL}$ の Transformer を学習すると、"
        f"F1 は **{numfmt.trimmed(pp.PARSING_F1['wsj'], 1)}** で、専用の解析器 BerkeleyParser（{numfmt.trimmed(pp.BERKELEY_F1, 1)}）を上回りました。"
        f"約 {numfmt.grouped(pp.in_man(pp.SEMI_SENTENCES))} 万文を加えた半教師ありの設定では {numfmt.trimmed(pp.PARSING_F1['semi'], 1)} です。"
        f"出力が入力よりずっと長いので、上限を入力 + {pp.PARSING_MAX_EXTRA}、ビーム幅 {pp.PARSING_BEAM}、α = {numfmt.trimmed(pp.PARSING_ALPHA, 1)} にしました。"
    )


# ---------------------------------------------------------------------------
# 手計算
# ---------------------------------------------------------------------------
def hand() -> None:
    st.subheader("修正 n-gram 精度：一致を数えて上限で切る")
    hand_clip()
    st.subheader("BLEU を手で計算する（N = 2 と N = 4）")
    hand_bleu()
    st.subheader("長さペナルティで順位が入れ替わる")
    hand_lp()
    st.subheader("チェックポイントを平均する")
    hand_checkpoints()
    st.subheader("学習コストを FLOPs で見積もる")
    hand_flops()


def _sentences(cand, refs) -> None:
    st.markdown(f"- 候補訳：「{' '.join(cand)}」（{len(cand)} 語）\n"
                + "\n".join(f"- 参照訳 {i + 1}：「{' '.join(r)}」（{len(r)} 語）" for i, r in enumerate(refs)))


def hand_clip() -> None:
    st.markdown("Papineni らが挙げたのと同じ形の例です。「の」だけを 7 回並べた候補訳を 2 つの参照訳と比べます。")
    _sentences(pp.CLIP_DEMO_CANDIDATE, pp.CLIP_DEMO_REFERENCES)
    unclipped = pp.precision_unclipped(pp.CLIP_DEMO_CANDIDATE, pp.CLIP_DEMO_REFERENCES, 1)
    st.latex(rf"p_1 = \frac{{\min({CLIP.counts[0]},\ {CLIP.ref_max[0]})}}{{{CLIP.total}}} = \frac{{{CLIP.matched}}}{{{CLIP.total}}}"
             rf" = {tex(CLIP.precision)}")
    st.markdown(f"「の」は参照訳 1 に {CLIP.ref_max[0]} 回あるので、一致は {CLIP.matched} 回までです。上限で切らずに数えると "
                f"{CLIP.total}/{CLIP.total} = {numfmt.trimmed(unclipped, 3)} になり、意味のない訳が満点を取ってしまいます。")


def hand_bleu() -> None:
    st.markdown("このページの例です（参照訳は 2 つ）。")
    _sentences(pp.DEMO_CANDIDATE, pp.DEMO_REFERENCES)
    c1, c2 = st.columns(2)
    with c1:
        ui.cached_table(match_frame, DEMO.matches[0], hide_index=True)
    with c2:
        ui.cached_table(match_frame, DEMO.matches[1], hide_index=True)
    m1, m2 = DEMO.matches
    st.latex(rf"\begin{{aligned}}p_1 &= \tfrac{{{m1.matched}}}{{{m1.total}}} = {tex(m1.precision)},\quad p_2 = \tfrac{{{m2.matched}}}{{{m2.total}}}"
             rf" = {tex(m2.precision)} \\ \sqrt{{p_1 p_2}} &= {tex(DEMO.geo_mean)}\end{{aligned}}")
    st.latex(rf"\begin{{aligned}}c &= {DEMO.c},\ r = {DEMO.r}\ (\text{{最も近い長さ}}) \\ \mathrm{{BP}} &= e^{{1 - {DEMO.r}/{DEMO.c}}}"
             rf" = {tex(DEMO.bp)} \\ \mathrm{{BLEU}} &= {tex(DEMO.bp)} \times {tex(DEMO.geo_mean)} = {tex(DEMO.score)}\end{{aligned}}")
    st.markdown(f"2-gram までの BLEU は **{numfmt.trimmed(DEMO.score, 3)}**（論文の書き方で {numfmt.trimmed(DEMO.points, 1)}）です。"
                f"短さのペナルティを忘れると {numfmt.trimmed(DEMO.geo_mean, 3)}、相乗平均の代わりに算術平均にすると "
                f"{numfmt.trimmed(pp.bleu_arithmetic_mean(pp.DEMO_CANDIDATE, pp.DEMO_REFERENCES, 2), 3)} になります。")
    ui.cached_table(precision_frame, DEMO4, hide_index=True)
    st.caption(f"4-gram まで数えると p₄ = {DEMO4.matches[3].matched}/{DEMO4.matches[3].total} なので、BLEU-4 は "
               f"{numfmt.trimmed(DEMO4.score, 3)} です。1 文では 0 になりやすいので、BLEU は本来、テスト用の文全体で一致を合計してから割ります。")


def hand_lp() -> None:
    names = ("A", "B")
    st.markdown("同じ入力の文に対して、ビームサーチで次の 2 つの訳が残ったとします（トークン数と対数確率は説明用の値）。")
    st.markdown("\n".join(f"- {n}：「{h}」 $|Y| = {ln}$、$\\log P = {tex(lp_)}$" for n, h, ln, lp_
                          in zip(names, pp.DEMO_HYPOTHESES, pp.DEMO_LENGTHS, pp.DEMO_LOG_PROBS)))
    raw = pp.rank_hypotheses(pp.DEMO_LOG_PROBS, pp.DEMO_LENGTHS, 0.0)
    paper = pp.rank_hypotheses(pp.DEMO_LOG_PROBS, pp.DEMO_LENGTHS, pp.PAPER_ALPHA)
    (la, lb), (pa, pb) = pp.DEMO_LENGTHS, pp.DEMO_LOG_PROBS
    a = tex(pp.PAPER_ALPHA, 1)
    st.latex(rf"\begin{{aligned}}lp_A &= \left(\tfrac{{5 + {la}}}{{6}}\right)^{{{a}}} = {tex(pp.length_base(la))}^{{{a}}} = {tex(paper.penalties[0])} \\"
             rf"lp_B &= \left(\tfrac{{5 + {lb}}}{{6}}\right)^{{{a}}} = {tex(pp.length_base(lb))}^{{{a}}} = {tex(paper.penalties[1])}\end{{aligned}}")
    st.latex(rf"\begin{{aligned}}s_A &= {tex(pa)} / {tex(paper.penalties[0])} = {tex(paper.scores[0])} \\"
             rf"s_B &= {tex(pb)} / {tex(paper.penalties[1])} = {tex(paper.scores[1])}\end{{aligned}}")
    flip = pp.flip_alpha(pa, la, pb, lb)
    st.markdown(f"割らなければ（α = 0）log P の大きい **{names[raw.chosen]}** が選ばれますが、α = 0.6 では 0 に近い "
                f"**{names[paper.chosen]}** が選ばれます。2 つが並ぶのは α ≈ {numfmt.trimmed(flip, 3)} で、それより大きい α では長い訳が勝ちます。")


def hand_checkpoints() -> None:
    avg = pp.average_checkpoints(pp.DEMO_CHECKPOINTS, pp.DEMO_LAST)
    n = len(pp.DEMO_CHECKPOINTS)
    ui.show_matrix(np.array(pp.DEMO_CHECKPOINTS), [f"{i + 1} 番目" for i in range(n)], ["w₁", "w₂"], digits=1,
                   caption="保存したパラメータ（古い順）")
    terms = " + ".join(tex(v) for v in avg.used[:, 0])
    st.latex(rf"\bar{{w}}_1 = \frac{{{terms}}}{{{avg.last}}} = {tex(avg.mean[0])}")
    st.markdown(f"最後の {avg.last} 個（{avg.first}〜{n} 番目）を成分ごとに平均して $(\\bar w_1, \\bar w_2) = "
                f"({tex(avg.mean[0])},\\ {tex(avg.mean[1])})$。これが 1 つのモデルのパラメータになります。")


def hand_flops() -> None:
    base_s = pp.hours_to_seconds(pp.BASE_HOURS)
    st.latex(rf"\begin{{aligned}}&{pp.BASE_HOURS}\ \text{{時間}} \times 3{{,}}600 = {tex(base_s)}\ \text{{秒}} \\"
             rf"&{tex(base_s)} \times {pp.GPUS} \times {tex(pp.GPU_TFLOPS['P100'])} \times 10^{{12}} \\ &= {sci(pp.paper_cost('base'))}"
             r"\end{aligned}")
    hours = pp.training_hours(pp.BASE_STEPS, pp.BASE_STEP_SECONDS)
    st.markdown(f"base モデル（P100 × {pp.GPUS} 台で {pp.BASE_HOURS} 時間）は約 ${sci(pp.paper_cost('base'))}$ FLOPs で、表 2 の "
                f"$3.3 \\times 10^{{18}}$ と一致します。big モデル（{numfmt.trimmed(pp.BIG_DAYS, 1)} 日 = "
                f"{numfmt.trimmed(pp.BIG_HOURS, 0)} 時間）は約 ${sci(pp.paper_cost('big'))}$ です。"
                f"学習時間そのものも、ステップ数 × 1 ステップの秒数 = {numfmt.grouped(pp.BASE_STEPS)} × "
                f"{numfmt.trimmed(pp.BASE_STEP_SECONDS, 1)} 秒 ≈ {numfmt.trimmed(hours, 1)} 時間と確かめられます。")


# ---------------------------------------------------------------------------
# 可視化
# ---------------------------------------------------------------------------
def visual() -> None:
    st.subheader("短さのペナルティ BP と候補訳の長さ")
    ratios = np.round(np.arange(0.4, 1.61, 0.02), 2)
    wrong = pp.brevity_curve_both_ways(ratios)
    ui.cached_chart(lines_chart, "候補訳の長さ ÷ 参照訳の長さ（c/r）", "掛ける係数",
                    (("BP（正しい）", tuple(ratios), tuple(pp.brevity_curve(ratios))), ("長い訳にも（誤り）", tuple(ratios), tuple(wrong))),
                    (("この例", DEMO.length_ratio, DEMO.bp),), title="BP は短い訳だけを罰する", width="stretch")
    st.caption("c/r が 1 を超えると BP は 1 のまま。長い訳は、参照訳にない語が増えて精度の分母が大きくなる形で損をします。")

    st.subheader("α を変えると選ばれる訳が変わる")
    curves = pp.score_curves(pp.DEMO_LOG_PROBS, pp.DEMO_LENGTHS, ALPHAS)
    paper = pp.rank_hypotheses(pp.DEMO_LOG_PROBS, pp.DEMO_LENGTHS, pp.PAPER_ALPHA)
    ui.cached_chart(lines_chart, "α", "スコア log P / lp(Y)",
                    ((f"A（{pp.DEMO_LENGTHS[0]} トークン）", ALPHAS, tuple(curves[:, 0])),
                     (f"B（{pp.DEMO_LENGTHS[1]} トークン）", ALPHAS, tuple(curves[:, 1]))),
                    (("α = 0.6", pp.PAPER_ALPHA, float(paper.scores[paper.chosen])),), title="上にある訳が選ばれる", width="stretch")
    st.caption("α = 0 では短い A が上、α を大きくすると長い B の点が上がり、途中で入れ替わります。")

    st.subheader("チェックポイント平均：揺れるパラメータの真ん中")
    visual_checkpoints()

    st.subheader("学習コストと BLEU（表 2、英独）")
    pts = [(SHORT.get(r.model, r.model), r.cost_de, r.bleu_de,
            "Transformer" if r.transformer else ("アンサンブル" if r.ensemble else "単一モデル"), r.model in BELOW)
           for r in pp.TABLE2 if r.cost_de is not None and r.bleu_de is not None]
    ui.cached_chart(points_chart, tuple(pts), "学習コスト（FLOPs、対数目盛）", "BLEU", title="左上ほど安くて良い", log_x=True,
                    x_format=".0e", x_ticks=(1e18, 1e19, 1e20, 1e21), width="stretch")
    st.caption("「組」は複数のモデルを組み合わせたアンサンブル。base は比べたどのモデルより安く、big はどれより BLEU が高い。")

    st.subheader("ヘッドの数と BLEU（表 3 の A 行）")
    heads = [(f"h = {h}", h, pp.heads_row_for(h).bleu, "base" if h == 8 else "A 行") for h in (1, 4, 8, 16, 32)]
    ui.cached_chart(points_chart, tuple(heads), "ヘッドの数 h（対数目盛）", "BLEU（開発用）", title="1 つでは足りず、多すぎても下がる",
                    log_x=True, line=True, width="stretch")


SHORT = {"GNMT + RL": "GNMT", "GNMT + RL Ensemble": "GNMT 組", "ConvS2S Ensemble": "ConvS2S 組",
         "Transformer (base)": "base", "Transformer (big)": "big"}
BELOW = ("GNMT + RL", "GNMT + RL Ensemble")          # labels drawn under the point: their neighbours' sit above


def visual_checkpoints() -> None:
    run = pp.noisy_descent(np.random.default_rng(RUN_SEED), last=pp.BASE_CHECKPOINTS)
    n, k = len(run.checkpoints), run.average.last
    pts = [("", x, y, f"最後の {k} 個" if i >= n - k else f"その前の {k} 個")
           for i, (x, y) in enumerate(run.checkpoints) if i >= n - 2 * k]
    pts += [("平均", *run.average.mean, "最後の 5 個の平均", True), ("", *pp.BOWL_MINIMUM, "損失が最小の点")]
    ui.cached_chart(points_chart, tuple(pts), "w₁", "w₂", title="学習の終わりに保存したパラメータ", width="stretch")
    st.caption(f"2 つのパラメータの谷をノイズのある勾配で下ったとき、最後の {k} 個の損失の平均は "
               f"{numfmt.fixed(run.used_losses_mean, 3)}、それらを平均したパラメータの損失は {numfmt.fixed(run.average_loss, 3)} です。"
               "ミニバッチの揺れで谷底の周りを動くパラメータを平均すると、谷の真ん中に近づきます（モデルは 1 つのまま）。")


# ---------------------------------------------------------------------------
# 試してみよう
# ---------------------------------------------------------------------------
def try_it() -> None:
    st.subheader("自分の訳で BLEU を計算する")
    try_bleu()
    st.subheader("長さペナルティの α を動かす")
    try_lp()
    st.subheader("学習コストを見積もる")
    try_flops()


MISTAKE_LABELS = (("no_bp", "BP を掛け忘れる"), ("arithmetic", "算術平均にする"), ("unclipped", "クリップしない"),
                  ("recall", "再現率で数える"))


def _bleu_from_text(cand: str, ref1: str, ref2: str, max_n: int) -> tuple[pp.Bleu, dict]:
    """BLEU of the typed sentences and what the named mistakes give (one engine call per number)."""
    c = pp.split_sentence(cand, "候補訳")
    refs = [pp.split_sentence(ref1, "参照訳 1 ")] + ([pp.split_sentence(ref2, "参照訳 2 ")] if ref2.strip() else [])
    return pp.bleu(c, refs, max_n), {name: pp.bleu_mistake(c, refs, key, max_n) for key, name in MISTAKE_LABELS}


@st.fragment
def try_bleu() -> None:
    """BLEU on the learner's sentences as a fragment: an edit reruns this part only."""
    cand = st.text_input("候補訳（単語を空白で区切る）", value=" ".join(pp.DEMO_CANDIDATE), key="paper_cand", persist_state="session")
    ref1 = st.text_input("参照訳 1", value=" ".join(pp.DEMO_REFERENCES[0]), key="paper_ref1", persist_state="session")
    ref2 = st.text_input("参照訳 2（空でもよい）", value=" ".join(pp.DEMO_REFERENCES[1]), key="paper_ref2", persist_state="session")
    max_n = st.select_slider("N（何 gram まで数えるか）", options=[1, 2, 3, 4], value=2, key="paper_n", persist_state="session")
    result = ui.compute("paper_bleu", _bleu_from_text, cand, ref1, ref2, int(max_n))
    if result is None:
        return
    b, wrong = result
    ui.cached_table(precision_frame, b, hide_index=True)
    c1, c2 = st.columns(2)
    c1.metric("BP", numfmt.fixed(b.bp, 3))
    c2.metric(f"BLEU（N = {b.max_n}）", numfmt.fixed(b.score, 3))
    st.caption(f"c = {b.c}、r = {b.r}。よくある誤りで計算すると："
               + "、".join(f"{k} {numfmt.fixed(v, 3)}" for k, v in wrong.items()) + "。")


@st.fragment
def try_lp() -> None:
    """The length penalty as a fragment: α or a hypothesis reruns this part only."""
    alpha = st.select_slider("α", options=list(ALPHAS), value=pp.PAPER_ALPHA, key="paper_alpha", persist_state="session")
    c1, c2 = st.columns(2)
    with c1:
        la = ui.number_input("A の長さ |Y|", min_value=1, max_value=200, value=pp.DEMO_LENGTHS[0], key="paper_len_a",
                             persist_state="session")
        pa = ui.number_input("A の log P", min_value=-100.0, max_value=0.0, value=pp.DEMO_LOG_PROBS[0], step=0.1,
                             key="paper_logp_a", persist_state="session")
    with c2:
        lb = ui.number_input("B の長さ |Y|", min_value=1, max_value=200, value=pp.DEMO_LENGTHS[1], key="paper_len_b",
                             persist_state="session")
        pb = ui.number_input("B の log P", min_value=-100.0, max_value=0.0, value=pp.DEMO_LOG_PROBS[1], step=0.1,
                             key="paper_logp_b", persist_state="session")
    r = ui.compute("paper_rank", pp.rank_hypotheses, [pa, pb], [int(la), int(lb)], float(alpha))
    if r is None:
        return
    ui.cached_table(ranking_frame, r, ("A", "B"), hide_index=True)
    st.metric("選ばれる訳", "AB"[r.chosen])
    st.caption(f"log P だけで比べると {'AB'[r.raw_choice]} が選ばれます。" + (
        "どちらも同じスコアです。" if r.scores[0] == r.scores[1] else ""))


@st.fragment
def try_flops() -> None:
    """The cost estimate as a fragment: a GPU, a count or a time reruns this part only."""
    gpu = st.selectbox("GPU（論文が仮定した性能）", list(pp.GPU_TFLOPS), index=3, key="paper_gpu", persist_state="session",
                       format_func=lambda g: f"{g}（{numfmt.trimmed(pp.GPU_TFLOPS[g], 1)} TFLOPS）")
    c1, c2 = st.columns(2)
    with c1:
        gpus = ui.number_input("GPU の台数", min_value=1, max_value=1024, value=pp.GPUS, key="paper_gpus", persist_state="session")
    with c2:
        hours = ui.number_input("学習時間（時間）", min_value=0.1, max_value=10_000.0, value=float(pp.BASE_HOURS), step=1.0,
                                key="paper_hours", persist_state="session")
    flops = ui.compute("paper_flops", pp.training_flops, float(hours), int(gpus), pp.GPU_TFLOPS[gpu])
    if flops is None:
        return
    st.metric("学習コストの見積もり（FLOPs）", numfmt.sci(flops, 1))
    cheaper = [r.model for r in pp.TABLE2 if r.cost_de is not None and r.cost_de > flops]
    st.caption(f"表 2 の英独の列で、これより学習コストが大きいモデル：{len(cheaper)} 個"
               + (f"（{'、'.join(cheaper)}）。" if cheaper else "。"))


ui.sections("paper", [("aim", aim_and_explain), ("hand", hand), ("visual", visual), ("try", try_it)],
            after_quiz=lambda: ui.next_link("paper"))
