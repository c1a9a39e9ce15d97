"""⑪-2 GAN・NeRF・音声の生成：シラバスのデータ生成のうち、拡散モデル以外の生成モデル。GAN の価値関数と最適な識別器、
非飽和の損失、DCGAN の転置畳み込み、Pix2Pix と CycleGAN（対あり・対なし）、NeRF のボリュームレンダリング、
WaveNet の受容野と μ-law。

Every number comes from tutor.generation: V(D, G) and the losses of a batch, the gradients through the logit,
D* and the value it reaches, the sides through a DCGAN generator, the cycle-consistency loss, α_i, T_i and the
weights along a ray, the receptive field and μ-law.
"""
import numpy as np
import pandas as pd
import streamlit as st

import ui
from tutor import generation as gen
from tutor import numfmt
from ui.figures import lines_chart, prob_bars

ui.page("generation")
st.caption("拡散モデルの隣にある生成モデルたち：競わせて学ぶ GAN、写真から場面を覚える NeRF、波形を 1 標本ずつ作る WaveNet")

GAN_ROWS = ("D(x)（本物）", "D(G(z))（生成）")
GAN_COLS = ("1 枚目", "2 枚目")
P_ROWS = ("p_data", "p_g")
POINTS = gen.GAN_DEMO_POINTS
SAMPLES = tuple(f"点 {i + 1}" for i in range(len(gen.NERF_DEMO_SIGMA)))   # short: the editor fits a phone
RAY_COLS = ("σ", "R", "G", "B")
PIXELS = ("画素 1", "画素 2")
LATENT_KEYS = ("笑顔の女性", "無表情の女性", "無表情の男性")


def fx(x, digits: int = 3) -> str:
    """A number for prose and LaTeX: 四捨五入, trailing zeros dropped (tutor.numfmt)."""
    return numfmt.trimmed(float(x), digits)


def vec(values, digits: int = 3) -> str:
    """(1, 0.2): a vector's entries written by fx."""
    return "(" + ", ".join(fx(v, digits) for v in np.ravel(values)) + ")"


def demo_ray() -> gen.RayRender:
    return gen.render_ray(gen.NERF_DEMO_SIGMA, gen.NERF_DEMO_DELTA, gen.NERF_DEMO_COLORS)


def demo_cycle() -> gen.Cycle:
    return gen.cycle_loss(gen.CYCLE_DEMO_X, gen.CYCLE_DEMO_Y, gen.CYCLE_DEMO_G, gen.CYCLE_DEMO_F)


def optimal_frame(r: gen.OptimalD) -> pd.DataFrame:
    return pd.DataFrame({"点": list(POINTS[: r.d_star.size]), "p_data": [fx(v) for v in r.p_data],
                         "p_g": [fx(v) for v in r.p_g], "D* = p_data / (p_data + p_g)": [fx(v) for v in r.d_star]})


def sizes_frame(sides, kernel: int, stride: int, padding: int) -> pd.DataFrame:
    return pd.DataFrame({"層": ["z を並べ替え"] + [f"転置畳み込み {i}" for i in range(1, len(sides))],
                         "1 辺": [f"{numfmt.grouped(s)} × {numfmt.grouped(s)}" for s in sides],
                         "設定": ["—"] + [f"k = {kernel}, s = {stride}, p = {padding}"] * (len(sides) - 1)})


def ray_frame(r: gen.RayRender) -> pd.DataFrame:
    return pd.DataFrame({"サンプル": list(SAMPLES[: r.alpha.size]), "σδ": [fx(v) for v in r.optical],
                         "α = 1 − e^(−σδ)": [fx(v) for v in r.alpha], "T（届く光）": [fx(v) for v in r.transmittance],
                         "重み w = Tα": [fx(v) for v in r.weights]})


def field_frame(dilations) -> pd.DataFrame:
    fields = gen.fields_by_layer(dilations)
    return pd.DataFrame({"層": [str(i + 1) for i in range(len(dilations))], "dilation": [str(d) for d in dilations],
                         "受容野（標本）": [numfmt.grouped(f) for f in fields]})


