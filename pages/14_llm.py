"""⑩-1 大規模言語モデルとその後：GPT-2/3 の大きさ、スケーリング則、指示チューニングと RLHF、推論のコスト
（KV キャッシュ・MQA/GQA・FlashAttention）、BPE、ViT のあとの画像モデル（Swin・MAE。CLIP は ⑪）。

Every number comes from tutor.llm (and, for the tiled attention, tutor.cost): parameter counts,
the compute-optimal split of a budget, the reward model's loss and the KL-penalised policy, the KV
cache's bytes, BPE's merges, Swin's costs and windows, MAE's mask (CLIP moved to ⑪, pages/24_multimodal.py).
"""
import numpy as np
import pandas as pd
import streamlit as st

import ui
from tutor import cost, llm, numfmt, pretrain

ui.page("llm")

GPT3 = llm.GPT_SIZES["GPT-3 175B"]
KV_7B = {"layers": 32, "heads": 32, "d_head": 128}           # a 7B-size decoder (e.g. Llama 2 7B)
KV_KEYS = {"layers": ("llm_kv_layers", 32), "heads": ("llm_kv_heads", 32), "kv_heads": ("llm_kv_groups", 8),
           "d_head": ("llm_kv_d_head", 128), "context": ("llm_kv_context", 4096), "batch": ("llm_kv_batch", 1)}
KV_CONTEXTS = (512, 1024, 2048, 4096, 8192, 16384, 32768)
REWARD_DEMO = ((2.0, 0.5), (1.0, 1.5), (3.0, 0.0))           # (r_w, r_l) of three ranked pairs
KL_ANSWERS = ("丁寧で正確な答え", "短すぎる答え", "報酬モデルの穴を突く答え", "話をそらす答え")
KL_REF = (0.5, 0.2, 0.05, 0.25)                               # π_ref over the four answers
KL_REWARDS = (1.0, 0.0, 2.0, -1.0)                            # the reward model's scores
KL_BETAS = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0)
SWIN_DEMO = {"h": 56, "w": 56, "channels": 96, "window": 7}   # Swin-T's first stage
MAE_IMAGE, MAE_PATCH = 224, 16
FLASH_N, FLASH_BLOCK = 256, 64                                # the tiled-attention check (tutor.cost)


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


def size(nbytes: int) -> str:
    """Bytes in GiB from 1 GiB up, else MiB or KiB (numbers written by tutor.numfmt)."""
    if nbytes >= llm.GIB:
        return f"{numfmt.trimmed(llm.in_gib(nbytes), 2)} GiB"
    if nbytes >= llm.MIB:
        return f"{numfmt.trimmed(llm.in_mib(nbytes), 2)} MiB"
    return f"{numfmt.trimmed(llm.in_kib(nbytes), 2)} KiB"


def kv_config() -> dict:
    """The KV-cache configuration of 試してみよう (its defaults until the learner changes it)."""
    return {name: int(st.session_state.get(key, default)) for name, (key, default) in KV_KEYS.items()}


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


def kv_frame(layers: int, heads: int, d_head: int, context: int) -> pd.DataFrame:
    rows = []
    for label, groups in (("MHA（全ヘッドが自分の K・V）", heads), ("GQA（8 組を共有）", 8), ("MQA（1 組を共有）", 1)):
        c = llm.kv_cache(layers, groups, d_head, context)
        rows.append({"方式": label, "KV ヘッド数": groups, "1 トークンあたり": size(c.per_token), "全体": size(c.total),
                     "MHA の何分の 1": llm.kv_saving(heads, groups)})
    return pd.DataFrame(rows)


