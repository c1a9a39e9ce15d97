"""⑩-2 LLM を目的に合わせる：転移学習とファインチューニング（破壊的忘却）、PEFT（LoRA・Adapter・
プレフィックス／プロンプトチューニング）、指示チューニング、アラインメントと RLHF（⑩-1 から移った）、DPO・
Constitutional AI、プロンプトエンジニアリング、RAG、エージェント（ReAct）。

Every number comes from tutor.adapt (GPT-3's and BERT-Base's sizes from tutor.llm and tutor.pretrain):
LoRA's trainable parameters and its forward pass, the adapters' and soft prompts' counts, the reward
model's loss, the KL-penalised policy, DPO's loss, RAG's cosine similarities and top k.
"""
import numpy as np
import pandas as pd
import streamlit as st

import ui
from tutor import adapt, llm, numfmt, pretrain

ui.page("adapt")

GPT3 = llm.GPT_SIZES["GPT-3 175B"]
BERT = {"d": 768, "layers": 12, "heads": 12}                 # BERT-Base
LORA_D, LORA_R = 4096, 8                                     # one 4,096 × 4,096 matrix, rank 8
LORA_RANKS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
ADAPTER_M, PROMPT_N = 64, 20
REWARD_DEMO = ((2.0, 0.5), (1.0, 1.5), (3.0, 0.0))           # (r_w, r_l) of three ranked pairs
KL_ANSWERS = ("丁寧で正確な答え", "短すぎる答え", "報酬モデルの穴を突く答え", "話をそらす答え")
KL_REF = (0.5, 0.2, 0.05, 0.25)                               # π_ref over the four answers
KL_REWARDS = (1.0, 0.0, 2.0, -1.0)                            # the reward model's scores
KL_BETAS = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0)
DPO_DEMO = {"logp_chosen": -1.0, "logp_ref_chosen": -2.0, "logp_rejected": -3.0, "logp_ref_rejected": -2.0, "beta": 0.5}
ZERO_B = np.zeros_like(np.array(adapt.LORA_DEMO_B))
A_KEY, B_KEY, Q_KEY = "adapt_lora_a", "adapt_lora_b", "adapt_rag_q"
DOC_NAMES = [name for name, _, _ in adapt.RAG_DEMO_DOCS]
DOC_VECTORS = np.array([v for _, _, v in adapt.RAG_DEMO_DOCS])


def count(x) -> str:
    return numfmt.grouped(x)


def tcount(x) -> str:
    """count() inside LaTeX (the thousands separators as {,})."""
    return count(x).replace(",", "{,}")


def vec(v, *, tex: bool = False) -> str:
    """(1, 2, 2) for whole numbers, (0.5, …) to 3 places otherwise."""
    return ui.handcalc.vector(v, ui.handcalc.auto_digits(v), tex=tex)


def tvec(v) -> str:
    return vec(v, tex=True)


# ---------------------------------------------------------------------------
# tables (display only: every number is the engine's)
# ---------------------------------------------------------------------------
PEFT_LABELS = {"lora": f"LoRA（r = {LORA_R}、W_Q と W_V）", "adapter": f"Adapter（m = {ADAPTER_M}、1 層に 2 つ）",
               "prompt": f"プロンプトチューニング（n = {PROMPT_N}）", "prefix": f"プレフィックスチューニング（n = {PROMPT_N}）",
               "full": "全体のファインチューニング"}


def peft_frame(rows) -> pd.DataFrame:
    return pd.DataFrame({"方法": [PEFT_LABELS[r.method] for r in rows], "学習するパラメータ": [count(r.trainable) for r in rows],
                         "全体に占める割合": [numfmt.percent(r.share, 3) for r in rows]})


def reward_frame(ws, ls) -> pd.DataFrame:
    batch = adapt.reward_pair_loss(ws, ls)
    return pd.DataFrame({"r_w": [numfmt.trimmed(x, 1) for x in ws], "r_l": [numfmt.trimmed(x, 1) for x in ls],
                         "σ(r_w − r_l)": [numfmt.fixed(x, 3) for x in batch.prob], "損失": [numfmt.fixed(x, 3) for x in batch.loss]})


def kl_panels() -> list[list[dict]]:
    panels = []
    for beta in KL_BETAS:
        k = adapt.kl_optimal_policy(KL_REF, KL_REWARDS, beta)
        frame = pd.DataFrame({"答え": list(KL_ANSWERS), "元のモデル π_ref": [numfmt.fixed(x, 3) for x in KL_REF],
                              "報酬 r": [numfmt.trimmed(x, 1) for x in KL_REWARDS],
                              "調整後 π*": [numfmt.fixed(x, 3) for x in k.policy]})
        note = (f"β = {numfmt.trimmed(beta, 2)}：報酬の期待値 {numfmt.fixed(k.expected_reward, 3)}、"
                f"KL {numfmt.fixed(k.kl, 3)}、目的の値 {numfmt.fixed(k.objective, 3)}")
        panels.append([{"text": note}, ui.table_block(frame, hide_index=True)])
    return panels


