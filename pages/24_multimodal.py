"""⑪ 画像生成とマルチモーダル：注意が画像と文をつなぐ。CLIP の対照学習とゼロショット分類、文で画像を操る
クロスアテンション、拡散モデル（ノイズを加える式と取り除く学習）、分類器なしガイダンス、Image Captioning・
VQA・DALL-E・Flamingo・Unified-IO・LLaVA。

Every number comes from tutor.multimodal (the cross-attention itself through tutor.core.attention, the
hand calculations through tutor.handcalc): CLIP's cosine table, logits, row and column softmax and
loss; the zero-shot probabilities; the cross-attention weights; ᾱ_t and x_t; the guided noise.
"""
import numpy as np
import pandas as pd
import streamlit as st

import ui
from tutor import handcalc as thc
from tutor import multimodal as mm
from tutor import numfmt
from ui.figures import lines_chart, prob_bars, side_by_side

ui.page("multimodal")
st.caption("注意が画像と文をつなぐ：画像と文を比べる CLIP、文から画像を作る拡散モデル、画像を読む言語モデル")

LABELS = mm.CLIP_DEMO_LABELS
IMAGES = [f"{c}の画像" for c in LABELS]
PROMPTS = [f"{c}の写真" for c in LABELS]
TAU = mm.CLIP_DEMO_TEMPERATURE
TAUS = (0.05, 0.07, 0.1, 0.2, 0.5, 1.0)
PATCHES, TOKENS = mm.CROSS_DEMO_PATCHES, mm.CROSS_DEMO_TOKENS
DIMS = ("1", "2", "3")
NOISE_STEPS = (50, 200, 1000)       # the steps 可視化 shows the tiny picture at
PIXELS = ("1", "2", "3", "4")
GUIDANCE_WS = (0.0, 1.0, 2.0, 3.0, 5.0, 7.5)
SD_SIDE = mm.latent_side(512)


def fx(x, digits: int = 3) -> str:
    """A number for prose and LaTeX: 四捨五入, trailing zeros dropped (tutor.numfmt)."""
    return numfmt.trimmed(float(x), digits)


def vec(values, digits: int = 3, *, tex: bool = True) -> str:
    """(1, 0.2) — a vector's entries written by fx (for LaTeX with its spaces, or for a table)."""
    return "(" + (",\\ " if tex else ", ").join(fx(v, digits) for v in np.ravel(values)) + ")"


def demo_clip() -> mm.ClipBatch:
    return mm.clip_batch(mm.CLIP_DEMO_IMAGES, mm.CLIP_DEMO_TEXTS, TAU)


def demo_cross() -> mm.TextImageAttention:
    return mm.text_image_attention(mm.CROSS_DEMO_LATENTS, mm.CROSS_DEMO_TEXT, mm.CROSS_DEMO_W_Q, mm.CROSS_DEMO_W_K,
                                   mm.CROSS_DEMO_W_V)


def guidance_frame(u, c) -> pd.DataFrame:
    rows = [(fx(w, 1), vec(mm.guided_noise(u, c, w), 2, tex=False)) for w in GUIDANCE_WS]
    return pd.DataFrame(rows, columns=["強さ w", "使う予測 ε̂"])


# ---------------------------------------------------------------------------
# ねらい・解説
# ---------------------------------------------------------------------------
def aim_and_explain() -> None:
    ui.section("aim")
    st.markdown(
        "- **マルチモーダル** なモデルで、注意（クロスアテンション）が画像と文をどうつなぐかを、"
        "「どちらがクエリか」で説明できる。\n"
        "- **CLIP** の対照学習（コサイン類似度 ÷ 温度、行と列の softmax、対角が正解）と **ゼロショット** 分類を計算できる。\n"
        "- **Image Captioning・Visual Question Answering・Text-To-Image** の入出力を区別できる。\n"
        "- **拡散モデル** のノイズを加える式 $x_t = \\sqrt{\\bar\\alpha_t}\\,x_0 + \\sqrt{1-\\bar\\alpha_t}\\,\\varepsilon$ "
        "を計算し、**DALL-E**・GAN との違いを説明できる。\n"
        "- **Flamingo・Unified-IO**（**マルチタスク学習**）など、画像と文を 1 つで扱う **基盤モデル** の違いを説明できる。"
    )
    ui.section("explain")
    st.subheader("マルチモーダル：注意が画像と文をつなぐ")
    explain_bridge()
    st.subheader("CLIP：画像と文を同じ空間で比べる")
    explain_clip()
    ui.folded_topics("画像と文をつなぐモデルたち", (
        ("画像から文へ：Image Captioning と VQA", explain_captioning, "captioning"),
        ("文から画像へ：DALL-E と拡散モデル", explain_generation, "generation"),
        ("拡散モデルの式：ノイズを足す・取り除く", explain_diffusion, "diffusion"),
        ("文で画像を操る：Stable Diffusion とガイダンス（発展）", explain_guidance, "guidance"),
        ("1 つのモデルで多くの課題：Flamingo・Unified-IO・LLaVA", explain_unified, "unified")), key="multimodal")