# ---------------------------------------------------------------------------
# ねらい・解説
# ---------------------------------------------------------------------------
def aim_and_explain() -> None:
    ui.section("aim")
    st.markdown(
        "- **GAN（敵対的生成ネットワーク）** の生成器と識別器の役割、価値関数 $V(D, G)$、最適な識別器 $D^*$ と均衡"
        "（$D = 1/2$、$V = -\\log 4$）、**モード崩壊**、非飽和の損失を説明できる。\n"
        "- **DCGAN** の設計の指針を挙げ、転置畳み込みの出力の大きさを計算できる。\n"
        "- **Pix2Pix**（対になった画像）と **CycleGAN**（対のない画像）を、データと損失で区別できる。\n"
        "- **NeRF** の入出力とボリュームレンダリングの重みを計算できる。\n"
        "- **音声生成** の代表の **WaveNet** の受容野と μ-law を計算できる。"
    )
    ui.section("explain")
    st.subheader("GAN：生成器と識別器の勝負")
    explain_gan()
    ui.folded_topics("GAN の仲間と、GAN 以外の生成", (
        ("DCGAN：畳み込みで画像を作る", explain_dcgan, "dcgan"),
        ("Pix2Pix と CycleGAN：画像を別の画像に変える", explain_translation, "translation"),
        ("NeRF：写真から新しい視点の画像を作る", explain_nerf, "nerf"),
        ("音声生成：WaveNet", explain_audio, "audio"),
        ("ほかのページとのつながり", explain_links, "links")), key="generation")


def explain_gan() -> None:
    st.markdown(
        "**GAN**（Goodfellow ら、2014 年）は 2 つのネットワークを競わせます。**生成器** $G$ はノイズ $z$ からデータ $G(z)$ を作り、"
        "**識別器** $D$ は入力が本物である確率を出します。$D$ は価値関数を大きくし、$G$ は小さくしようとするので、試験では"
        "「$D$ が max、$G$ が min」が決め手です。"
    )
    st.latex(r"\begin{aligned}\min_G \max_D V(D, G) = {}&\mathbb{E}_{x}[\log D(x)] \\"
             r" &+ \mathbb{E}_{z}[\log(1 - D(G(z)))]\end{aligned}")
    st.markdown(
        "$G$ を固定したときの最適な識別器は $D^*(x) = p_{\\text{data}}(x) / (p_{\\text{data}}(x) + p_g(x))$ です。生成器が"
        "データの分布を完全にまねる（$p_g = p_{\\text{data}}$）と、$D^*$ はどこでも 1/2 になり、$V = \\log\\tfrac12 + \\log\\tfrac12 = -\\log 4$ が"
        "生成器にとっての最小値です（同じ論文）。"
    )
    st.markdown(
        "学習の初めは生成物が下手で、識別器は簡単に見破ります（$D(G(z)) \\approx 0$）。すると $\\log(1 - D(G(z)))$ の勾配は"
        "ほぼ 0 になる（飽和）ので、論文は $\\log(1 - D(G(z)))$ を小さくする代わりに $\\log D(G(z))$ を大きくする"
        "（$-\\log D(G(z))$ を小さくする）**非飽和の損失** を勧めました。識別器のロジット $a$（$D = \\sigma(a)$）で微分すると、勾配の大きさは前者が $D$、後者が $1 - D$ です。"
        "生成器が識別器をだましやすい少数の種類ばかりを作り、多様さを失う失敗を **モード崩壊** と呼びます。"
    )


def explain_dcgan() -> None:
    st.markdown(
        "**DCGAN**（Radford・Metz・Chintala、2015 年、ICLR 2016）は、GAN を畳み込みで安定して学習させる指針をまとめました。"
        "① プーリングを使わず、識別器はストライド付きの畳み込みで縮め、生成器は **転置畳み込み** で広げる。② 生成器と識別器に"
        "バッチ正規化（生成器の出力層と識別器の入力層を除く）。③ 隠れ層の全結合層をなくす。④ 生成器は ReLU で出力層だけ tanh、"
        f"識別器は LeakyReLU（傾き {fx(gen.DCGAN_LEAK)}）。学習は Adam（学習率 {fx(gen.DCGAN_LR, 4)}、β1 = {fx(gen.DCGAN_BETA1)}）でした。"
    )
    st.markdown(
        f"生成器は {gen.DCGAN_Z} 次元の $z$ を 4 × 4 の特徴マップに並べ替え、転置畳み込みで 1 辺を 2 倍ずつ広げて 64 × 64 の画像にします。"
        "転置畳み込みの出力の 1 辺は $(n - 1)s - 2p + k$（PyTorch の ConvTranspose2d の説明と同じ式）です。論文は、"
        "「笑顔の女性 − 無表情の女性 + 無表情の男性」の $z$ の足し引きで笑顔の男性が生成されることも示しました（画素の足し引きでは崩れる）。"
    )