def retrieval_frame(r: adapt.Retrieval) -> pd.DataFrame:
    rank = {doc: i + 1 for i, doc in enumerate(r.order)}
    return pd.DataFrame({"文書": DOC_NAMES, "内積 q·d": [numfmt.trimmed(x, 3) for x in r.dots],
                         "長さ ‖d‖": [numfmt.trimmed(x, 3) for x in r.doc_norms],
                         "コサイン類似度": [numfmt.fixed(x, 3) for x in r.cosine], "順位": [rank[i] for i in range(len(DOC_NAMES))]})


# ---------------------------------------------------------------------------
# ねらい・解説
# ---------------------------------------------------------------------------
def aim_and_explain() -> None:
    ui.section("aim")
    st.markdown(
        "- **転移学習** と **ファインチューニング** で基盤モデルを別の課題に使う考え方と、その落とし穴 **破壊的忘却** を説明できる。\n"
        "- **PEFT** の代表 **LoRA** が学習するパラメータ $r(d + k)$ を数え、**Adapter**・**プロンプトチューニング** と区別できる。\n"
        "- **指示チューニング** → **アラインメント**（**RLHF**・DPO・Constitutional AI）の流れを、報酬モデルの損失の計算でたどれる。\n"
        "- 重みを変えない工夫（**プロンプトエンジニアリング**・**RAG**・**エージェント**）を、何を変えるかで区別できる。"
    )
    ui.section("explain")
    st.subheader("基盤モデルを目的に合わせる：転移学習とファインチューニング")
    explain_transfer()
    st.subheader("一部だけを学習する：PEFT と LoRA")
    explain_lora()
    ui.folded_topics("ほかの合わせ方と、LLM の時代のキーワード", (
        ("Adapter・プレフィックスチューニング・プロンプトチューニング", explain_peft_others, "peft"),
        ("指示に従わせる：指示チューニングと ChatGPT", explain_instruction, "instruction"),
        ("人の好みに合わせる：アラインメントと RLHF", explain_rlhf, "rlhf"),
        ("報酬モデルなしで：DPO と Constitutional AI", explain_dpo, "dpo"),
        ("プロンプトエンジニアリング", explain_prompting, "prompting"),
        ("RAG：検索した文書を根拠にする", explain_rag, "rag"),
        ("エージェント：道具を使うモデル（ReAct）", explain_agents, "agents")), key="adapt")


def explain_transfer() -> None:
    st.markdown(
        "幅広い大量のデータで事前学習し、多くの課題の土台にする大きなモデルを **基盤モデル（foundation model）** と呼びます"
        "（大規模言語モデルや CLIP）。あるデータで学習したモデルを別の課題の出発点にする考え方が **転移学習** で、"
        "重みを凍結して新しい出力層だけを学習するやり方（特徴抽出）も、事前学習の重みから全体を少しずつ学習し直す "
        f"**ファインチューニング** も、その一種です（基本は [{ui.PAGE_BY_KEY['pretrain'].label}]({ui.section_url('pretrain', 'aim')})）。"
        "問われるのは「何を出発点にし、どこを学習するか」です。"
    )
    st.markdown(
        "学習し直すと、前にできていた課題の性能が大きく落ちることがあります。これが **破壊的忘却**"
        "（catastrophic forgetting）で、McCloskey と Cohen（1989 年）がニューラルネットワークの順番の学習で指摘しました。"
        "過学習（学習データに合わせすぎる）や勾配消失とは別の現象です。小さな学習率、一部の層の凍結、前の課題のデータを混ぜること、"
        "前の課題に大事な重みを動きにくくする EWC（Kirkpatrick ら、2017 年）、元の重みを凍結する PEFT で抑えます。"
    )
    st.markdown(
        "事前学習そのものは、文章の一部を隠して当てるなど正解をデータから作る **自己教師あり学習** です。"
        "少量のラベル付きデータと大量のラベルなしデータを一緒に使う **半教師あり学習** も、ラベルの少ない課題で使われます。"
        "見分ける決め手は正解の出どころで、人が付けたラベルなら教師あり、データ自身から作るなら自己教師あり、"
        "ラベル付きを少しだけ使うなら半教師ありです。"
        "**事前学習済みモデル** を出発点にすると、一から学習するより少ないデータで高い性能が出ます。重みを変えずにプロンプトで"
        "例を 0 個・1 個・数個見せて解かせるのが Zero-shot・**One-shot**・Few-shot で、GPT-3 の論文（Brown ら、2020 年）が"
        "この 3 通りを比べました。決め手は見せる例の数で、どれも重みは変わりません（ファインチューニングではない）"
        f"（[{ui.PAGE_BY_KEY['llm'].label}]({ui.section_url('llm', 'aim')})）。"
    )