def explain_bridge() -> None:
    st.markdown(
        "画像・文・音声のような種類の違うデータを **モダリティ** と呼び、複数のモダリティを 1 つのモデルで扱うことを "
        "**マルチモーダル** と呼びます。課題を複数にする **マルチタスク学習**、モデルを複数使うアンサンブルとは別の言葉です。"
        "画像と文をつなぐ道具の中心は、⑦-3 で見た Source-Target Attention（クロスアテンション）です。"
        "見分けどころは **「変えたい側がクエリ、参照される側がキーとバリュー」** の 1 点です。"
    )
    ui.show_table(pd.DataFrame({
        "モデル・課題": ["文から画像を作る（Stable Diffusion）", "画像を読んで文を作る（Flamingo）", "画像の説明文（Show, Attend and Tell）"],
        "クエリ": ["画像の各位置", "文のトークン", "説明文を作るデコーダの状態"],
        "キー・バリュー": ["文のトークン", "画像の特徴", "画像の領域ごとの特徴"],
    }), hide_index=True)


def explain_clip() -> None:
    st.markdown(
        "**CLIP**（Radford ら、2021 年、OpenAI）は、インターネットから集めた約 4 億組の画像と説明文で、画像のエンコーダと"
        "文のエンコーダを一緒に学習しました。2 つの埋め込みを長さ 1 にそろえて内積をとり（**コサイン類似度**）、温度 $\\tau$ で割った"
        "ものをロジットにします。$N$ 組のバッチなら $N \\times N$ の表ができ、対角が正しい組です。行ごと（画像→文）と列ごと"
        "（文→画像）に softmax をとり、対角の交差エントロピーを両方向で平均して小さくします（**対照学習**）。"
    )
    st.latex(r"\begin{aligned}L_{ij} &= \cos(\mathbf{i}_i, \mathbf{t}_j)\,/\,\tau \\"
             r"\mathcal{L} &= \tfrac{1}{2}\bigl(\mathrm{CE}_{\text{行}} + \mathrm{CE}_{\text{列}}\bigr)\end{aligned}")
    st.markdown(
        "CLIP は画像を **生成しません**（作るのは DALL-E や拡散モデル）。学習した CLIP はクラス名を「〇〇の写真」という文にして"
        "埋め込み、画像との類似度の softmax で分類できます。学習に使っていないクラスでも、例を 1 枚も見せずに分類できるので "
        "**ゼロショット**（zero-shot）分類と呼びます。画像をクエリ、文をキーとみなすと、注意の重みと同じ形の計算です。"
        f"温度 $\\tau$ も学習するパラメータで、公開された実装の初期値は {fx(mm.CLIP_INIT_TEMPERATURE, 2)} です。"
        "画像と文の両方を扱い、多くの課題の土台になるので、マルチモーダルな **基盤モデル** の代表例です。"
    )


def explain_captioning() -> None:
    st.markdown(
        "画像から説明文を作る課題が **Image Captioning**、画像と質問文から答えを出す課題が **Visual Question Answering（VQA）**"
        "（Antol ら、2015 年のデータセットで広まった）、文から画像を作る課題が **Text-To-Image** です。入力と出力の組で名前が決まります。"
    )
    st.markdown(
        "初期のキャプション生成（Vinyals ら、2015 年の Show and Tell）は、CNN が画像全体を 1 つのベクトルにまとめて LSTM に渡すだけで、"
        "Seq2Seq と同じ固定長のボトルネックがありました。**Show, Attend and Tell**（Xu ら、2015 年）は、単語を 1 つ作るたびに、"
        "CNN の特徴マップの各領域（キー・バリュー）へ、デコーダの状態（クエリ）から注意の重みを計算し直します。"
        "重みを画像に重ねると、「鳥」と書くときに鳥のあたりを見ていることが分かります。"
    )