def explain_translation() -> None:
    st.markdown(
        "**Pix2Pix**（Isola ら、2016 年、CVPR 2017）は、線画→写真、地図→航空写真のような **対になった** 画像の組で学習する"
        "条件付き GAN です。生成器はスキップ結合をもつ U-Net、識別器は画像を小さな領域ごとに判定する PatchGAN です。"
        f"損失は $\\mathcal{{L}}_{{\\text{{cGAN}}}} + \\lambda\\,\\mathcal{{L}}_{{L1}}$ で、論文は $\\lambda = {fx(gen.PIX2PIX_LAMBDA)}$ を使いました。"
    )
    st.markdown(
        "**CycleGAN**（Zhu ら、2017 年）は、馬の写真の集まりとシマウマの写真の集まりのような **対のない** データで学習します。"
        "変換 $G: X \\to Y$ と逆向きの $F: Y \\to X$ の 2 つの生成器（と 2 つの識別器）を持ち、往復すると元に戻ることを"
        f"サイクル一貫性損失 $\\|F(G(x)) - x\\|_1 + \\|G(F(y)) - y\\|_1$ で求めます（重み $\\lambda = {fx(gen.CYCLE_LAMBDA)}$）。"
        "試験の決め手は「対あり = Pix2Pix、対なし = CycleGAN」です。"
    )


def explain_nerf() -> None:
    st.markdown(
        "**NeRF**（Mildenhall ら、2020 年）は、1 つの場面を MLP で表します。入力は位置 $(x, y, z)$ と見る向き $(\\theta, \\phi)$ の "
        "5 次元、出力はその点の色と密度 $\\sigma$ です。画素ごとにカメラから光線を飛ばし、光線の上のサンプルを手前から合成します。"
    )
    st.latex(r"\begin{aligned}C &= \textstyle\sum_i T_i\,\bigl(1 - e^{-\sigma_i \delta_i}\bigr)\,c_i \\"
             r"T_i &= \exp\bigl(-\textstyle\sum_{j<i} \sigma_j \delta_j\bigr)\end{aligned}")
    st.markdown(
        "合成した色が多くの視点の写真と合うように学習すると、撮っていない視点の画像を作れます（新しい視点の合成）。"
        f"座標はそのまま入れず、$\\sin(2^k \\pi p)$・$\\cos(2^k \\pi p)$ に展開する位置エンコーディングを通します（位置は $L = {gen.NERF_L_POSITION}$、"
        f"向きは $L = {gen.NERF_L_DIRECTION}$）。周波数の違う sin と cos を並べるのは、"
        f"[{ui.PAGE_BY_KEY['position'].label}]({ui.section_url('position', 'aim')}) の Transformer の位置エンコーディングと同じ考え方です。"
    )


def explain_audio() -> None:
    st.markdown(
        "**音声生成** の代表が **WaveNet**（van den Oord ら、2016 年）です。波形の標本（1 秒に 16,000 個など）を、過去の標本だけを"
        "条件に 1 つずつ予測する自己回帰モデルで、dilation（間隔）を 1, 2, 4, …, 512 と倍にした因果的な畳み込みを重ねます。"
        f"カーネル 2 なら 1 スタックの受容野は {numfmt.grouped(gen.receptive_field(gen.wavenet_dilations()))} 標本です。"
        f"標本は μ-law（$\\mu = {gen.MU}$）で圧伸して 256 段階に量子化し、softmax でどの段階かを当てます。"
        "文章から作った特徴を条件にすると音声合成（TTS）になり、当時の方式より自然だと評価されました。"
    )
    st.markdown(
        "その後の音声合成では Transformer も使われています。たとえば Transformer TTS（Li ら、2019 年、AAAI）は、Tacotron 2 の "
        "RNN と注意を Multi-Head Attention に置き換え、作ったメルスペクトログラムを WaveNet で波形にしました。"
    )