def explain_lora() -> None:
    c = adapt.lora_params(LORA_D, LORA_D, LORA_R)
    st.markdown(
        "モデルが大きくなると、課題ごとに全部の重みを学習し直して保存するのは重すぎます。大部分を凍結し、少数のパラメータだけを学習する方法を "
        "**PEFT**（Parameter-Efficient Fine-Tuning）と呼びます。代表が **LoRA**（Hu ら、2021 年）です。"
        "$d \\times k$ の重み $W_0$ を凍結し、更新分を細長い 2 つの行列の積 $\\Delta W = BA$"
        "（$B$ は $d \\times r$、$A$ は $r \\times k$、ランク $r$ は小さい）で表して、$B$ と $A$ だけを学習します。"
    )
    st.latex(r"\begin{aligned}h &= W_0 x + BAx \\ \text{学習する数} &= r(d + k) \ll dk\end{aligned}")
    st.markdown(
        f"例えば ${tcount(LORA_D)} \\times {tcount(LORA_D)}$ の行列に $r = {LORA_R}$ なら、${tcount(c.frozen)}$ 個のうち "
        f"${tcount(c.trainable)}$ 個（{numfmt.trimmed(c.ratio, 1)} 分の 1）だけを学習します。$A$ は乱数、$B$ は 0 から始めるので、"
        "学習の初めの出力は元のモデルと同じです。学習の後は $W_0 + BA$ を 1 つの行列にまとめられるので、推論は遅くなりません"
        "（層を挟む Adapter との違い）。論文は、GPT-3 175B を Adam で全体を学習する場合に比べて、学習するパラメータを約 1 万分の 1、"
        "GPU のメモリを約 3 分の 1 にできると報告しました。問われるのは「何を凍結し、何を何個学習するか」です。"
    )


def explain_peft_others() -> None:
    st.markdown(
        "**Adapter**（Houlsby ら、2019 年）は、各層に幅 $d$ を $m$ に縮めて $d$ に戻す小さな全結合層の組（残差接続つき）を"
        "2 つずつ挟み、それだけを学習します。1 つあたり $2dm + d + m$ 個です。GLUE では、課題ごとに 3.6 % のパラメータを"
        "足すだけで、全体のファインチューニングとの差を 0.4 % 以内に収めました。挟んだ層の分だけ推論の計算が増えます。"
    )
    st.markdown(
        "**プレフィックスチューニング**（Li と Liang、2021 年）は、各層のキーとバリューの前に学習で決めるベクトル（仮想のトークン）を置き、"
        "重みは変えません（GPT-2 と BART で、全体の 0.1 % の学習で全体のファインチューニングに並びました）。"
        "**プロンプトチューニング**（Lester ら、2021 年）はその簡略版で、入力の埋め込みの前にだけ $n$ 個のベクトル"
        "（ソフトプロンプト、$n \\times d$ 個）を置きます。モデルが数十億パラメータを超えると、全体を学習する方法との差がほぼなくなりました。"
        "人が書く文の工夫（プロンプトエンジニアリング）とは違い、ベクトルを誤差逆伝播で学習します。"
    )


def explain_instruction() -> None:
    st.markdown(
        "事前学習しただけのモデルは文章の続きを書くのが得意なだけで、指示に従うとは限りません。"
        "さまざまな課題を「指示と応答」の形にしたデータでファインチューニングするのが **指示チューニング**"
        "（インストラクションチューニング）です。FLAN（Wei ら、2021 年）は 1,370 億パラメータのモデルを 60 以上の課題の指示文で学習し直し、"
        "学習していない種類の課題のゼロショットで、調べた 25 課題のうち 20 で GPT-3 を上回りました。"
    )
    st.markdown(
        "InstructGPT（Ouyang ら、2022 年）は GPT-3 を、手本による教師ありファインチューニングと RLHF で調整しました。"
        "人の評価では、13 億パラメータの InstructGPT の出力が 1,750 億パラメータの GPT-3 の出力より好まれました。"
        "**ChatGPT**（2022 年 11 月公開）は、GPT 系（デコーダだけ）のモデルをこの流れで対話向けに調整したものです。"
    )


def explain_rlhf() -> None:
    st.markdown(
        "出力を人の意図や価値観に沿って役に立ち、有害でないものにする調整を **アラインメント** と呼びます。"
        "代表が **RLHF**（人のフィードバックによる強化学習）で、次の 3 段階で進みます。\n\n"
        "1. **教師ありファインチューニング（SFT）**：人が書いた手本の応答で学習する。\n"
        "2. **報酬モデル**：同じ指示への 2 つの応答を人が比べた結果から、応答の良さを 1 つの数 $r$ で表すモデルを学習する。\n"
        "3. **強化学習**：報酬 $r$ が大きくなるように応答を生成するモデル（方策）を更新する（InstructGPT は PPO を使った）。"
        "元のモデル $\\pi_{\\text{ref}}$ から離れすぎないよう、KL ダイバージェンスを罰として差し引く。"
    )
    st.latex(r"\text{報酬モデルの損失} = -\log \sigma(r_w - r_l)")
    st.latex(r"\begin{aligned}&\max_\pi\; \mathbb{E}_{y \sim \pi}[r(y)] - \beta\, \mathrm{KL}(\pi \,\|\, \pi_{\text{ref}})"
             r" \\ &\Rightarrow\; \pi^*(y) \propto \pi_{\text{ref}}(y)\, e^{r(y)/\beta}\end{aligned}")
    st.markdown(
        "$r_w$ は人が選んだ応答、$r_l$ は選ばなかった応答の点数、$\\sigma$ はシグモイド関数です。点数を直接つけてもらうと人ごとに"
        "基準がばらつくので、比較から学びます。KL の罰つきの目的を最大にする方策は、元の確率に $e^{r/\\beta}$ を掛けて正規化した"
        "softmax の形になり、$\\beta$ が小さいほど報酬の高い答えに集中します（罰がないと報酬モデルの穴を突く答えに偏る）。"
    )


