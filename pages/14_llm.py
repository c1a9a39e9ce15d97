"""⑩-1 大規模言語モデルとその後：GPT-2/3 の大きさ、スケーリング則、BPE、ViT のあとの画像モデル（Swin・MAE）。
指示チューニングと RLHF（報酬モデル・KL の罰）は ⑩-2（pages/18_adapt.py）、推論のコスト（KV キャッシュ・MQA/GQA・
FlashAttention）は ⑩-3（pages/19_efficient.py）、CLIP は ⑪（pages/24_multimodal.py）へ移った。

Every number comes from tutor.llm: parameter counts, the compute-optimal split of a budget, BPE's
merges, Swin's costs and windows, MAE's mask.
"""
import numpy as np
import pandas as pd
import streamlit as st

import ui
from tutor import llm, numfmt, pretrain

ui.page("llm")

GPT3 = llm.GPT_SIZES["GPT-3 175B"]
SWIN_DEMO = {"h": 56, "w": 56, "channels": 96, "window": 7}   # Swin-T's first stage
MAE_IMAGE, MAE_PATCH = 224, 16


def count(x) -> str:
    return numfmt.grouped(x)


def tcount(x) -> str:
    """count() inside LaTeX: the thousands separators as {,} (no space after them)."""
    return count(x).replace(",", "{,}")


def sci(x, digits: int = 2) -> str:
    """x in powers of ten for LaTeX, trailing zeros of the mantissa dropped: 7.00×10¹⁰ → 7\\times 10^{10}."""
    mantissa, power = numfmt.sci(x, digits, tex=True).split(r"\times")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return mantissa + r"\times" + power


# ---------------------------------------------------------------------------
# tables and charts (display only: every number is the engine's)
# ---------------------------------------------------------------------------
def gpt_frame(p: llm.GptParams) -> pd.DataFrame:
    return pd.DataFrame({
        "部分": ["トークン埋め込み（出力層と共有）", "位置埋め込み", "注意（1 層）", "FFN（1 層）", "層正規化 2 つ（1 層）",
               f"{p.layers} 層の合計", "最後の層正規化", "合計"],
        "数え方": ["V × d", "T × d", "4d² + 4d", "2·d·4d + 4d + d", "4d", "L × 1 層分", "2d", ""],
        "パラメータ数": [count(p.token_embedding), count(p.position_embedding), count(p.attention), count(p.ffn),
                    count(p.norms), count(p.blocks), count(p.final_norm), count(p.total)],
    })


def sizes_frame() -> pd.DataFrame:
    rows = []
    for name, s in llm.GPT_SIZES.items():
        p = llm.gpt_param_count(s["layers"], s["d_model"], context=s["context"])
        rows.append({"モデル": name, "層数 L": s["layers"], "幅 d": count(s["d_model"]), "数えた合計": count(p.total),
                     "12·L·d²": count(p.rule_of_thumb), "見積もり ÷ 合計": numfmt.fixed(p.rule_share, 3)})
    return pd.DataFrame(rows)


def bpe_frame(result: llm.BpeResult) -> pd.DataFrame:
    return pd.DataFrame({
        "回": [i + 1 for i in range(len(result.steps))],
        "つないだ組": [f"{a} + {b} → {a}{b}" for a, b in result.merges],
        "出現回数": [s.count for s in result.steps],
        "記号の種類": [len(s.vocabulary) for s in result.steps],
    })


def bpe_words_frame(result: llm.BpeResult) -> pd.DataFrame:
    last = result.steps[-1].segments if result.steps else result.start
    return pd.DataFrame({"単語": list(result.words), "回数": list(result.counts),
                         "最初（文字ごと）": [" ".join(s) for s in result.start],
                         "マージの後": [" ".join(s) for s in last]})