def explain_links() -> None:
    st.markdown(
        f"拡散モデル・VAE・自己回帰の画像生成は [{ui.PAGE_BY_KEY['multimodal'].label}]({ui.section_url('multimodal', 'aim')}) で"
        "扱いました。GAN は 1 回の計算で画像を出せる一方、2 つのネットワークの競争なので学習が不安定になりやすく、拡散モデルは"
        "ノイズ除去をくり返すので遅い一方、学習が安定します。GAN の中に自己注意を入れた Self-Attention GAN（Zhang ら、2018 年）"
        "もあります（発展）。"
    )


# ---------------------------------------------------------------------------
# 手計算
# ---------------------------------------------------------------------------
def hand() -> None:
    st.subheader("GAN：価値関数と 2 つの損失")
    hand_gan()
    st.subheader("最適な識別器 D*")
    hand_optimal()
    st.subheader("DCGAN：転置畳み込みで 1 辺を広げる")
    hand_dcgan()
    st.subheader("CycleGAN：変換して戻す")
    hand_cycle()
    st.subheader("NeRF：1 本の光線で色を合成する")
    hand_nerf()
    st.subheader("WaveNet：受容野と μ-law")
    hand_wavenet()


def hand_gan() -> None:
    r = gen.gan_losses(gen.GAN_DEMO_REAL, gen.GAN_DEMO_FAKE)
    st.markdown(f"本物 2 枚への識別器の出力 $D(x) = {vec(r.d_real)}$、生成した 2 枚への出力 $D(G(z)) = {vec(r.d_fake)}$"
                "（学習の初め：簡単に見破られている）。log は自然対数です。")
    st.latex(rf"\begin{{aligned}}V &= \tfrac12(\log {fx(r.d_real[0])} + \log {fx(r.d_real[1])}) + "
             rf"\tfrac12(\log {fx(r.fake_complement[0])} + \log {fx(r.fake_complement[1])}) \\ &= {fx(r.value)}\end{{aligned}}")
    st.markdown(f"識別器は $V$ を大きくしたいので、損失は $-V = {fx(r.loss_d)}$。生成器の損失は、飽和する形 "
                f"$\\tfrac12\\sum \\log(1 - D(G(z))) = {fx(r.loss_g_saturating)}$ か、非飽和の形 "
                f"$\\tfrac12\\sum -\\log D(G(z)) = {fx(r.loss_g_nonsat)}$ です。")
    st.latex(rf"\begin{{aligned}}\Bigl|\tfrac{{\partial \log(1 - \sigma(a))}}{{\partial a}}\Bigr| &= D = {vec(r.d_fake)} \\"
             rf"\Bigl|\tfrac{{\partial (-\log \sigma(a))}}{{\partial a}}\Bigr| &= 1 - D = {vec(r.nonsat_magnitude)}\end{{aligned}}")
    st.caption("見破られている（D(G(z)) が小さい）ほど、飽和する損失の勾配は小さく、非飽和の損失の勾配は大きくなります。")


def hand_optimal() -> None:
    r = gen.optimal_discriminator(gen.GAN_DEMO_P_DATA, gen.GAN_DEMO_P_G)
    st.markdown("4 つの点 A〜D の上のデータの分布 $p_{\\text{data}}$ と、学習の初めの生成器の分布 $p_g$ です。")
    ui.show_table(optimal_frame(r), hide_index=True)
    st.latex(rf"D^*(\mathrm{{A}}) = \frac{{{fx(r.p_data[0])}}}{{{fx(r.p_data[0])} + {fx(r.p_g[0])}}} = {fx(r.d_star[0])}")
    st.markdown(f"この $D^*$ での価値関数は $V = \\sum p_{{\\text{{data}}}} \\log D^* + \\sum p_g \\log(1 - D^*) = {fx(r.value)}$。"
                f"均衡の $-\\log 4 = {fx(gen.EQUILIBRIUM_VALUE)}$ より大きく、差の半分 {fx(r.jsd)} が 2 つの分布の"
                "ジェンセン・シャノン情報量です。生成器はこれを 0 に近づけるように学習します。")