def explain_generation() -> None:
    st.markdown(
        "**DALL-E**（Ramesh ら、2021 年、OpenAI）は、画像を離散 VAE で 32 × 32 = 1,024 個のトークン（8,192 種類）に縮め、"
        "文のトークン（最大 256 個）の後ろにつないだ列を、GPT と同じ **自己回帰** の Transformer（120 億パラメータ）で 1 つずつ"
        "予測して画像を作りました。生成した候補の並べ替えには CLIP を使いました。"
    )
    st.markdown(
        "文や条件から新しい画像を作る **画像生成** で、その後の主流になったのは **拡散モデル** です。データに少しずつノイズを加える過程（拡散過程）を決めておき、その逆にノイズを取り除く"
        "ネットワークを学習して、純粋なノイズから画像を作ります。DALL-E 2（Ramesh ら、2022 年）は、文から CLIP の画像埋め込みを"
        "予測し、それを条件に拡散モデルで画像を作ります。隣の方法と比べると、**GAN** は生成器と識別器を競わせ、1 回の計算で画像を出す"
        "代わりに学習が不安定になりやすく、**VAE** はエンコーダが出す平均と分散から潜在変数を作ってデコーダで復元します。"
        "拡散モデルは何十〜何千回もノイズ除去をくり返すので生成は遅い一方、学習が安定し多様な画像を作れます。"
    )


def explain_diffusion() -> None:
    st.markdown(
        f"DDPM（Ho ら、2020 年）は $T = {numfmt.grouped(mm.DDPM_STEPS).replace(',', '{,}')}$ ステップで、各ステップのノイズの分散 $\\beta_t$ を "
        f"${fx(mm.DDPM_BETA_1, 4)}$ から ${fx(mm.DDPM_BETA_T, 2)}$ まで直線的に増やしました。信号が残る割合 $1 - \\beta_s$ を掛け合わせた "
        "$\\bar\\alpha_t$ を使うと、正規分布の和はまた正規分布なので、$x_0$ から $x_t$ へ 1 度に飛べます。"
    )
    st.latex(r"\begin{aligned}\bar\alpha_t &= \textstyle\prod_{s=1}^{t}(1 - \beta_s) \\"
             r"x_t &= \sqrt{\bar\alpha_t}\,x_0 + \sqrt{1 - \bar\alpha_t}\,\varepsilon\end{aligned}")
    st.markdown(
        "ネットワークは $x_t$ と $t$ を受け取り、加えられたノイズ $\\varepsilon$ を予測するように学習します（予測との二乗誤差）。"
        "予測したノイズを引けば $x_0$ の見積もりに戻れるので、生成では純粋なノイズから始めてノイズ除去をくり返します。"
        "$\\beta_t$ は 1 ステップ分、$\\bar\\alpha_t$ はそこまでの累積、係数には平方根がつく、の 3 点が計算で問われます。"
    )


def explain_guidance() -> None:
    st.markdown(
        "**Stable Diffusion**（2022 年）のもとの **潜在拡散モデル**（Rombach ら、2022 年）は、画像をオートエンコーダで縮めた"
        f"潜在表現の上で拡散させます（512 × 512 の画像が {SD_SIDE} × {SD_SIDE} = {mm.latent_positions(512):,} 個の位置、縮小率 "
        f"{mm.SD_FACTOR}）。文は CLIP の文エンコーダで {mm.SD_TEXT_TOKENS} 個のトークンの埋め込みにし、U-Net の中の"
        "**クロスアテンション** で取り込みます。クエリは潜在表現の各位置、キーとバリューは文のトークンです。"
    )
    st.markdown(
        "文の効き目を強めるのが **分類器なしガイダンス**（Ho と Salimans、2022 年）です。学習中に文を一定の割合で空にして、"
        "1 つのネットワークに文を与えた予測 $\\varepsilon_c$ と与えない予測 $\\varepsilon_u$ の両方を学ばせ、生成では差を $w$ 倍して"
        f"足します（Stable Diffusion の既定は $w = {fx(mm.SD_GUIDANCE, 1)}$）。"
    )
    st.latex(r"\hat\varepsilon = \varepsilon_u + w\,(\varepsilon_c - \varepsilon_u)")
    st.caption("論文は同じ式を $(1+w)\\,\\varepsilon_c - w\\,\\varepsilon_u$ と書き、その $w$ はこのページの $w - 1$ にあたります。")