def explain_dpo() -> None:
    st.markdown(
        "**DPO**（Direct Preference Optimization、Rafailov ら、2023 年）は、上の最適解の形を逆に使い、報酬を "
        "$\\beta \\log(\\pi/\\pi_{\\text{ref}})$ で置き換えます。すると報酬モデルと同じ形の損失で、比較のデータから方策を直接学習でき、"
        "報酬モデルも強化学習もいりません（比較のデータは必要です）。"
    )
    st.latex(r"\begin{aligned}L = -\log\sigma\Big(&\beta \log\tfrac{\pi(y_w)}{\pi_{\text{ref}}(y_w)} \\"
             r" &- \beta \log\tfrac{\pi(y_l)}{\pi_{\text{ref}}(y_l)}\Big)\end{aligned}")
    st.markdown(
        "**Constitutional AI**（Bai ら、2022 年）は、有害さの判定に人のラベルを使わず、人は原則（constitution）の一覧だけを与えます。"
        "AI が自分の応答を原則に照らして批評・修正したもので学習し、さらに AI が 2 つの応答を比べた好みで強化学習します"
        "（AI のフィードバックによる強化学習、RLAIF）。比べるのが人なら RLHF、AI なら RLAIF です。"
    )


def explain_prompting() -> None:
    st.markdown(
        "**プロンプトエンジニアリング** は、重みを変えずに、指示の書き方・例の示し方・役割や出力の形式の指定などを工夫して、"
        "望む出力を得やすくすることです。zero-shot・few-shot・Chain-of-Thought も、その代表的な工夫です"
        f"（[{ui.PAGE_BY_KEY['llm'].label}]({ui.section_url('llm', 'aim')})）。決まった形の答えがほしいときは形式を具体的に書き、"
        "温度は低くします。重みは変わらないので、モデルの知らない事実は教えられません（それには RAG やファインチューニングを使う）。"
        "ベクトルを学習するプロンプトチューニングとは別物です。"
    )


def explain_rag() -> None:
    st.markdown(
        "**RAG**（Retrieval-Augmented Generation、検索拡張生成。Lewis ら、2020 年）は、質問に関係する文書を検索し、それを根拠に答えを"
        "生成させる方法です。元の論文は Wikipedia の検索器と生成器を一緒に学習しましたが、今の LLM では、質問と文書を埋め込みのベクトルにし、"
        "**コサイン類似度** の高い順に上位 $k$ 件をプロンプトに入れる使い方が多く、モデルの重みは変えません。"
    )
    st.latex(r"\cos(q, d) = \frac{q \cdot d}{\|q\|\,\|d\|}")
    st.markdown(
        "文書を差し替えるだけで新しい情報や社内の資料を使え、根拠を示せるので、ハルシネーション"
        f"（[{ui.PAGE_BY_KEY['llm'].label}]({ui.section_url('llm', 'aim')})）を減らす手段になります。"
        "ただし、文書を読み違えたり関係の薄い文書を拾ったりすれば誤りは残り、なくなりはしません。内積のままで比べると、"
        "長い文書ほど有利になります（手計算で確かめます）。"
    )


def explain_agents() -> None:
    st.markdown(
        "言語モデルに検索・計算・プログラムの実行などの **道具** を使わせ、結果を見ながら何段階も進めさせる仕組みを **エージェント** と呼びます。"
        "ReAct（Yao ら、2022 年）は、考え（推論）→ 行動（道具の呼び出し）→ 観察（道具の結果）をくり返す形の例をプロンプトに示すだけで、"
        "重みを学習せずに道具を使わせました。HotpotQA や FEVER では、簡単な Wikipedia の API を呼ぶことで、Chain-of-Thought だけの"
        "ときのハルシネーションや誤りの連鎖を減らしました。1 回検索して答える RAG と違い、結果を見て次の行動を決めます。"
        "操作を任せるほど、誤った行動の影響も大きくなります。"
    )


# ---------------------------------------------------------------------------
# 手計算
# ---------------------------------------------------------------------------
def hand() -> None:
    st.subheader("LoRA：学習するパラメータの数")
    hand_lora()
    st.subheader("LoRA の順伝播：最初は元のモデルと同じ")
    hand_forward()
    st.subheader("Adapter とプロンプトチューニングのパラメータ数")
    hand_peft()
    st.subheader("報酬モデルの損失を計算する")
    hand_reward()
    st.subheader("DPO：確率の比を報酬の代わりにする")
    hand_dpo()
    st.subheader("RAG：質問に近い文書を探す")
    hand_rag()