# ---------------------------------------------------------------------------
# ねらい・解説
# ---------------------------------------------------------------------------
def aim_and_explain() -> None:
    ui.section("aim")
    st.markdown(
        "- **GPT-2・GPT-3** がデコーダだけの Transformer を大きくしたものだと説明でき、層の数と幅からパラメータ数を "
        "$12 L d^2$ で見積もれる。\n"
        "- **スケーリング則**（損失がべき乗則で下がる）と、計算量 $C \\approx 6ND$ の予算をモデルの大きさ $N$ とデータ量 $D$ に"
        "分ける考え方（$D \\approx 20N$）を説明できる。\n"
        "- **zero-shot・few-shot（文脈内学習）・Chain-of-Thought** と **ハルシネーション** を説明できる"
        "（指示チューニング・RLHF など重みを学習し直して目的に合わせる方法は ⑩-2）。\n"
        "- サブワード分割 **BPE** の手順をたどれる（推論を軽くする KV キャッシュ・MQA/GQA・FlashAttention は "
        f"[{ui.PAGE_BY_KEY['efficient'].label}]({ui.section_url('efficient', 'aim')})）。\n"
        "- ViT のあとの **Swin Transformer・MAE** の要点を、計算量とパッチの数で確かめる（画像と文をつなぐ CLIP は "
        f"[{ui.PAGE_BY_KEY['multimodal'].label}]({ui.section_url('multimodal', 'aim')})）。"
    )
    ui.section("explain")
    st.subheader("GPT-2・GPT-3：デコーダだけのモデルを大きくする")
    explain_gpt()
    st.subheader("スケーリング則と計算量の配分")
    explain_scaling()
    ui.folded_topics("大規模言語モデルの時代のキーワード", (
        ("プロンプトだけで課題を解かせる", explain_prompting, "prompting"),
        ("ハルシネーション：もっともらしい誤り", explain_hallucination, "hallucination"),
        ("文章をトークンに分ける：BPE", explain_bpe, "bpe"),
        ("ViT のあと：Swin Transformer・MAE", explain_vision, "vision")), key="llm")


def explain_gpt() -> None:
    xl = llm.GPT_SIZES["GPT-2 XL"]
    xl_total = llm.gpt_param_count(xl["layers"], xl["d_model"], context=xl["context"]).total
    g3_total = llm.gpt_param_count(GPT3["layers"], GPT3["d_model"], context=GPT3["context"]).total
    st.markdown(
        "⑨ で見た GPT は、因果マスク付きのデコーダだけを重ね、次のトークンを当てる課題で事前学習するモデルでした。"
        "GPT-2（2019 年）と GPT-3（2020 年）は、この形をほとんど変えずに、**層の数・幅・学習データを大きくした** ものです"
        "（層正規化をサブ層の前に置く Pre-LN は GPT-2 から）。"
        f"GPT-2 の最大のモデルは {xl['layers']} 層・幅 {count(xl['d_model'])} で約 ${sci(xl_total)}$、"
        f"GPT-3 の最大のモデルは {GPT3['layers']} 層・幅 {count(GPT3['d_model'])} で約 ${sci(g3_total)}$ パラメータです"
        "（よく「175B」と書かれる大きさ）。"
    )
    st.markdown("1 層の変換行列は、注意の $W_Q, W_K, W_V, W_O$（どれも $d \\times d$）で $4d^2$、FFN（$d \\to 4d \\to d$）で "
                "$8d^2$、合わせて $12d^2$ です。これが $L$ 層あるので、パラメータ数はおよそ次の式で見積もれます。"
                "バイアス・層正規化・埋め込みは、大きなモデルでは全体のわずかです（手計算で確かめます）。")
    st.latex(r"N \approx 12\,L\,d_{\text{model}}^2")