def hand_dcgan() -> None:
    k, s, p = gen.DCGAN_KERNEL, gen.DCGAN_STRIDE, gen.DCGAN_PADDING
    sides = gen.dcgan_sizes()
    st.markdown(f"$z$（{gen.DCGAN_Z} 次元）を {sides[0]} × {sides[0]} に並べ替え、カーネル $k = {k}$、ストライド $s = {s}$、"
                f"パディング $p = {p}$ の転置畳み込みを {len(sides) - 1} 回かけます（よく使われる実装の設定）。")
    lines = " \\\\ ".join(rf"({a} - 1) \times {s} - 2 \times {p} + {k} &= {b}" for a, b in zip(sides, sides[1:]))
    st.latex(r"\begin{aligned}" + lines + r"\end{aligned}")
    ui.show_table(sizes_frame(sides, k, s, p), hide_index=True)
    st.caption(f"識別器は逆に、同じ設定の通常の畳み込み ⌊(n + 2p − k)/s⌋ + 1 で 64 → {gen.conv_size(64, k, s, p)} と縮めます。")
    a, b, c = (gen.LATENT_DEMO[key] for key in LATENT_KEYS)
    st.markdown(f"潜在ベクトルの足し引き（3 次元のおもちゃの例）：{vec(a)} − {vec(b)} + {vec(c)} = "
                f"{vec(gen.latent_arithmetic(a, b, c))}（＝「笑顔の男性」の {vec(gen.LATENT_DEMO['笑顔の男性'])}）。")


def hand_cycle() -> None:
    c = demo_cycle()
    st.markdown("2 画素の「画像」と、2 × 2 の行列で書いた変換 $G: X \\to Y$、$F: Y \\to X$ です（$G(x) = Gx$）。")
    c1, c2 = st.columns(2)
    with c1:
        ui.show_matrix(gen.CYCLE_DEMO_G, PIXELS, PIXELS, digits=1, caption="G")
    with c2:
        ui.show_matrix(gen.CYCLE_DEMO_F, PIXELS, PIXELS, digits=1, caption="F")
    st.latex(rf"\begin{{aligned}}x = {vec(gen.CYCLE_DEMO_X)} &\to G(x) = {vec(c.g_x)} \to F(G(x)) = {vec(c.f_g_x)} \\"
             rf"y = {vec(gen.CYCLE_DEMO_Y)} &\to F(y) = {vec(c.f_y)} \to G(F(y)) = {vec(c.g_f_y)}\end{{aligned}}")
    st.latex(rf"\begin{{aligned}}\mathcal{{L}}_{{\text{{cyc}}}} &= \|F(G(x)) - x\|_1 + \|G(F(y)) - y\|_1 \\"
             rf"&= {fx(c.forward)} + {fx(c.backward)} = {fx(c.total)}\end{{aligned}}")
    st.markdown(f"CycleGAN はこれを $\\lambda = {fx(c.lam)}$ 倍（{fx(c.weighted)}）して 2 つの敵対的な損失に足します。"
                "サイクル一貫性損失が 0 になるのは、$F$ が $G$ をちょうど打ち消すときです。")


def hand_nerf() -> None:
    r = demo_ray()
    st.markdown("1 本の光線の上に手前から 4 つのサンプル（間隔 $\\delta = 1$）。密度は $\\sigma = (0, \\ln 2, \\ln 5, \\ln 4)$、"
                "色は白っぽい・赤・青・緑です。")
    st.latex(rf"\begin{{aligned}}\alpha_i &= 1 - e^{{-\sigma_i \delta_i}} = {vec(r.alpha)} \\ T_i &= \textstyle\prod_{{j<i}}(1 - \alpha_j)"
             rf" = {vec(r.transmittance)} \\ w_i &= T_i \alpha_i = {vec(r.weights)}\end{{aligned}}")
    ui.show_table(ray_frame(r), hide_index=True)
    st.latex(rf"C = \textstyle\sum_i w_i c_i = {vec(r.color)}")
    st.markdown(f"重みの和は {fx(r.opacity)}（光線の {fx(r.opacity)} がこの 4 点で止まる）。1 点目は密度 0 で透明、2 点目の赤が"
                "半分を受け取り、奥の緑は手前にさえぎられてほとんど効きません。これがボリュームレンダリングです。")