def hand_lora() -> None:
    c = adapt.lora_params(LORA_D, LORA_D, LORA_R)
    st.latex(rf"\begin{{aligned}}B &: {tcount(c.d)} \times {c.r} = {tcount(c.b)} \\ A &: {c.r} \times {tcount(c.k)} = {tcount(c.a)} \\"
             rf"r(d + k) &= {tcount(c.trainable)} \\ dk &= {tcount(c.frozen)}\end{{aligned}}")
    st.markdown(f"学習するのは行列全体の {numfmt.percent(c.share, 2)}（{numfmt.trimmed(c.ratio, 1)} 分の 1）です。"
                f"$r \\times d \\times k = {tcount(adapt.lora_params_rdk(LORA_D, LORA_D, LORA_R))}$ と数えるのは誤りで、"
                "学習するのは細長い $B$ と $A$ の 2 つだけです。")
    g3 = llm.gpt_param_count(GPT3["layers"], GPT3["d_model"], context=GPT3["context"])
    r4 = adapt.GPT3_LORA["r"]
    m = adapt.lora_model(GPT3["layers"], len(adapt.GPT3_LORA["matrices"]), GPT3["d_model"], GPT3["d_model"], r4, g3.total)
    st.markdown(f"LoRA の論文の例のように、GPT-3（{m.layers} 層、幅 {count(GPT3['d_model'])}）の各層の $W_Q$ と $W_V$ に "
                f"$r = {r4}$ の LoRA を付けると：")
    st.latex(rf"\begin{{aligned}}&{m.layers} \times 2 \times {r4} \times ({tcount(GPT3['d_model'])} + {tcount(GPT3['d_model'])}) \\"
             rf"&= {tcount(m.trainable)}\end{{aligned}}")
    st.markdown(f"全体の {count(m.total)} 個（⑩-1 で数えた GPT-3）のうち {numfmt.percent(m.share, 4)}、"
                f"約 {count(round(m.ratio))} 分の 1 です（論文の「約 1 万分の 1」）。")


def hand_forward() -> None:
    start = adapt.lora_forward(adapt.LORA_DEMO_W0, adapt.LORA_DEMO_A, ZERO_B, adapt.LORA_DEMO_X)
    st.markdown("$d = 2$、$k = 3$、$r = 1$ の小さな例です（LoRA の論文に合わせて $x$ は縦のベクトル、倍率 $\\alpha/r$ は 1）。"
                "学習の初めは $B = 0$ です。")
    c1, c2, c3 = st.columns(3)
    with c1:
        ui.show_matrix(start.w0, ["1", "2"], ["1", "2", "3"], digits=0, caption="凍結した W₀（2×3）")
    with c2:
        ui.show_matrix(start.a, ["1"], ["1", "2", "3"], digits=0, caption="A（1×3、乱数から）")
    with c3:
        ui.show_matrix(start.x[:, None], ["1", "2", "3"], ["x"], digits=0, caption="入力 x")
    st.latex(rf"\begin{{aligned}}W_0 x &= {tvec(start.base)},\quad Ax = {tvec(start.ax)} \\ B = 0 &\Rightarrow"
             rf" h = W_0 x + B(Ax) = {tvec(start.h)}\end{{aligned}}")
    f = adapt.lora_forward(adapt.LORA_DEMO_W0, adapt.LORA_DEMO_A, adapt.LORA_DEMO_B, adapt.LORA_DEMO_X)
    st.markdown(f"学習で $B$ が ${tvec(f.b[:, 0])}^\\top$ になったとすると：")
    st.latex(rf"\begin{{aligned}}B(Ax) &= {tvec(f.delta)} \\ h &= {tvec(f.base)} + {tvec(f.delta)} = {tvec(f.h)}\end{{aligned}}")
    ui.show_matrix(f.merged, ["1", "2"], ["1", "2", "3"], digits=0, caption="学習後にまとめた W₀ + BA")
    st.markdown(f"まとめた行列に $x$ を掛けても同じ {vec(f.merged @ f.x)} になるので、推論は 1 回の積で済みます。"
                f"この小さな例では $W_0$ の {f.w0.size} 個に対して LoRA は {adapt.lora_params(2, 3, 1).trainable} 個で、ほとんど減りません。"
                "$r(d + k) \\ll dk$ になるのは $d$ と $k$ が大きいときです。")