def explain_scaling() -> None:
    st.markdown(
        "同じやり方で大きさだけを変えたモデルを学習すると、テストの損失 $L$ は、パラメータ数 $N$・データ量 $D$・"
        "計算量 $C$ のどれについても **べき乗則** に沿って下がることが分かりました（Kaplan ら、2020 年）。"
        "両対数のグラフでは直線になるので、小さなモデルの実験から大きなモデルの損失を見積もれます。"
        "これを **スケーリング則** と呼びます。"
    )
    st.latex(r"L(N) = \left(\frac{N_c}{N}\right)^{\alpha_N},\quad \alpha_N \approx "
             + numfmt.trimmed(llm.KAPLAN_ALPHA_N, 3))
    st.markdown(
        f"学習の計算量は、1 パラメータ・1 トークンにつき順伝播で約 2 回、逆伝播で約 4 回の演算がかかるので "
        f"$C \\approx {llm.FLOPS_PER_PARAM_TOKEN}ND$ です。予算 $C$ が決まっているとき、$N$ と $D$ にどう分けるのがよいでしょうか。"
        f"Chinchilla の研究（Hoffmann ら、2022 年）は、**$N$ と $D$ を同じ割合で増やし、トークン数をパラメータ数の約 "
        f"{llm.TOKENS_PER_PARAM} 倍にする** のが最もよいと報告しました。"
    )
    st.latex(r"\begin{aligned}C &= 6N \cdot 20N = 120N^2 \\ \Rightarrow\; N &= \sqrt{C/120},\quad D = 20N\end{aligned}")
    g3 = llm.training_flops(175_000_000_000, llm.GPT3_TRAINING_TOKENS)
    st.markdown(f"GPT-3 は約 1,750 億パラメータを約 ${sci(llm.GPT3_TRAINING_TOKENS, 0)}$ トークンで学習しました"
                f"（$C \\approx {sci(g3)}$）。この目安で見ると、モデルに比べてデータが少なすぎたことになります。"
                "予算を 4 倍にしたら、$N$ も $D$ も 2 倍にするのが目安です。")


def explain_prompting() -> None:
    st.markdown(
        "大きな言語モデルは、重みを変えなくても、入力（**プロンプト**）の書き方だけで多くの課題をこなします。"
        "例を見せず指示だけで解かせるのが **zero-shot**、例を 1 つ見せるのが one-shot、数個見せるのが **few-shot** です。"
        "プロンプトの中の例から課題を読み取るこの振る舞いを **文脈内学習（in-context learning）** と呼びます。"
        "プロンプトが唯一の「学習」で、パラメータは 1 つも変わりません。"
    )
    st.markdown(
        "例の中に答えに至る途中の考えを書いておき、モデルにも途中の考えを書かせてから答えさせる工夫が "
        "**Chain-of-Thought（思考の連鎖）** です。計算や推論が必要な問題で正答率が上がります。"
        "例を見せずに「順を追って考えよう」といった一言を添えるだけでも効果があると報告されています。"
    )
    st.markdown(f"指示チューニング・RLHF・LoRA・RAG など、モデルを目的に合わせる方法は "
                f"[{ui.PAGE_BY_KEY['adapt'].label}]({ui.PAGE_BY_KEY['adapt'].url}) で学びます。")


def explain_hallucination() -> None:
    st.markdown(
        "大規模言語モデルは、事実と違う内容や存在しない出典を、もっともらしく自信ありげに書くことがあります。"
        "これを **ハルシネーション** と呼びます。次のトークンを予測する学習は「学習データにありそうな続き」の確率を高める"
        "学習で、内容が事実かどうかを確かめる仕組みも、「分からない」と答える動機も含みません。"
        "そのため、知らないことを尋ねられても、ありそうな続きを作ってしまいます。"
        "モデルを大きくしても、温度を 0 にしてもなくなりはしません。外部の文書を検索して根拠として入力に加える方法（RAG）や、"
        "出典の確認で減らします。"
    )


def explain_bpe() -> None:
    st.markdown(
        "大規模言語モデルは、文章を単語でも文字でもなく **サブワード** に分けてトークンにします。代表的な作り方が "
        "**BPE（バイト対符号化）** です。1 文字ずつの記号から始め、コーパスで隣り合って最もよく現れる組を 1 つの記号につなぐことを、"
        "決めた回数くり返します。よく現れる語は 1 トークンになり、初めて見る語もより短い部分の並びで表せるので、"
        f"未知語の記号がほとんどいりません。GPT-2 はバイト単位の BPE で語彙 {count(llm.GPT_VOCAB_SIZE)} を作りました。"
    )