def hand_wavenet() -> None:
    dil = gen.wavenet_dilations()
    field = gen.receptive_field(dil)
    st.markdown(f"カーネル 2、dilation {', '.join(str(d) for d in dil[:4])}, …, {dil[-1]} の 10 層：")
    st.latex(rf"(2 - 1) \times ({' + '.join(str(d) for d in dil[:3])} + \dots + {dil[-1]}) + 1 = "
             rf"{numfmt.grouped(gen.dilation_total(dil))} + 1 = {numfmt.grouped(field)}")
    st.markdown(f"16 kHz の音なら {numfmt.grouped(field)} 標本は {fx(gen.milliseconds(field))} ms です。")
    m = gen.mu_law(gen.MU_DEMO)
    st.markdown("μ-law（$\\mu = 255$）で $x = 15/255$ と $-63/255$ を圧伸します（$\\ln 256 = 8 \\ln 2$）。")
    st.latex(rf"\begin{{aligned}}F(\tfrac{{15}}{{255}}) &= \frac{{\ln 16}}{{\ln 256}} = {fx(m.companded[0])} \\"
             rf"F(-\tfrac{{63}}{{255}}) &= -\frac{{\ln 64}}{{\ln 256}} = {fx(m.companded[1])}\end{{aligned}}")
    st.markdown(f"256 段階の番号 $\\lfloor (F + 1)/2 \\times 255 + \\tfrac12 \\rfloor$ は {m.index[0]} と {m.index[1]}。"
                f"圧伸せずに等しい幅で分けると {m.linear_index[0]} と {m.linear_index[1]} で、小さな音ほど粗くなります。")


# ---------------------------------------------------------------------------
# 可視化
# ---------------------------------------------------------------------------
def visual() -> None:
    st.subheader("生成器の勾配：飽和する損失と非飽和の損失")
    d, sat, non = gen.gradient_curves()
    ui.cached_chart(lines_chart, "D(G(z))（識別器が本物と思う確率）", "勾配の大きさ",
                    (("log(1 − D) の勾配 = D", tuple(d), tuple(sat)), ("−log D の勾配 = 1 − D", tuple(d), tuple(non))),
                    title="ロジット a についての勾配の大きさ", y_format=".1f", width="stretch")
    st.caption("左端（見破られている学習の初め）で、飽和する損失の勾配はほぼ 0、非飽和の損失の勾配はほぼ 1 です。")
    st.subheader("最適な識別器と 2 つの分布")
    r = gen.optimal_discriminator(gen.GAN_DEMO_P_DATA, gen.GAN_DEMO_P_G)
    ui.cached_chart(prob_bars, tuple(r.d_star), tuple(f"点 {p}" for p in POINTS), title="D*（本物である確率）",
                    value_title="D*", width="stretch")
    eq = gen.optimal_discriminator(gen.GAN_DEMO_P_DATA, gen.GAN_DEMO_P_DATA)
    st.caption(f"$p_{{\\text{{data}}}}$ が多い点ほど $D^*$ は 1 に近く、$p_g$ が多い点ほど 0 に近くなります。"
               f"$p_g = p_{{\\text{{data}}}}$ なら $D^*$ はすべて {fx(eq.d_star[0])}、$V = {fx(eq.value)}$（$-\\log 4$）です。")
    st.subheader("光線に沿った透過率と重み")
    ray = demo_ray()
    idx = tuple(range(1, ray.alpha.size + 1))
    ui.cached_chart(lines_chart, "サンプル（手前 → 奥）", "値",
                    (("透過率 T", idx, tuple(ray.transmittance)), ("不透明度 α", idx, tuple(ray.alpha)),
                     ("重み w = Tα", idx, tuple(ray.weights))), title="NeRF の 1 本の光線", y_format=".1f", width="stretch")
    st.caption("T は手前から順に減っていくだけで、増えることはありません。重みは T と α の両方が大きいところで大きくなります。")
    st.subheader("μ-law：小さな音に細かい段階")
    x, f = gen.mu_law_curve()
    ui.cached_chart(lines_chart, "標本 x", "量子化する前の値",
                    (("μ-law F(x)（μ = 255）", tuple(x), tuple(f)), ("圧伸なし（x のまま）", tuple(x), tuple(x))),
                    title="μ-law の圧伸", y_format=".1f", width="stretch")
    st.caption("0 の近くで曲線が急なので、小さな振幅の違いが大きな値の違いになり、256 段階のうち多くが割り当てられます。")
    st.subheader("dilation を倍にすると受容野が倍に広がる")
    ui.cached_table(field_frame, gen.wavenet_dilations(), hide_index=True)