def hand_peft() -> None:
    total = pretrain.bert_param_count(BERT["layers"], BERT["d"], BERT["heads"]).total
    a = adapt.adapter_params(BERT["d"], ADAPTER_M, BERT["layers"])
    st.markdown(f"BERT-Base（幅 $d = {BERT['d']}$、{BERT['layers']} 層、全体 {count(total)} 個、⑨-1 で数えたもの）で比べます。")
    st.latex(rf"\begin{{aligned}}\text{{Adapter 1 つ}} &= 2 \times {BERT['d']} \times {ADAPTER_M} + {BERT['d']} + {ADAPTER_M} \\"
             rf"&= {tcount(a.per_adapter)} \\ \text{{全体}} &= {tcount(a.per_adapter)} \times 2 \times {a.layers} \\ &= {tcount(a.total)} \\"
             rf"\text{{プロンプト}} &= {PROMPT_N} \times {BERT['d']} = {tcount(adapt.prompt_tuning_params(PROMPT_N, BERT['d']))}"
             r"\end{aligned}")
    ui.cached_table(peft_frame, adapt.peft_table(BERT["d"], BERT["layers"], total, LORA_R, ADAPTER_M, PROMPT_N), hide_index=True)
    st.caption("プレフィックスチューニングは各層のキーとバリューの前に n 個ずつ置くので 2 × 層数 × n × d 個（学習の後に残す分）。"
               "どの方法も元のモデルの重みは凍結したままです。")


def hand_reward() -> None:
    (w, lo), *_ = REWARD_DEMO
    one = adapt.reward_pair_loss(w, lo)
    st.markdown(f"人が選んだ応答の点数が $r_w = {numfmt.trimmed(w, 1)}$、選ばなかった応答の点数が "
                f"$r_l = {numfmt.trimmed(lo, 1)}$ のとき（log は自然対数）：")
    st.latex(rf"\begin{{aligned}}r_w - r_l &= {numfmt.trimmed(float(one.margin), 2)} \\"
             rf"\sigma(r_w - r_l) &= \frac{{1}}{{1 + e^{{-{numfmt.trimmed(float(one.margin), 2)}}}}} = {numfmt.fixed(float(one.prob), 3)} \\"
             rf"-\log \sigma(r_w - r_l) &= {numfmt.fixed(float(one.loss), 3)}\end{{aligned}}")
    swapped = float(adapt.reward_loss_swapped(w, lo))
    st.markdown(f"2 つを取り違えて $-\\log\\sigma(r_l - r_w)$ とすると {numfmt.fixed(swapped, 3)} になり、人の好みと逆の向きに"
                "学習してしまいます。3 組の比較をまとめて学習するときは、各組の損失の平均を小さくします。")
    ws, ls = zip(*REWARD_DEMO)
    ui.cached_table(reward_frame, ws, ls, hide_index=True)
    st.markdown(f"平均の損失は **{numfmt.fixed(adapt.reward_pair_loss(ws, ls).mean, 3)}**。"
                "2 組目は選ばなかった応答の点数のほうが高いので、損失が大きくなっています。")


def hand_dpo() -> None:
    d = adapt.dpo_loss(**DPO_DEMO)
    p = DPO_DEMO
    st.markdown(f"選ばれた応答 $y_w$ と選ばれなかった応答 $y_l$ の対数確率が次の表のとき（$\\beta = {numfmt.trimmed(p['beta'], 1)}$）：")
    ui.show_table(pd.DataFrame({"応答": ["y_w（選ばれた）", "y_l（選ばれなかった）"],
                                "学習中のモデル log π": [numfmt.trimmed(p["logp_chosen"], 1), numfmt.trimmed(p["logp_rejected"], 1)],
                                "参照モデル log π_ref": [numfmt.trimmed(p["logp_ref_chosen"], 1),
                                                     numfmt.trimmed(p["logp_ref_rejected"], 1)]}), hide_index=True)
    st.latex(rf"\begin{{aligned}}\hat r_w &= {numfmt.trimmed(p['beta'], 1)} \times ({numfmt.trimmed(p['logp_chosen'], 1)} - "
             rf"({numfmt.trimmed(p['logp_ref_chosen'], 1)})) = {numfmt.trimmed(float(d.reward_chosen), 3)} \\"
             rf"\hat r_l &= {numfmt.trimmed(p['beta'], 1)} \times ({numfmt.trimmed(p['logp_rejected'], 1)} - "
             rf"({numfmt.trimmed(p['logp_ref_rejected'], 1)})) = {numfmt.trimmed(float(d.reward_rejected), 3)} \\"
             rf"L &= -\log\sigma({numfmt.trimmed(float(d.pair.margin), 3)}) = {numfmt.fixed(d.pair.mean, 3)}\end{{aligned}}")
    st.markdown("報酬モデルの損失と同じ式に、確率の比から作った「暗黙の報酬」を入れただけです。損失を小さくすると、"
                "選ばれた応答の確率が参照モデルより上がり、選ばれなかった応答の確率が下がります。")