def explain_vision() -> None:
    st.markdown(
        "**Swin Transformer**（Liu ら、2021 年）は、特徴マップを $M \\times M$ の窓に分け、窓の中だけで自己注意をとります。"
        "次の層では窓を半分ずらして窓をまたぐ情報も混ぜ、段階ごとにパッチを統合して解像度を下げます（階層構造）。"
        "1 トークンが組む相手が $M^2$ 個に減るので、計算量は画像の大きさに比例する量で済みます。"
        "試験で ViT と見分ける決め手は、全パッチの組ではなく **窓の中だけ** で注意をとり、**ずらした窓** で窓どうしをつなぐことです。"
    )
    st.latex(r"\begin{aligned}\Omega_{\text{全体}} &= 4hwC^2 + 2(hw)^2 C \\ \Omega_{\text{窓}} &= 4hwC^2 + 2M^2\,hw\,C\end{aligned}")
    st.markdown(
        f"**MAE**（Masked Autoencoder、2021 年）は、パッチの **{llm.MAE_MASK_PERCENT} %** をランダムに隠し、大きなエンコーダには"
        "見えるパッチだけを通します。小さなデコーダが、隠した位置の印を加えた全パッチから画素を復元します（非対称な構成）。"
    )
    st.markdown(f"画像と文をつなぐ CLIP は [{ui.PAGE_BY_KEY['multimodal'].label}]({ui.section_url('multimodal', 'aim')}) で扱います。")


# ---------------------------------------------------------------------------
# 手計算
# ---------------------------------------------------------------------------
def hand() -> None:
    st.subheader("GPT-3 のパラメータ数を数える")
    hand_gpt()
    st.subheader("計算量の予算から N と D を決める")
    hand_budget()
    st.subheader("BPE：よく出る組を 1 つずつつなぐ")
    hand_bpe()
    st.subheader("Swin Transformer：窓の中だけで注意する")
    hand_swin()
    st.subheader("MAE：見えるパッチの数")
    hand_mae()


def hand_gpt() -> None:
    p = llm.gpt_param_count(GPT3["layers"], GPT3["d_model"], context=GPT3["context"])
    st.markdown(f"L = {p.layers}、d = {count(p.d_model)}、FFN の幅 4d = {count(p.d_ff)}、語彙 V = {count(p.vocab)}、"
                f"位置 T = {count(p.context)} として、すべての部分を数えます。")
    ui.cached_table(gpt_frame, p, hide_index=True)
    st.latex(rf"\begin{{aligned}}12 L d^2 &= 12 \times {p.layers} \times {tcount(p.d_model)}^2 \\ &= {tcount(p.rule_of_thumb)}"
             r"\end{aligned}")
    st.markdown(f"数えた合計 **{count(p.total)}**（約 ${sci(p.total)}$）に対して、$12Ld^2$ の見積もりは "
                f"**{count(p.rule_of_thumb)}** で、合計の {numfmt.percent(p.rule_share, 1)} にあたります。"
                "バイアスと層正規化と埋め込みを全部足しても 1 % に届きません。")
    st.caption("GPT-2 と GPT-3 の公開された大きさで同じように数えると、次のようになります（出力層はトークン埋め込みを共有）。")
    ui.cached_table(sizes_frame, hide_index=True)


def hand_budget() -> None:
    c = llm.budget_for(llm.CHINCHILLA["params"])
    best = llm.compute_optimal(c)
    st.latex(rf"\begin{{aligned}}C &= {sci(c)} \\ N &= \sqrt{{C/120}} = {sci(best.params)} \\"
             rf"D &= 20N = {sci(best.tokens)}\end{{aligned}}")
    st.markdown(f"予算 $C = {sci(c)}$ FLOP なら、約 ${sci(best.params)}$ パラメータのモデルを ${sci(best.tokens)}$ トークンで"
                "学習するのが最適です。これは Chinchilla の設定（700 億パラメータ、1.4 兆トークン）そのものです。")
    g3 = llm.training_flops(175_000_000_000, llm.GPT3_TRAINING_TOKENS)
    alt = llm.compute_optimal(g3)
    st.markdown(f"GPT-3 と同じ予算 $C = {sci(g3)}$ なら、最適な配分は約 ${sci(alt.params)}$ パラメータ・"
                f"${sci(alt.tokens)}$ トークンで、実際（$1.75 \\times 10^{{11}}$ パラメータ・${sci(llm.GPT3_TRAINING_TOKENS, 0)}$ トークン）"
                "よりモデルが小さく、データが多くなります。")