# ---------------------------------------------------------------------------
# 試してみよう
# ---------------------------------------------------------------------------
def try_it() -> None:
    st.subheader("識別器の出力を変えて損失を見る")
    try_gan()
    st.subheader("p_data と p_g を変えて D* を求める")
    try_optimal()
    st.subheader("転置畳み込みの設定を変える")
    try_tconv()
    st.subheader("G と F を変えてサイクル一貫性損失を見る")
    try_cycle()
    st.subheader("密度と色を変えて光線を合成する")
    try_nerf()
    st.subheader("WaveNet の層の数と μ-law")
    try_wavenet()


@st.fragment
def try_gan() -> None:
    """V and the losses of a batch as a fragment: an edited output reruns this part only."""
    m = ui.matrix_editor("generation_d", (gen.GAN_DEMO_REAL, gen.GAN_DEMO_FAKE), GAN_ROWS, GAN_COLS,
                         label="識別器の出力（0 より大きく 1 より小さい確率）", reset_label="最初の値に戻す")
    r = ui.compute("generation_gan", gen.gan_losses, m[0], m[1])
    if r is None:
        return
    c1, c2, c3 = st.columns(3)
    c1.metric("価値関数 V", numfmt.fixed(r.value, 3))
    c2.metric("生成器の損失（飽和）", numfmt.fixed(r.loss_g_saturating, 3))
    c3.metric("生成器の損失（非飽和）", numfmt.fixed(r.loss_g_nonsat, 3))
    st.caption(f"勾配の大きさ：飽和する損失 {vec(r.d_fake)}、非飽和の損失 {vec(r.nonsat_magnitude)}。")


@st.fragment
def try_optimal() -> None:
    """D* of two edited distributions as a fragment."""
    m = ui.matrix_editor("generation_p", (gen.GAN_DEMO_P_DATA, gen.GAN_DEMO_P_G), P_ROWS, POINTS,
                         label="2 つの分布（各行の合計を 1 に）", reset_label="最初の値に戻す")
    r = ui.compute("generation_optimal", gen.optimal_discriminator, m[0], m[1])
    if r is None:
        return
    ui.show_table(optimal_frame(r), hide_index=True)
    c1, c2 = st.columns(2)
    c1.metric("V(D*, G)", numfmt.fixed(r.value, 3))
    c2.metric("ジェンセン・シャノン情報量", numfmt.fixed(r.jsd, 3))


@st.fragment
def try_tconv() -> None:
    """The sides through a generator as a fragment: a changed setting reruns this part only."""
    c1, c2, c3 = st.columns(3)
    with c1:
        start = ui.number_input("最初の 1 辺", min_value=1, max_value=64, value=gen.DCGAN_START, key="generation_start")
        layers = ui.number_input("層の数", min_value=1, max_value=8, value=gen.DCGAN_LAYERS, key="generation_layers")
    with c2:
        kernel = ui.number_input("カーネル k", min_value=1, max_value=9, value=gen.DCGAN_KERNEL, key="generation_kernel")
        stride = ui.number_input("ストライド s", min_value=1, max_value=4, value=gen.DCGAN_STRIDE, key="generation_stride")
    with c3:
        padding = ui.number_input("パディング p", min_value=0, max_value=4, value=gen.DCGAN_PADDING, key="generation_padding")
    sides = ui.compute("generation_sizes", gen.dcgan_sizes, int(start), int(layers), int(kernel), int(stride), int(padding))
    if sides is not None:
        ui.show_table(sizes_frame(sides, int(kernel), int(stride), int(padding)), hide_index=True)
        st.metric("最後の 1 辺", numfmt.grouped(sides[-1]))