def explain_unified() -> None:
    st.markdown(
        "**Flamingo**（Alayrac ら、2022 年、DeepMind）は、事前学習済みの画像エンコーダと言語モデルの重みを固定し、言語モデルの層の"
        "間に新しいクロスアテンション層（ゲートつき、最初は 0 で元の働きを保つ）を挟みました。文を生成するので **文のトークンがクエリ**、"
        "画像の特徴（64 個にまとめたもの）がキーとバリューです。画像と答えの例を数個プロンプトに並べるだけで新しい課題をこなします（few-shot）。"
    )
    st.markdown(
        "**Unified-IO**（Lu ら、2022 年）は、画像・マスク・領域の枠・文など課題ごとに違う入出力を、すべて **離散トークンの列** に"
        "そろえ、1 つのエンコーダ・デコーダの Transformer を 90 を超えるデータセットで同時に学習しました（**マルチタスク学習**）。"
        "課題ごとの出力層がいりません。"
    )
    st.markdown(
        "画像を読む大規模言語モデル（2023 年の GPT-4V など）では、画像エンコーダの出力を言語モデルが読むトークンの列に変えて、"
        "文のトークンと一緒に注意で扱います。公開の例の **LLaVA**（Liu ら、2023 年）は、CLIP の画像エンコーダと言語モデルを射影 1 つで"
        "つなぎ、言語だけの GPT-4 に作らせた指示と応答のデータで学習しました（発展）。"
    )


# ---------------------------------------------------------------------------
# 手計算
# ---------------------------------------------------------------------------
def hand() -> None:
    st.subheader("CLIP：類似度の表と対照学習の損失")
    hand_clip()
    st.subheader("ゼロショット分類：「〇〇の写真」との類似度")
    hand_zero_shot()
    st.subheader("クロスアテンション：画像の位置が文のトークンを見る")
    hand_cross()
    st.subheader("拡散過程：ᾱ_t と 1 度に加えるノイズ")
    hand_diffusion()
    st.subheader("分類器なしガイダンス")
    hand_guidance()


def hand_clip() -> None:
    b = demo_clip()
    st.markdown("画像 3 枚と文 3 個の埋め込み（3 次元の小さな例）です。行 $k$ の画像と文が正しい組です。")
    c1, c2 = st.columns(2)
    with c1:
        ui.show_matrix(mm.CLIP_DEMO_IMAGES, IMAGES, DIMS, digits=0, caption="画像の埋め込み")
    with c2:
        ui.show_matrix(mm.CLIP_DEMO_TEXTS, PROMPTS, DIMS, digits=0, caption="文の埋め込み")
    st.markdown(f"① 長さ：画像は {', '.join(fx(x) for x in b.image_norms)}、文は {', '.join(fx(x) for x in b.text_norms)}。"
                "② コサイン類似度 = 内積 ÷ 長さの積。たとえば猫の画像と「猫の写真」は")
    terms = " + ".join(f"{fx(x)} \\times {fx(y)}" for x, y in zip(mm.CLIP_DEMO_IMAGES[0], mm.CLIP_DEMO_TEXTS[0]))
    st.latex(rf"\frac{{{terms}}}{{{fx(b.image_norms[0])} \times {fx(b.text_norms[0])}}}"
             rf" = \frac{{{fx(b.dots[0, 0])}}}{{{fx(b.norm_products[0, 0])}}} = {fx(b.cosine[0, 0])}")
    ui.show_matrix(b.cosine, IMAGES, PROMPTS, digits=2, caption="コサイン類似度（行 = 画像、列 = 文）")
    st.markdown(f"③ 温度 $\\tau = {fx(TAU)}$ で割ってロジット $L$ にし、④ 行ごと（画像→文）と ⑤ 列ごと（文→画像）に softmax をとります。")
    ui.show_matrix(b.logits, IMAGES, PROMPTS, digits=1, caption="ロジット L = 類似度 ÷ τ")
    ui.handcalc.softmax_steps(thc.softmax_steps(b.logits, row_labels=IMAGES, decimals=3), key="multimodal_rows",
                              title="④ 行ごとの softmax（画像→文）", show_result=False)
    ui.handcalc.softmax_steps(thc.softmax_steps(b.probs.logits_by_text, symbol="b", name="B", row_labels=PROMPTS, decimals=3),
                              key="multimodal_cols", title="⑤ 列ごとの softmax（文→画像、列を行として書いた）", show_result=False)
    c1, c2 = st.columns(2)
    with c1:
        ui.show_matrix(b.probs.image_to_text, IMAGES, PROMPTS, caption="画像→文（各行の和が 1）")
    with c2:
        ui.show_matrix(b.probs.text_to_image, IMAGES, PROMPTS, caption="文→画像（各列の和が 1）")
    p = b.probs
    st.latex(r"\begin{aligned}\mathrm{CE}_{\text{行}} &= -\tfrac{1}{3}\textstyle\sum_k \ln " r"p^{\text{行}}_{kk} = "
             + fx(p.loss_i2t) + r" \\ \mathrm{CE}_{\text{列}} &= " + fx(p.loss_t2i) + r" \\ \mathcal{L} &= "
             + fx(p.loss) + r"\end{aligned}")
    st.caption(f"対角の確率：行 {vec(np.diag(p.image_to_text), tex=False)}、列 {vec(np.diag(p.text_to_image), tex=False)}。"
               "犬の文と犬の画像は向きが完全に一致（類似度 1）しています。")