def hand_bpe() -> None:
    result = llm.bpe_train(llm.BPE_DEMO_CORPUS, 8)
    st.markdown("小さなコーパス（単語と出現回数）で、8 回つなぎます。組の出現回数は単語の回数の重みつきで数え、"
                "同じ回数ならコーパスを読んで先に出てくる組を選びます。")
    ui.cached_table(bpe_frame, result, hide_index=True)
    first = result.steps[0]
    st.markdown(f"1 回目は「{first.pair[0]}」と「{first.pair[1]}」の組が {first.count} 回で最多でした"
                f"（この組を含む単語の回数の合計）。")
    ui.cached_table(bpe_words_frame, result, hide_index=True)
    new = [(w, llm.bpe_tokenize(w, result.merges)) for w in llm.BPE_DEMO_NEW_WORDS]
    st.markdown("学習したつなぎ方を同じ順に当てはめると、コーパスにない語もサブワードの並びになります："
                + "、".join(f"{w} → {' ＋ '.join(seg)}" for w, seg in new) + "。")


def hand_swin() -> None:
    s = llm.swin_cost(SWIN_DEMO["h"], SWIN_DEMO["w"], SWIN_DEMO["channels"], SWIN_DEMO["window"])
    st.markdown(f"Swin-T の最初の段（224×224 の画像を 4×4 のパッチに分けた {s.h}×{s.w} トークン、C = {s.channels}）で、"
                f"窓の大きさ M = {s.window} のとき：")
    st.latex(rf"\begin{{aligned}}2(hw)^2C &= 2 \times {tcount(s.tokens)}^2 \times {s.channels} \\ &= {tcount(s.global_attention)} \\"
             rf"2M^2\,hw\,C &= 2 \times {s.window}^2 \times {tcount(s.tokens)} \times {s.channels} \\ &= {tcount(s.window_attention)}"
             r"\end{aligned}")
    st.markdown(f"注意の部分は **{s.attention_ratio} 分の 1**（$hw/M^2 = {count(s.tokens)}/{s.window}^2$、窓の数と同じ）になります。"
                f"射影 $4hwC^2 = {tcount(s.projections)}$ を含めた全体では {numfmt.fixed(s.total_ratio, 1)} 分の 1 です。")


def hand_mae() -> None:
    n = llm.mae_visible_all_patches(MAE_IMAGE, MAE_PATCH)
    vis = llm.mae_image_visible(MAE_IMAGE, MAE_PATCH)
    st.latex(rf"\left(\frac{{{MAE_IMAGE}}}{{{MAE_PATCH}}}\right)^2 = {n},\qquad {n} \times "
             rf"\frac{{100 - {llm.MAE_MASK_PERCENT}}}{{100}} = {vis}")
    st.markdown(f"{MAE_IMAGE}×{MAE_IMAGE} の画像を {MAE_PATCH}×{MAE_PATCH} のパッチに分けると {n} 個。"
                f"{llm.MAE_MASK_PERCENT} % を隠すと、エンコーダが処理するのは **{vis} 個** だけです。"
                f"デコーダは {vis} 個の出力に、隠した {llm.mae_hidden(n)} 個の位置の印（マスクトークン）を加えた {n} 個を受け取ります。")