def kl_panels() -> list[list[dict]]:
    panels = []
    for beta in KL_BETAS:
        k = llm.kl_optimal_policy(KL_REF, KL_REWARDS, beta)
        frame = pd.DataFrame({"答え": list(KL_ANSWERS), "元のモデル π_ref": [numfmt.fixed(x, 3) for x in KL_REF],
                              "報酬 r": [numfmt.trimmed(x, 1) for x in KL_REWARDS],
                              "調整後 π*": [numfmt.fixed(x, 3) for x in k.policy]})
        note = (f"β = {numfmt.trimmed(beta, 2)}：報酬の期待値 {numfmt.fixed(k.expected_reward, 3)}、"
                f"KL {numfmt.fixed(k.kl, 3)}、目的の値 {numfmt.fixed(k.objective, 3)}")
        panels.append([{"text": note}, ui.table_block(frame, hide_index=True)])
    return panels


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
        "- **zero-shot・few-shot（文脈内学習）・Chain-of-Thought**、**指示チューニングと RLHF**、**ハルシネーション**、"
        "**基盤モデル** を区別して説明できる。\n"
        "- 推論を軽くする **KV キャッシュ・MQA/GQA・FlashAttention** と、サブワード分割 **BPE** の手順をたどれる。\n"
        "- ViT のあとの **Swin Transformer・MAE** の要点を、計算量とパッチの数で確かめる。"
    )
    ui.section("explain")
    st.subheader("GPT-2・GPT-3：デコーダだけのモデルを大きくする")
    explain_gpt()
    st.subheader("スケーリング則と計算量の配分")
    explain_scaling()
    ui.folded_topics("大規模言語モデルの時代のキーワード", (
        ("プロンプトだけで課題を解かせる", explain_prompting, "prompting"),
        ("対話アシスタントへ：指示チューニングと RLHF", explain_assistant, "assistant"),
        ("ハルシネーション：もっともらしい誤り", explain_hallucination, "hallucination"),
        ("推論を軽くする：KV キャッシュ・MQA/GQA・FlashAttention", explain_inference, "inference"),
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


def explain_assistant() -> None:
    st.markdown(
        "事前学習しただけのモデルは文章の続きを書くのが得意なだけで、指示に従うとは限りません。"
        "そこで、さまざまな課題を「指示と応答」の形にしたデータでファインチューニングします（**指示チューニング**）。"
        "学習していない種類の指示にも従いやすくなります。さらに人の好みに合わせるのが **RLHF**（人のフィードバックによる強化学習）で、"
        "次の 3 段階で進みます。\n\n"
        "1. **教師ありファインチューニング（SFT）**：人が書いた手本の応答で学習する。\n"
        "2. **報酬モデル**：同じ指示への 2 つの応答を人が比べた結果から、応答の良さを 1 つの数 $r$ で表すモデルを学習する。\n"
        "3. **強化学習**：報酬 $r$ が大きくなるように応答を生成するモデル（方策）を更新する。"
        "元のモデル $\\pi_{\\text{ref}}$ から離れすぎないよう、KL ダイバージェンスを罰として差し引く。"
    )
    st.latex(r"\text{報酬モデルの損失} = -\log \sigma(r_w - r_l)")
    st.latex(r"\begin{aligned}&\max_\pi\; \mathbb{E}_{y \sim \pi}[r(y)] - \beta\, \mathrm{KL}(\pi \,\|\, \pi_{\text{ref}})"
             r" \\ &\Rightarrow\; \pi^*(y) \propto \pi_{\text{ref}}(y)\, e^{r(y)/\beta}\end{aligned}")
    st.markdown(
        "$r_w$ は人が選んだ応答、$r_l$ は選ばなかった応答の点数、$\\sigma$ はシグモイド関数です。"
        "KL の罰つきの目的を最大にする方策は、元の確率に $e^{r/\\beta}$ を掛けて正規化した形、つまり softmax になります"
        "（$\\beta$ が小さいほど報酬の高い答えに集中します）。"
        "**ChatGPT**（2022 年 11 月公開）は、GPT 系のモデルをこの流れで対話向けに調整したものです。"
        "このように、幅広いデータで事前学習し、ファインチューニングやプロンプトで多くの課題の土台にする大きなモデルを "
        "**基盤モデル（foundation model）** と呼びます。"
    )


def explain_hallucination() -> None:
    st.markdown(
        "大規模言語モデルは、事実と違う内容や存在しない出典を、もっともらしく自信ありげに書くことがあります。"
        "これを **ハルシネーション** と呼びます。次のトークンを予測する学習は「学習データにありそうな続き」の確率を高める"
        "学習で、内容が事実かどうかを確かめる仕組みも、「分からない」と答える動機も含みません。"
        "そのため、知らないことを尋ねられても、ありそうな続きを作ってしまいます。"
        "モデルを大きくしても、温度を 0 にしてもなくなりはしません。外部の文書を検索して根拠として入力に加える方法（RAG）や、"
        "出典の確認で減らします。"
    )


def explain_inference() -> None:
    st.markdown(
        "1 トークンずつ生成するとき、因果マスクがあるので過去のトークンのキーとバリューは後から変わりません。"
        "そこで各層のキーとバリューを保存しておき（**KV キャッシュ**）、新しいトークンではそのクエリ・キー・バリューだけを計算します。"
        "クエリは保存しません。その代わり、メモリが文脈の長さとバッチに比例して増えます。"
    )
    st.latex(r"\begin{aligned}\text{KV キャッシュ} = {}&2 \times L \times n_{\text{kv}} \times d_{\text{head}} \\"
             r"&\times T \times \text{バイト数} \times B\end{aligned}")
    st.markdown(
        "**Multi-Query Attention（MQA）** は全部のクエリのヘッドで 1 組のキー・バリューを共有し、"
        "**Grouped-Query Attention（GQA）** はヘッドをいくつかの組に分けて組ごとに共有します。KV キャッシュは "
        "$n_{\\text{head}} / n_{\\text{kv}}$ 分の 1 になります。**FlashAttention** は、注意をブロックに分けて "
        "softmax の途中結果を持ち回り、$n \\times n$ の重みの表を保存せずに計算します。近似ではなく、出力は通常の注意と同じです"
        f"（[{ui.PAGE_BY_KEY['cost'].label}]({ui.section_url('cost', 'try')}) で確かめたタイル分割の考え方）。"
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
        "**Swin Transformer**（2021 年）は、特徴マップを $M \\times M$ の窓に分け、窓の中だけで自己注意をとります。"
        "次の層では窓を半分ずらして窓をまたぐ情報も混ぜ、段階ごとにパッチを統合して解像度を下げます（階層構造）。"
        "1 トークンが組む相手が $M^2$ 個に減るので、計算量は画像の大きさに比例する量で済みます。"
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
    st.subheader("報酬モデルの損失を計算する")
    hand_reward()
    st.subheader("KV キャッシュのメモリ")
    hand_kv()
    st.subheader("FlashAttention：タイルに分けても答えは同じ")
    hand_flash()
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


def hand_reward() -> None:
    (w, lo), *_ = REWARD_DEMO
    one = llm.reward_pair_loss(w, lo)
    st.markdown(f"人が選んだ応答の点数が $r_w = {numfmt.trimmed(w, 1)}$、選ばなかった応答の点数が "
                f"$r_l = {numfmt.trimmed(lo, 1)}$ のとき（log は自然対数）：")
    st.latex(rf"\begin{{aligned}}r_w - r_l &= {numfmt.trimmed(float(one.margin), 2)} \\"
             rf"\sigma(r_w - r_l) &= \frac{{1}}{{1 + e^{{-{numfmt.trimmed(float(one.margin), 2)}}}}} = {numfmt.fixed(float(one.prob), 3)} \\"
             rf"-\log \sigma(r_w - r_l) &= {numfmt.fixed(float(one.loss), 3)}\end{{aligned}}")
    swapped = float(llm.reward_loss_swapped(w, lo))
    st.markdown(f"2 つを取り違えて $-\\log\\sigma(r_l - r_w)$ とすると {numfmt.fixed(swapped, 3)} になり、人の好みと逆の向きに"
                "学習してしまいます。3 組の比較をまとめて学習するときは、各組の損失の平均を小さくします。")
    ws, ls = zip(*REWARD_DEMO)
    batch = llm.reward_pair_loss(ws, ls)
    ui.show_table(pd.DataFrame({"r_w": [numfmt.trimmed(x, 1) for x in ws], "r_l": [numfmt.trimmed(x, 1) for x in ls],
                                "σ(r_w − r_l)": [numfmt.fixed(x, 3) for x in batch.prob],
                                "損失": [numfmt.fixed(x, 3) for x in batch.loss]}), hide_index=True)
    st.markdown(f"平均の損失は **{numfmt.fixed(batch.mean, 3)}**。2 組目は選ばなかった応答の点数のほうが高いので、損失が大きくなっています。")


def hand_kv() -> None:
    c = llm.kv_cache(KV_7B["layers"], KV_7B["heads"], KV_7B["d_head"], 4096)
    st.markdown(f"{KV_7B['layers']} 層・{KV_7B['heads']} ヘッド・$d_{{\\text{{head}}}} = {KV_7B['d_head']}$ の 70 億パラメータ級の"
                "モデル（Llama 2 7B と同じ形）で、各値を 16 ビット（2 バイト）で保存します。")
    st.latex(rf"\begin{{aligned}}\text{{1 トークン}} &= 2 \times {c.layers} \times {c.kv_heads} \times {c.d_head} \times 2 \\"
             rf"&= {tcount(c.per_token)}\ \text{{バイト}} \\ \text{{{tcount(c.context)} トークン}} &= {tcount(c.per_token)} \times "
             rf"{tcount(c.context)} \\ &= {tcount(c.total)}\ \text{{バイト}}\end{{aligned}}")
    st.markdown(f"1 本の系列で **{size(c.total)}**（1 GiB = $2^{{30}}$ バイト）。クエリのヘッド {KV_7B['heads']} 個に対して、"
                "キー・バリューのヘッドを減らすと次のようになります。")
    ui.cached_table(kv_frame, KV_7B["layers"], KV_7B["heads"], KV_7B["d_head"], 4096, hide_index=True)


def hand_flash() -> None:
    q, k, v = cost.random_qkv(FLASH_N, 16, np.random.default_rng(0))
    cmp = cost.compare_tiled(q, k, v, FLASH_BLOCK, causal=True)
    st.markdown(f"長さ {FLASH_N} の系列（$d_k = 16$、因果マスクつき）で、ふつうの注意と、{FLASH_BLOCK} × {FLASH_BLOCK} のタイルごとに "
                "softmax の途中の最大値と合計を持ち回る計算（FlashAttention の考え方）を比べました。"
                f"出力の差の最大は **{numfmt.tiny(cmp.max_diff, 3, below=1e-3)}**（浮動小数点の丸めの大きさ）で、同じ答えです。"
                f"保存するスコアは {count(cmp.full_elements)} 個の表から、{count(cmp.peak_elements)} 個のタイルに減ります。")


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
    ui.cached_chart(ui.figures.lines_chart, "パラメータ数 N", "損失 L(N)", (("L(N) = (N_c/N)^α", tuple(ns), tuple(losses)),),
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
    st.subheader("KL の罰の強さ β と、調整後のモデル")
    st.markdown("元のモデルの確率と報酬モデルの点数が下の表のとき、$\\pi^* \\propto \\pi_{\\text{ref}} e^{r/\\beta}$ を β ごとに"
                "計算しました。β が小さいと報酬の穴を突く答えに集中し、大きいと元のモデルのままです。")
    ui.stepper("β（罰の強さ）", KL_BETAS, kl_panels(), value=0.5, key="llm_beta", text=lambda b: numfmt.trimmed(b, 2))
    st.subheader("KV キャッシュは文脈の長さに比例して増える")
    visual_kv()
    st.subheader("Swin の窓と、ずらした窓")
    ids, shifted = llm.swin_window_ids(8, 8, 4), llm.swin_window_ids(8, 8, 4, shifted=True)
    pos = [str(i + 1) for i in range(8)]
    ui.figures.side_by_side([(ids, pos, pos, "窓（4×4）の番号"), (shifted, pos, pos, "2 つずらした窓の番号")], digits=0)
    st.caption("8×8 のトークンを M = 4 の窓に分けた例。次の層では境界が 2 つずれ、前の層で別々の窓だったトークンが"
               "同じ窓に入ります（端の窓は小さくなる）。")
    st.subheader("MAE：ランダムに隠したパッチ")
    visual_mae()


def visual_kv() -> None:
    cfg = kv_config()
    curve = ui.compute("llm_kv_curve", llm.kv_cache_curve, cfg["layers"], cfg["heads"],
                       sorted({cfg["heads"], cfg["kv_heads"], 1}, reverse=True), cfg["d_head"], KV_CONTEXTS, batch=cfg["batch"])
    if curve is None:
        return
    series = tuple((f"KV ヘッド {g}", KV_CONTEXTS, tuple(llm.in_gib(b) for b in sizes)) for g, sizes in curve.items())
    ui.cached_chart(ui.figures.lines_chart, "文脈の長さ T（トークン）", "KV キャッシュ（GiB）", series,
                    title=f"{cfg['layers']} 層・d_head = {cfg['d_head']}・バッチ {cfg['batch']}", y_format="~g", log=True)
    st.caption("「試してみよう」の KV キャッシュの設定で描いています。両対数なので、傾き 1 の直線（文脈の長さに比例）に"
               "なり、KV ヘッドを減らすと同じ傾きのまま下にずれます。")


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
    st.subheader("KV キャッシュのメモリを見積もる")
    try_kv()
    st.subheader("自分のコーパスで BPE を学習する")
    try_bpe()
    st.subheader("報酬モデルの損失")
    try_reward()
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
def try_kv() -> None:
    """The KV cache as a fragment (可視化 draws its chart with these numbers)."""
    values = {}
    cols = st.columns(3)
    limits = {"layers": ("層数 L", 1, 200, 1), "heads": ("クエリのヘッド数", 1, 256, 1), "kv_heads": ("KV ヘッド数", 1, 256, 1),
              "d_head": ("1 ヘッドの次元", 1, 1024, 16), "context": ("文脈の長さ T", 1, 1_000_000, 1024),
              "batch": ("バッチ（同時に生成する系列の数）", 1, 1024, 1)}
    for i, (name, (key, default)) in enumerate(KV_KEYS.items()):
        label, lo, hi, step = limits[name]
        with cols[i % 3]:
            values[name] = int(ui.number_input(label, min_value=lo, max_value=hi, value=default, step=step, key=key,
                                               persist_state="session"))
    saving = ui.compute("llm_kv_saving", llm.kv_saving, values["heads"], values["kv_heads"])
    c = ui.compute("llm_kv", llm.kv_cache, values["layers"], values["kv_heads"], values["d_head"], values["context"], 2,
                   values["batch"])
    if c is not None and saving is not None:
        c1, c2 = st.columns(2)
        c1.metric("KV キャッシュ（16 ビット）", size(c.total))
        c2.metric("ヘッドごとに持つ場合の何分の 1", str(saving))
        st.caption(f"1 トークンあたり {count(c.per_token)} バイト × {count(c.context)} トークン × バッチ {c.batch}。")


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
def try_reward() -> None:
    """The reward model's loss on one pair as a fragment."""
    c1, c2 = st.columns(2)
    with c1:
        w = ui.number_input("選んだ応答の点数 r_w", min_value=-20.0, max_value=20.0, value=2.0, step=0.5, key="llm_rw",
                            persist_state="session")
    with c2:
        lo = ui.number_input("選ばなかった応答の点数 r_l", min_value=-20.0, max_value=20.0, value=0.5, step=0.5, key="llm_rl",
                             persist_state="session")
    res = ui.compute("llm_reward", llm.reward_pair_loss, float(w), float(lo))
    if res is not None:
        c1, c2 = st.columns(2)
        c1.metric("σ(r_w − r_l)", numfmt.fixed(float(res.prob), 3))
        c2.metric("損失 −log σ(r_w − r_l)", numfmt.fixed(float(res.loss), 3))


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