def hand_zero_shot() -> None:
    z = mm.zero_shot(mm.CLIP_DEMO_IMAGES[0], mm.CLIP_DEMO_TEXTS, TAU)
    st.markdown("猫の画像を、3 つのクラス名の文「猫の写真」「犬の写真」「車の写真」で分類します（手計算の表の 1 行目）。")
    row = thc.softmax_row_step(z.logits, label="猫の画像", decimals=3)
    st.latex(ui.handcalc.stack(ui.handcalc.softmax_row_latex(row)))
    st.markdown(f"確率が最も大きいのは「{PROMPTS[z.predicted]}」（{fx(z.probs[z.predicted])}）。")
    wrong = mm.zero_shot_unnormalised(mm.CLIP_DEMO_IMAGES[0], mm.CLIP_DEMO_TEXTS, TAU)
    dots = mm.clip_logits_unnormalised(mm.CLIP_DEMO_IMAGES[:1], mm.CLIP_DEMO_TEXTS, 1.0)[0]
    st.markdown(f"長さをそろえずに内積 {vec(dots, 0, tex=False)} をそのまま使うと、長さ {fx(demo_clip().text_norms[2])} の"
                f"「{PROMPTS[2]}」が勝ち、確率 {vec(wrong, tex=False)} で車と答えてしまいます。**正規化してから内積** が CLIP のやり方です。")


def hand_cross() -> None:
    r = demo_cross()
    st.markdown("2 × 2 の潜在表現（4 つの位置）が、文「赤い 猫 夕焼け」の 3 トークンを見ます。クエリは画像側の特徴 $Z$ から、"
                "キーとバリューは文の埋め込み $E$ から作ります（$W_Q$ は単位行列）。")
    c1, c2 = st.columns(2)
    with c1:
        ui.show_matrix(mm.CROSS_DEMO_LATENTS, PATCHES, ("1", "2"), digits=0, caption="画像側の特徴 Z（4×2）")
        ui.show_matrix(mm.CROSS_DEMO_W_K, DIMS, ("1", "2"), digits=0, caption="$W_K$（3×2）")
    with c2:
        ui.show_matrix(mm.CROSS_DEMO_TEXT, TOKENS, DIMS, digits=0, caption="文の埋め込み E（3×3）")
        ui.show_matrix(mm.CROSS_DEMO_W_V, DIMS, ("1", "2"), digits=0, caption="$W_V$（3×2）")
    c1, c2 = st.columns(2)
    with c1:
        ui.show_matrix(r.k, TOKENS, ("1", "2"), digits=0, caption="$K = E W_K$")
    with c2:
        ui.show_matrix(r.v, TOKENS, ("1", "2"), digits=0, caption="$V = E W_V$")
    steps = thc.attention_steps(r.q, r.k, r.v, decimals=3, query_labels=PATCHES, key_labels=TOKENS)
    ui.handcalc.matrix_steps(steps.scores, key="multimodal_s", title=r"スコア $QK^\top$（行 = 画像の位置、列 = トークン）")
    ui.handcalc.softmax_steps(steps.softmax, key="multimodal_a", title=r"$\sqrt{2}$ で割って行ごとに softmax")
    ui.handcalc.weighted_sums(steps.weighted_sums, PATCHES, key="multimodal_z", title="出力：位置ごとにバリューの重み付き和")
    ui.show_matrix(r.weights, PATCHES, TOKENS, digits=3, caption="注意の重み（4 行 × 3 列、各行の和が 1）")
    st.markdown("左上は「赤い」、右上は「夕焼け」、下の 2 つは「猫」に最も強く注意しています。重みの表は"
                "（画像の位置の数）×（トークン数）で、出力も画像の位置ごとに 1 つずつできます。")