# ---------------------------------------------------------------------------
# 可視化
# ---------------------------------------------------------------------------
def visual() -> None:
    st.subheader("スケーリング則：両対数のグラフで直線になる")
    ns, losses = llm.loss_curve()
    marks = tuple((name, float(p.total), float(llm.power_law_loss(p.total)))
                  for name, p in ((n, llm.gpt_param_count(s["layers"], s["d_model"], context=s["context"]))
                                  for n, s in llm.GPT_SIZES.items() if n in ("GPT-2 XL", "GPT-3 175B")))
    ui.cached_chart(ui.figures.lines_chart, "パラメータ数 N", "損失 L(N)", (("損失 L(N)（べき乗則）", tuple(ns), tuple(losses)),),
                    marks, title="損失はパラメータ数のべき乗で下がる", y_format=".1f", log=True)
    st.caption(f"パラメータ数を 10 倍にするたびに、損失は {numfmt.fixed(llm.loss_factor(10), 3)} 倍になります"
               "（同じ量ずつではなく、同じ割合ずつ下がる）。")
    st.subheader("計算量の予算と、最適なモデルとデータの大きさ")
    budgets, params, tokens = llm.optimal_curve()
    g3 = llm.training_flops(175_000_000_000, llm.GPT3_TRAINING_TOKENS)
    chin = llm.budget_for(llm.CHINCHILLA["params"])
    ui.cached_chart(ui.figures.lines_chart, "計算量 C（FLOP）", "数",
                    (("最適なパラメータ数 N", tuple(budgets), tuple(params)), ("最適なトークン数 D", tuple(budgets), tuple(tokens))),
                    (("GPT-3 の N", float(g3), 1.75e11), ("GPT-3 の D", float(g3), float(llm.GPT3_TRAINING_TOKENS)),
                     ("Chinchilla の N", float(chin), float(llm.CHINCHILLA["params"]))),
                    title="予算が 100 倍なら N も D も 10 倍", y_format=".0e", log=True)
    st.subheader("Swin の窓と、ずらした窓")
    ids, shifted = llm.swin_window_ids(8, 8, 4), llm.swin_window_ids(8, 8, 4, shifted=True)
    pos = [str(i + 1) for i in range(8)]
    ui.figures.side_by_side([(ids, pos, pos, "窓（4×4）の番号"), (shifted, pos, pos, "2 つずらした窓の番号")], digits=0)
    st.caption("8×8 のトークンを M = 4 の窓に分けた例。次の層では境界が 2 つずれ、前の層で別々の窓だったトークンが"
               "同じ窓に入ります（端の窓は小さくなる）。")
    st.subheader("MAE：ランダムに隠したパッチ")
    visual_mae()


def visual_mae() -> None:
    grid_shape = pretrain.vit_patch_grid(MAE_IMAGE, MAE_IMAGE, MAE_PATCH)
    split = llm.mae_mask(grid_shape.patches, np.random.default_rng(0))
    grid = split.grid(grid_shape.rows, grid_shape.cols)
    pos = [str(i + 1) for i in range(grid_shape.cols)]
    ui.heatmap(grid, pos, pos, digits=0, x_title="横のパッチ", y_title="縦のパッチ",
               title=f"1 = 見える（{split.encoder_tokens} 個）、0 = 隠す（{split.masked.size} 個）")
    st.caption("シード 0 で引いたマスク。エンコーダは 1 の位置だけを、デコーダは全部の位置を受け取ります。")


# ---------------------------------------------------------------------------
# 試してみよう
# ---------------------------------------------------------------------------
def try_it() -> None:
    st.subheader("層の数と幅からパラメータ数を数える")
    try_gpt()
    st.subheader("計算量の予算を N と D に分ける")
    try_budget()
    st.subheader("自分のコーパスで BPE を学習する")
    try_bpe()
    st.subheader("Swin の窓の注意の計算量")
    try_swin()


@st.fragment
def try_gpt() -> None:
    """Parameter count as a fragment: L, d, V or T rerun this part only."""
    c1, c2 = st.columns(2)
    with c1:
        layers = ui.number_input("層数 L", min_value=1, max_value=200, value=GPT3["layers"], step=1, key="llm_layers",
                                 persist_state="session")
        vocab = ui.number_input("語彙 V", min_value=1, max_value=1_000_000, value=llm.GPT_VOCAB_SIZE, step=1000,
                                key="llm_vocab", persist_state="session")
    with c2:
        width = ui.number_input("幅 d_model", min_value=8, max_value=100_000, value=GPT3["d_model"], step=128,
                                key="llm_width", persist_state="session")
        context = ui.number_input("位置の数 T", min_value=1, max_value=1_000_000, value=GPT3["context"], step=256,
                                  key="llm_context", persist_state="session")
    p = ui.compute("llm_params", llm.gpt_param_count, int(layers), int(width), int(vocab), int(context))
    if p is not None:
        c1, c2 = st.columns(2)
        c1.metric("数えたパラメータ数", count(p.total))
        c2.metric("12·L·d² の見積もり", count(p.rule_of_thumb))
        st.caption(f"見積もり ÷ 合計 = {numfmt.fixed(p.rule_share, 3)}。幅が小さく語彙が大きいほど、"
                   "埋め込みの割合が増えて見積もりとの差が開きます。")
        ui.cached_table(gpt_frame, p, hide_index=True)