def hand_rag() -> None:
    r = adapt.retrieve(adapt.RAG_DEMO_QUERY, DOC_VECTORS, adapt.RAG_DEMO_K)
    st.markdown(f"質問「{adapt.RAG_DEMO_QUESTION}」の埋め込みを $q = {tvec(r.query)}$ とします。数は順に"
                f"「{'」「'.join(adapt.RAG_AXES)}」の強さを表す手作りの例です。")
    ui.show_table(pd.DataFrame({"文書": DOC_NAMES, "d": [vec(v) for v in DOC_VECTORS],
                                "内容": [t for _, t, _ in adapt.RAG_DEMO_DOCS]}), hide_index=True)
    a = 0
    st.latex(rf"\begin{{aligned}}\cos(q, d_A) &= \frac{{{tvec(r.query)} \cdot {tvec(r.docs[a])}}}{{\|q\|\,\|d_A\|}} \\"
             rf"&= \frac{{{numfmt.trimmed(r.dots[a], 3)}}}{{{numfmt.trimmed(r.query_norm, 3)} \times {numfmt.trimmed(r.doc_norms[a], 3)}}}"
             rf" = {numfmt.fixed(r.cosine[a], 3)}\end{{aligned}}")
    ui.cached_table(retrieval_frame, r, hide_index=True)
    top = "・".join(DOC_NAMES[i] for i in r.top)
    dot_top = "・".join(DOC_NAMES[i] for i in adapt.top_by_dot(adapt.RAG_DEMO_QUERY, DOC_VECTORS, adapt.RAG_DEMO_K))
    st.markdown(f"上位 {adapt.RAG_DEMO_K} 件は文書 **{top}** です。内積のまま比べると {dot_top} になり、長い要約の文書 D が"
                "向きのずれにもかかわらず 1 位に来てしまいます。選んだ文書は次のようにプロンプトに入ります。")
    st.code(adapt.rag_prompt(adapt.RAG_DEMO_QUESTION, [adapt.RAG_DEMO_DOCS[i][1] for i in r.top]), language=None, wrap_lines=True)


# ---------------------------------------------------------------------------
# 可視化
# ---------------------------------------------------------------------------
def visual() -> None:
    st.subheader("ランク r と学習するパラメータの数")
    ranks, counts = adapt.lora_rank_curve(LORA_D, LORA_D, LORA_RANKS)
    full = adapt.lora_params(LORA_D, LORA_D, 1).frozen
    ui.cached_chart(ui.figures.lines_chart, "ランク r", "パラメータの数",
                    (("LoRA：r(d + k)", ranks, counts), ("全体を学習：dk", ranks, tuple(full for _ in ranks))),
                    title=f"{count(LORA_D)} × {count(LORA_D)} の行列 1 つ", y_format="~s", log=True, width="stretch")
    st.caption(f"両対数なので LoRA は傾き 1 の直線（r に比例）です。r = {LORA_RANKS[-1]} でも全体の "
               f"{numfmt.percent(adapt.lora_params(LORA_D, LORA_D, LORA_RANKS[-1]).share, 1)} です。")
    st.subheader("ΔW = BA はランク 1 の行列")
    f = adapt.lora_forward(adapt.LORA_DEMO_W0, adapt.LORA_DEMO_A, adapt.LORA_DEMO_B, adapt.LORA_DEMO_X)
    rows, cols = ["1", "2"], ["1", "2", "3"]
    ui.figures.side_by_side([(f.w0, rows, cols, "凍結した W₀"), (f.delta_w, rows, cols, "学習した ΔW = BA"),
                             (f.merged, rows, cols, "まとめた W₀ + BA")], digits=0, x_title="入力 k", y_title="出力 d", per_row=3)
    st.caption(f"ΔW の各行は A の行を B の成分倍したものです（1 行目は {numfmt.trimmed(f.b[0, 0])} 倍、2 行目は "
               f"{numfmt.trimmed(f.b[1, 0])} 倍）。r = 1 の更新は 1 つの向きしか持ちません。")
    st.subheader("KL の罰の強さ β と、調整後のモデル")
    st.markdown("元のモデルの確率と報酬モデルの点数が下の表のとき、$\\pi^* \\propto \\pi_{\\text{ref}} e^{r/\\beta}$ を β ごとに"
                "計算しました。β が小さいと報酬の穴を突く答えに集中し、大きいと元のモデルのままです。")
    ui.stepper("β（罰の強さ）", KL_BETAS, kl_panels(), value=0.5, key="adapt_beta", text=lambda b: numfmt.trimmed(b, 2))
    st.subheader("RAG：質問と文書の類似度")
    cos, dots = adapt.similarity_table([q for _, q in adapt.RAG_DEMO_QUERIES], DOC_VECTORS)
    questions = [f"質問 {i + 1}" for i in range(len(adapt.RAG_DEMO_QUERIES))]
    ui.heatmap(cos, questions, DOC_NAMES, x_title="文書", y_title="質問", title="コサイン類似度")
    ui.heatmap(dots, questions, DOC_NAMES, x_title="文書", y_title="質問", title="内積（長さで割らない）", digits=0)
    st.caption("質問 " + "、".join(f"{i + 1}「{q}」" for i, (q, _) in enumerate(adapt.RAG_DEMO_QUERIES)) + "。"
               "内積では長い文書 D がどの質問でも最大になりますが、コサイン類似度では質問ごとに近い文書が変わります。")


# ---------------------------------------------------------------------------
# 試してみよう
# ---------------------------------------------------------------------------
def try_it() -> None:
    st.subheader("LoRA で学習するパラメータを数える")
    try_lora()
    st.subheader("B と A を変えて LoRA の出力を計算する")
    try_forward()
    st.subheader("報酬モデルの損失")
    try_reward()
    st.subheader("質問のベクトルを変えて検索する")
    try_rag()