def hand_diffusion() -> None:
    betas = mm.DIFFUSION_DEMO_BETAS
    a = mm.alpha_bars(betas)
    st.markdown(f"説明のため大きな値にした 3 ステップのスケジュール $\\beta = {vec(betas, 1)}$ で、$\\bar\\alpha_t$ を順に掛けます。")
    st.latex(rf"\begin{{aligned}}\bar\alpha_1 &= 1 - {fx(betas[0])} = {fx(a[0])} \\"
             rf"\bar\alpha_2 &= {fx(a[0])} \times (1 - {fx(betas[1])}) = {fx(a[1])} \\"
             rf"\bar\alpha_3 &= {fx(a[1])} \times (1 - {fx(betas[2])}) = {fx(a[2])}\end{{aligned}}")
    r = mm.add_noise(mm.DIFFUSION_DEMO_X0, mm.DIFFUSION_DEMO_EPS, a[2])
    st.markdown(f"$\\sqrt{{\\bar\\alpha_3}} = {fx(r.signal)}$、$\\sqrt{{1 - \\bar\\alpha_3}} = {fx(r.noise)}$。"
                f"$x_0 = {vec(mm.DIFFUSION_DEMO_X0, 1)}$ とノイズ $\\varepsilon = {vec(mm.DIFFUSION_DEMO_EPS, 1)}$ から：")
    st.latex(rf"\begin{{aligned}}x_3 &= {fx(r.signal)}\,{vec(mm.DIFFUSION_DEMO_X0, 1)} + {fx(r.noise)}\,{vec(mm.DIFFUSION_DEMO_EPS, 1)}"
             rf" \\ &= {vec(r.x_t)}\end{{aligned}}")
    eps_hat = mm.DIFFUSION_DEMO_EPS_HAT
    back = mm.x0_from_noise(r.x_t, eps_hat, r.alpha_bar)
    exact = mm.x0_from_noise(r.x_t, mm.DIFFUSION_DEMO_EPS, r.alpha_bar)
    st.markdown(f"逆向き：ネットワークがノイズを $\\hat\\varepsilon = {vec(eps_hat, 1)}$ と予測したら、"
                f"$\\hat x_0 = (x_3 - {fx(r.noise)}\\,\\hat\\varepsilon) / {fx(r.signal)}$ で戻します。")
    st.latex(rf"\begin{{aligned}}\hat x_0 &= {vec(back)} \\ &(\text{{正しい}}\ \varepsilon\ \text{{なら}}\ {vec(exact)})\end{{aligned}}")
    st.caption("予測が正確なほど元の $x_0$ に近づきます。DDPM の学習は、この予測と本当のノイズの二乗誤差を小さくすることです。")


def hand_guidance() -> None:
    u, c, w = mm.GUIDANCE_DEMO_UNCOND, mm.GUIDANCE_DEMO_COND, mm.GUIDANCE_DEMO_W
    g = mm.guided(u, c, w)
    st.markdown(f"文を与えない予測 $\\varepsilon_u = {vec(u, 1)}$、与えた予測 $\\varepsilon_c = {vec(c, 1)}$、$w = {fx(w)}$（発展）。")
    st.latex(rf"\begin{{aligned}}\varepsilon_c - \varepsilon_u &= {vec(g.difference, 1)} \\"
             rf"\hat\varepsilon &= {vec(u, 1)} + {fx(w)} \times {vec(g.difference, 1)} \\ &= {vec(g.noise)}\end{{aligned}}")
    st.caption("差を逆向き（$\\varepsilon_u - \\varepsilon_c$）にとったり、$\\varepsilon_c$ を $w$ 倍するだけにしたりすると別の値になります。")