@st.fragment
def try_budget() -> None:
    """The compute-optimal split as a fragment."""
    c1, c2 = st.columns(2)
    with c1:
        mantissa = ui.number_input("予算の仮数（1 以上 10 未満）", min_value=1.0, max_value=9.99, value=5.88, step=0.01,
                                   key="llm_budget_m", persist_state="session")
    with c2:
        exponent = ui.number_input("予算の 10 の指数", min_value=15, max_value=30, value=23, step=1, key="llm_budget_e",
                                   persist_state="session")
    best = ui.compute("llm_budget", llm.compute_optimal_sci, float(mantissa), int(exponent))
    if best is not None:
        st.latex(rf"\begin{{aligned}}C &= {sci(best.budget)} \\ \Rightarrow\; N &= {sci(best.params)},\quad D = {sci(best.tokens)}"
                 r"\end{aligned}")
        c1, c2 = st.columns(2)
        c1.metric("最適なパラメータ数 N", f"{numfmt.sci(best.params, 2)}")
        c2.metric("最適なトークン数 D", f"{numfmt.sci(best.tokens, 2)}")


@st.fragment
def try_bpe() -> None:
    """BPE on the learner's corpus as a fragment."""
    default = " ".join(" ".join([w] * n) for w, n in llm.BPE_DEMO_CORPUS)
    text = st.text_area("コーパス（単語を空白で区切る。同じ単語をくり返すと回数になる）", value=default, key="llm_bpe_text",
                        persist_state="session")
    merges = ui.number_input("つなぐ回数", min_value=0, max_value=50, value=8, step=1, key="llm_bpe_merges",
                             persist_state="session")
    word = st.text_input("区切ってみる単語", value="stayed", key="llm_bpe_word", persist_state="session")
    corpus = ui.compute("llm_bpe_corpus", llm.bpe_corpus, text)
    if corpus is None:
        return
    result = ui.compute("llm_bpe", llm.bpe_train, corpus, int(merges))
    if result is not None:
        ui.cached_table(bpe_frame, result, hide_index=True)
        seg = ui.compute("llm_bpe_word_seg", llm.bpe_tokenize, word.strip(), result.merges)
        if seg is not None:
            st.metric(f"「{ui.state.plain(''.join(seg))}」のトークン数", len(seg))
            st.markdown("区切り：" + " ＋ ".join(ui.state.plain(t) for t in seg))


@st.fragment
def try_swin() -> None:
    """Swin's window cost as a fragment."""
    cols = st.columns(4)
    names = (("h", "高さ h", 1, 4096, SWIN_DEMO["h"]), ("w", "幅 w", 1, 4096, SWIN_DEMO["w"]),
             ("channels", "チャンネル C", 1, 4096, SWIN_DEMO["channels"]), ("window", "窓 M", 1, 512, SWIN_DEMO["window"]))
    v = {}
    for col, (name, label, lo, hi, default) in zip(cols, names):
        with col:
            v[name] = int(ui.number_input(label, min_value=lo, max_value=hi, value=default, step=1, key=f"llm_swin_{name}",
                                          persist_state="session"))
    s = ui.compute("llm_swin", llm.swin_cost, v["h"], v["w"], v["channels"], v["window"])
    if s is not None:
        c1, c2 = st.columns(2)
        c1.metric("注意の部分：全体 ÷ 窓", count(s.attention_ratio))
        c2.metric("射影を含めた全体：全体 ÷ 窓", numfmt.fixed(s.total_ratio, 2))
        st.caption(f"窓の数 {count(s.windows)}。全体の注意 {count(s.global_attention)}、窓の注意 {count(s.window_attention)}。")


ui.sections("llm", [("aim", aim_and_explain), ("hand", hand), ("visual", visual), ("try", try_it)],
            after_quiz=lambda: ui.next_link("llm"))