@st.fragment
def try_cycle() -> None:
    """The cycle-consistency loss of edited maps as a fragment."""
    c1, c2 = st.columns(2)
    with c1:
        g = ui.matrix_editor("generation_g", gen.CYCLE_DEMO_G, PIXELS, PIXELS, label="G: X → Y", reset_label="最初の値に戻す")
    with c2:
        f = ui.matrix_editor("generation_f", gen.CYCLE_DEMO_F, PIXELS, PIXELS, label="F: Y → X", reset_label="最初の値に戻す")
    xy = ui.matrix_editor("generation_xy", (gen.CYCLE_DEMO_X, gen.CYCLE_DEMO_Y), ("x", "y"), PIXELS, label="2 つの画像",
                          reset_label="最初の値に戻す")
    c = ui.compute("generation_cycle", gen.cycle_loss, xy[0], xy[1], g, f)
    if c is None:
        return
    st.markdown(f"F(G(x)) = {vec(c.f_g_x)}、G(F(y)) = {vec(c.g_f_y)}")
    m1, m2, m3 = st.columns(3)
    m1.metric("‖F(G(x)) − x‖₁", numfmt.fixed(c.forward, 3))
    m2.metric("‖G(F(y)) − y‖₁", numfmt.fixed(c.backward, 3))
    m3.metric("サイクル一貫性損失", numfmt.fixed(c.total, 3))


@st.fragment
def try_nerf() -> None:
    """One ray of edited densities and colours as a fragment."""
    m = ui.matrix_editor("generation_ray", np.column_stack([gen.NERF_DEMO_SIGMA, gen.NERF_DEMO_COLORS]), SAMPLES, RAY_COLS,
                         label="サンプルごとの密度 σ と色（δ = 1）", reset_label="最初の値に戻す")
    r = ui.compute("generation_render", gen.render_ray, m[:, 0], gen.NERF_DEMO_DELTA, m[:, 1:])
    if r is None:
        return
    ui.cached_chart(prob_bars, tuple(r.weights), SAMPLES, title="各サンプルの重み w = Tα", value_title="重み", width="stretch")
    c1, c2 = st.columns(2)
    c1.metric("合成した色 (R, G, B)", vec(r.color))
    c2.metric("重みの和（不透明さ）", numfmt.fixed(r.opacity, 3))


@st.fragment
def try_wavenet() -> None:
    """The receptive field and μ-law as a fragment."""
    c1, c2, c3 = st.columns(3)
    with c1:
        layers = ui.number_input("1 スタックの層の数", min_value=1, max_value=16, value=gen.WAVENET_LAYERS, key="generation_wn_layers")
    with c2:
        stacks = ui.number_input("スタックの数", min_value=1, max_value=8, value=1, key="generation_wn_stacks")
    with c3:
        sample = ui.number_input("標本 x", min_value=-1.0, max_value=1.0, value=0.5, step=0.01, key="generation_wn_x")
    field = ui.compute("generation_field", gen.receptive_field, gen.wavenet_dilations(int(layers), int(stacks)))
    m = ui.compute("generation_mu", gen.mu_law, float(sample))
    if field is None or m is None:
        return
    m1, m2, m3 = st.columns(3)
    m1.metric("受容野（標本）", numfmt.grouped(field))
    m2.metric("16 kHz での長さ（ms）", numfmt.fixed(gen.milliseconds(field), 1))
    m3.metric("μ-law の段階（0〜255）", str(int(m.index[0])))
    st.caption(f"F(x) = {fx(m.companded[0])}。圧伸しないと段階は {int(m.linear_index[0])}、段階から戻した値は {fx(m.restored[0])}。")


ui.sections("generation", [("aim", aim_and_explain), ("hand", hand), ("visual", visual), ("try", try_it)],
            after_quiz=lambda: ui.next_link("generation"))