# ---------------------------------------------------------------------------
# 可視化
# ---------------------------------------------------------------------------
def visual() -> None:
    st.subheader("CLIP の表：行の softmax と列の softmax")
    b = demo_clip()
    ui.heatmap(b.cosine, IMAGES, PROMPTS, digits=2, x_title="文", y_title="画像", title="コサイン類似度（対角が正しい組）")
    side_by_side([(b.probs.image_to_text, IMAGES, PROMPTS, "画像→文（各行の和が 1）"),
                  (b.probs.text_to_image, IMAGES, PROMPTS, "文→画像（各列の和が 1）")], x_title="文", y_title="画像")
    st.caption(f"同じ表でも、行で正規化するか列で正規化するかで値が変わります。損失は行 {fx(b.probs.loss_i2t)}、"
               f"列 {fx(b.probs.loss_t2i)}、平均 {fx(b.probs.loss)}。")
    st.subheader("ゼロショット分類：正規化するかしないか")
    z = mm.zero_shot(mm.CLIP_DEMO_IMAGES[0], mm.CLIP_DEMO_TEXTS, TAU)
    ui.cached_chart(prob_bars, tuple(z.probs), tuple(PROMPTS), title="猫の画像：softmax(cos / τ)", width="stretch")
    wrong = mm.zero_shot_unnormalised(mm.CLIP_DEMO_IMAGES[0], mm.CLIP_DEMO_TEXTS, TAU)
    ui.cached_chart(prob_bars, tuple(wrong), tuple(PROMPTS), title="長さをそろえない内積 ÷ τ（誤り）", width="stretch")
    st.subheader("どの位置がどの語を見るか")
    visual_cross(demo_cross(), TOKENS)
    st.subheader("ステップが進むと信号が消えていく")
    visual_diffusion()
    st.subheader("ガイダンスの強さ w と使う予測")
    ui.cached_table(guidance_frame, mm.GUIDANCE_DEMO_UNCOND, mm.GUIDANCE_DEMO_COND, hide_index=True)
    st.caption("w = 0 は文を与えない予測、w = 1 は文を与えた予測そのもの。w > 1 では文が加える向きへさらに押し出します。")


def visual_cross(r: mm.TextImageAttention, tokens) -> None:
    ui.heatmap(r.weights, PATCHES, tokens, x_title="文のトークン（キー）", y_title="画像の位置（クエリ）",
               title="クロスアテンションの重み")
    side_by_side([(r.token_map(j, 2), ("上", "下"), ("左", "右"), f"「{t}」への重み") for j, t in enumerate(tokens)],
                 x_title="", y_title="", per_row=3)
    st.caption("各トークンへの重みを画像の位置に並べ直しました。その語が画像のどこで効くかが分かります。")


def visual_diffusion() -> None:
    t, signal, noise = mm.schedule_curve(mm.linear_betas())
    ui.cached_chart(lines_chart, "ステップ t", "係数", (("√ᾱ_t", tuple(t), tuple(signal)),
                                                         ("√(1−ᾱ_t)", tuple(t), tuple(noise))),
                    title="DDPM の直線的な β（10⁻⁴ → 0.02）", y_format=".1f", width="stretch")
    st.caption("√ᾱ_t は x₀ に、√(1−ᾱ_t) はノイズ ε に掛かる係数です。2 乗の和はいつも 1 です。")
    eps = mm.standard_noise((4, 4), np.random.default_rng(0))
    parts = [(mm.DIFFUSION_DEMO_IMAGE, PIXELS, PIXELS, "x₀（元の画像）")]
    betas = mm.linear_betas()
    for step in NOISE_STEPS:
        x = mm.add_noise(mm.DIFFUSION_DEMO_IMAGE, eps, mm.alpha_bar_at(betas, step)).x_t
        parts.append((x, PIXELS, PIXELS, f"t = {step:,}"))
    side_by_side(parts, digits=1, x_title="", y_title="")
    st.caption("4×4 の小さな画像に同じノイズ（シード 0）を加えました。t = 1,000 では x₀ の係数は約 "
               f"{fx(signal[-1], 3)} で、ほぼノイズだけです。")


# ---------------------------------------------------------------------------
# 試してみよう
# ---------------------------------------------------------------------------
def try_it() -> None:
    st.subheader("埋め込みと温度を変えて CLIP の表を作る")
    try_clip()
    st.subheader("文の語を選んでクロスアテンションを見る")
    try_cross()
    st.subheader("ステップ t を選んでノイズを加える")
    try_diffusion()
    st.subheader("ガイダンスの強さを変える（発展）")
    try_guidance()