@st.fragment
def try_lora() -> None:
    """LoRA's counts as a fragment: d, k, r, L or the number of matrices rerun this part only."""
    cols = st.columns(2)
    spec = ((("d", "行数 d", 4096, 64), ("k", "列数 k", 4096, 64), ("r", "ランク r", 8, 1)),
            (("layers", "層数 L", 32, 1), ("matrices", "1 層の行列の数", 2, 1)))
    v = {}
    for column, part in zip(cols, spec):
        with column:
            for name, label, default, step in part:
                v[name] = int(ui.number_input(label, min_value=1, max_value=100_000, value=default, step=step,
                                              key=f"adapt_lora_{name}", persist_state="session"))
    c = ui.compute("adapt_lora", adapt.lora_params, v["d"], v["k"], v["r"])
    total = ui.compute("adapt_lora_total", adapt.lora_trainable, v["layers"], v["matrices"], v["d"], v["k"], v["r"])
    if c is not None and total is not None:
        c1, c2 = st.columns(2)
        c1.metric("1 行列で学習する数 r(d + k)", count(c.trainable))
        c2.metric("モデル全体で学習する数", count(total))
        st.caption(f"行列全体 d·k = {count(c.frozen)} の {numfmt.percent(c.share, 2)}（{numfmt.trimmed(c.ratio, 1)} 分の 1）。"
                   "r を 2 倍にすると学習する数も 2 倍です。")


@st.fragment
def try_forward() -> None:
    """LoRA's forward pass with the learner's B and A (W₀ and x fixed) as a fragment."""
    c1, c2 = st.columns(2)
    with c1:
        b = ui.matrix_editor(B_KEY, adapt.LORA_DEMO_B, ["1", "2"], ["1"], label="B（2×1）", reset_label="最初の値に戻す")
    with c2:
        a = ui.matrix_editor(A_KEY, adapt.LORA_DEMO_A, ["1"], ["1", "2", "3"], label="A（1×3）", reset_label="最初の値に戻す")
    f = ui.compute("adapt_forward", adapt.lora_forward, adapt.LORA_DEMO_W0, a, b, adapt.LORA_DEMO_X)
    if f is not None:
        st.latex(rf"\begin{{aligned}}W_0 x &= {tvec(f.base)},\quad B(Ax) = {tvec(f.delta)} \\ h &= {tvec(f.h)}\end{{aligned}}")
        ui.show_matrix(f.delta_w, ["1", "2"], ["1", "2", "3"], digits=ui.handcalc.auto_digits(f.delta_w),
                       caption="ΔW = BA（ランク 1）")
        st.caption("W₀ と x は手計算と同じです。B をすべて 0 にすると、h は W₀x に戻ります。")


@st.fragment
def try_reward() -> None:
    """The reward model's loss on one pair as a fragment."""
    c1, c2 = st.columns(2)
    with c1:
        w = ui.number_input("選んだ応答の点数 r_w", min_value=-20.0, max_value=20.0, value=2.0, step=0.5, key="adapt_rw",
                            persist_state="session")
    with c2:
        lo = ui.number_input("選ばなかった応答の点数 r_l", min_value=-20.0, max_value=20.0, value=0.5, step=0.5, key="adapt_rl",
                             persist_state="session")
    res = ui.compute("adapt_reward", adapt.reward_pair_loss, float(w), float(lo))
    if res is not None:
        c1, c2 = st.columns(2)
        c1.metric("σ(r_w − r_l)", numfmt.fixed(float(res.prob), 3))
        c2.metric("損失 −log σ(r_w − r_l)", numfmt.fixed(float(res.loss), 3))


@st.fragment
def try_rag() -> None:
    """RAG's retrieval with the learner's question vector and k as a fragment."""
    q = ui.matrix_editor(Q_KEY, np.array([adapt.RAG_DEMO_QUERY]), ["q"], list(adapt.RAG_AXES), label="質問のベクトル q",
                         reset_label="最初の値に戻す")[0]
    k = ui.number_input("取り出す件数 k", min_value=1, max_value=len(DOC_NAMES), value=adapt.RAG_DEMO_K, step=1,
                        key="adapt_rag_k", persist_state="session")
    r = ui.compute("adapt_rag", adapt.retrieve, q, DOC_VECTORS, int(k))
    if r is not None:
        ui.cached_table(retrieval_frame, r, hide_index=True)
        st.metric("プロンプトに入る文書", "・".join(DOC_NAMES[i] for i in r.top))
        with st.expander("組み立てたプロンプトを見る"):
            st.code(adapt.rag_prompt("（ここに質問の文）", [adapt.RAG_DEMO_DOCS[i][1] for i in r.top]),
                    language=None, wrap_lines=True)


ui.sections("adapt", [("aim", aim_and_explain), ("hand", hand), ("visual", visual), ("try", try_it)],
            after_quiz=lambda: ui.next_link("adapt"))