@st.fragment
def try_clip() -> None:
    """CLIP's table as a fragment: an edited embedding or τ reruns this part only."""
    c1, c2 = st.columns(2)
    with c1:
        img = ui.matrix_editor("multimodal_img", mm.CLIP_DEMO_IMAGES, IMAGES, DIMS, label="画像の埋め込み",
                              reset_label="例の値に戻す")
    with c2:
        txt = ui.matrix_editor("multimodal_txt", mm.CLIP_DEMO_TEXTS, PROMPTS, DIMS, label="文の埋め込み",
                              reset_label="例の値に戻す")
    tau = st.select_slider("温度 τ", options=TAUS, value=TAU, key="multimodal_tau", persist_state="session")
    b = ui.compute("multimodal_clip", mm.clip_batch, img, txt, tau)
    if b is None:
        return
    side_by_side([(b.probs.image_to_text, IMAGES, PROMPTS, "画像→文"), (b.probs.text_to_image, IMAGES, PROMPTS, "文→画像")],
                 x_title="文", y_title="画像")
    c1, c2, c3 = st.columns(3)
    c1.metric("損失（行）", numfmt.fixed(b.probs.loss_i2t, 3))
    c2.metric("損失（列）", numfmt.fixed(b.probs.loss_t2i, 3))
    c3.metric("CLIP の損失", numfmt.fixed(b.probs.loss, 3))
    st.caption("ベクトルを何倍にしても結果は変わりません（長さをそろえるから）。τ を小さくすると対角に集中します。")


@st.fragment
def try_cross() -> None:
    """The prompt's three words as a fragment: another word reruns this part only."""
    words = list(mm.CROSS_VOCAB)
    chosen = []
    for k, (column, default) in enumerate(zip(st.columns(3), TOKENS)):
        with column:
            chosen.append(st.selectbox(f"{k + 1} 語目", words, index=words.index(default), key=f"multimodal_word{k}",
                                       persist_state="session"))
    r = ui.compute("multimodal_cross", mm.text_image_attention, mm.CROSS_DEMO_LATENTS,
                   [mm.CROSS_VOCAB[w] for w in chosen], mm.CROSS_DEMO_W_Q, mm.CROSS_DEMO_W_K, mm.CROSS_DEMO_W_V)
    if r is not None:
        visual_cross(r, ui.unique_labels(chosen))


@st.fragment
def try_diffusion() -> None:
    """x_t at a chosen step as a fragment: t or the seed rerun this part only."""
    c1, c2 = st.columns(2)
    with c1:
        step = st.slider("ステップ t", min_value=1, max_value=mm.DDPM_STEPS, value=300, step=1, key="multimodal_t",
                         persist_state="session")
    with c2:
        seed = ui.number_input("ノイズのシード", min_value=0, max_value=100_000, value=0, step=1, key="multimodal_seed",
                               persist_state="session")
    a = mm.alpha_bar_at(mm.linear_betas(), int(step))
    r = mm.add_noise(mm.DIFFUSION_DEMO_IMAGE, mm.standard_noise((4, 4), np.random.default_rng(int(seed))), a)
    c1, c2, c3 = st.columns(3)
    c1.metric("ᾱ_t", numfmt.fixed(r.alpha_bar, 4))
    c2.metric("√ᾱ_t（x₀ の係数）", numfmt.fixed(r.signal, 3))
    c3.metric("√(1−ᾱ_t)（ε の係数）", numfmt.fixed(r.noise, 3))
    side_by_side([(mm.DIFFUSION_DEMO_IMAGE, PIXELS, PIXELS, "x₀"), (r.x_t, PIXELS, PIXELS, f"x_t（t = {int(step):,}）")],
                 digits=1, x_title="", y_title="")


@st.fragment
def try_guidance() -> None:
    """The guided prediction as a fragment: w or the two predictions rerun this part only."""
    preds = ui.matrix_editor("multimodal_eps", (mm.GUIDANCE_DEMO_UNCOND, mm.GUIDANCE_DEMO_COND), ("ε_u（文なし）", "ε_c（文あり）"),
                             ("1", "2"), label="2 つのノイズの予測", reset_label="例の値に戻す")
    w = st.slider("ガイダンスの強さ w", min_value=0.0, max_value=15.0, value=mm.GUIDANCE_DEMO_W, step=0.5,
                  key="multimodal_w", persist_state="session")
    g = ui.compute("multimodal_guided", mm.guided, preds[0], preds[1], w)
    if g is not None:
        st.latex(rf"\begin{{aligned}}\hat\varepsilon &= {vec(preds[0], 2)} + {fx(w, 1)} \times {vec(g.difference, 2)} \\"
                 rf" &= {vec(g.noise, 2)}\end{{aligned}}")


ui.sections("multimodal", [("aim", aim_and_explain), ("hand", hand), ("visual", visual), ("try", try_it)],
            after_quiz=lambda: ui.next_link("multimodal"))
