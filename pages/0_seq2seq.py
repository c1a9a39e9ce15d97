"""⓪-2 Seq2Seq と Attention の誕生: the RNN encoder–decoder and its fixed-length bottleneck,
Bahdanau's additive attention by hand, dot-product attention for contrast, teacher forcing vs
the model's own output, LSTM/GRU gates, exploding gradients and clipping.
Around them the exam's names and history: one LSTM and one GRU step by hand and their parameter
counts, BPTT, soft vs hard and global vs local attention, exposure bias and scheduled sampling,
中間層・隠れ層, Elman, Jordan and bidirectional RNNs. Word vectors are ⓪-1's (pages/15_wordvec.py)."""
import numpy as np
import streamlit as st

import ui
from tutor import numfmt
from tutor import seq2seq as s2s
from tutor import seq2seq_rnn as rnn
from ui.latex import col, dot_terms, fmt, gate_lines, length, mat, matvec, products, row, text_row
from ui.validate import format_number

ui.page("seq2seq")

SRC = list(s2s.SRC_TOKENS)
HID = ["成分1", "成分2"]
# the editors of 試してみよう (H, s, W, U, v); 手計算 and 可視化 compute with what they hold
H_KEY, S_KEY, W_KEY, U_KEY, V_KEY = "seq2seq_h", "seq2seq_s", "seq2seq_w", "seq2seq_u", "seq2seq_v"
CELL_KEY = "seq2seq_cell"   # 試してみよう's x_t, h_{t-1}, c_{t-1}; 手計算's LSTM and GRU steps compute with them
CELL_ROWS = ["x_t", "h_{t-1}", "c_{t-1}"]
LONG = list(s2s.LONG_SRC)
LOCAL_M, LOCAL_P, LOCAL_D = 4, 5.6, 1   # local-m: p = t = 4 (「cat」 is the 4th word of "I saw a cat …"); local-p: p predicted


def aim_and_explain() -> None:
    ui.section("aim")
    st.markdown(
        "- Transformer の前に機械翻訳を担っていた **RNN の Seq2Seq**（エンコーダ・デコーダ）と、その弱点である"
        "**固定長ベクトルのボトルネック** を説明できる。\n"
        "- Bahdanau らの **加法注意**（$e_j = v^\\top \\tanh(W s + U h_j)$）を小さな例で手計算し、"
        "内積による注意と比べられる。\n"
        "- **教師強制**、LSTM・GRU のゲート、**勾配クリッピング** を、それぞれの用語を使って自分の言葉で説明できる。\n"
        "- **LSTM**（1997 年）と **GRU**（2014 年）の 1 ステップを 2 次元の例で手計算し、パラメータ数から LSTM が GRU より"
        "重い理由を説明できる。RNN を学習させる **BPTT** の意味を言える。\n"
        "- **ソフトな注意とハードな注意**、**グローバルな注意とローカルな注意**（Luong ら）、**露出バイアスとスケジュールド"
        "サンプリング**、**中間層・隠れ層**、**エルマン・ジョルダン・双方向 RNN** という呼び名を説明できる。\n"
        "- 語を RNN に入れるベクトル（one-hot・分散表現・word2vec）は、1 つ前の ⓪-1 で学びます。"
    )

    ui.section("explain")
    st.subheader("RNN のエンコーダ・デコーダと固定長のボトルネック")
    explain_bottleneck()
    st.subheader("試験での呼び名：中間層・隠れ層・隠れ状態")
    explain_hidden_layer()
    st.subheader("Attention の誕生：加法注意（Bahdanau ら、2014 年）")
    explain_additive()
    ui.folded_topics("RNN の時代の用語", TERMS, key="seq2seq")


def explain_bottleneck() -> None:
    """解説: RNN のエンコーダ・デコーダと固定長のボトルネック."""
    st.markdown(
        "**Seq2Seq** は、系列を別の系列に変換するモデルです（翻訳なら日本語の文 → 英語の文）。"
        "RNN 版では、**エンコーダ** が入力の語を 1 つずつ読みながら隠れ状態 $h_t$ を更新し、読み終えたときの"
        "最後の状態 $h_n$ を **文脈ベクトル** としてデコーダに渡します。**デコーダ** はそれを出発点に、"
        "訳語を 1 つずつ書き出します。"
    )
    st.latex(r"h_t = f(x_t,\ h_{t-1}),\qquad c = h_n")
    sizes = s2s.context_sizes(30, 256)
    st.markdown(
        "問題は、入力が何語あっても文脈ベクトルの大きさが変わらないことです。たとえば隠れ状態が 256 次元なら、"
        f"30 語の文もたった **{sizes['fixed']:,} 個** の数に押し込まれます。"
        f"エンコーダは途中の時刻にも状態を作っていて（30 語なら合わせて {sizes['attention']:,} 個の数）、"
        "それを捨ててしまうのが **ボトルネック** です。長い文ほど前半の情報が薄れ、訳の質が落ちます。"
    )


def explain_hidden_layer() -> None:
    """解説: 中間層・隠れ層 as the exam's words for the hidden state."""
    st.markdown(
        "このページで **隠れ状態** $h_t$ と呼んでいる値は、RNN の **中間層**（**隠れ層** とも言います）が時刻 $t$ に出す出力です。"
        "問題文で「中間層」「隠れ層」と書かれていたら、この隠れ状態のことだと読み替えてください。"
        "RNN の中間層は、その時刻の入力 $x_t$ と、1 つ前の時刻の **中間層自身の出力** $h_{t-1}$ の両方を受け取ります。"
        "この「自分の前の出力に戻るループ」が、RNN が語順と過去の情報を持てる理由です。"
    )
    st.latex(r"h_t = \tanh\left(W x_t + U h_{t-1} + b\right)")
    st.markdown(
        "**出力層** は $h_t$ から予測（次の語の確率など）を作る別の層で、**入力層**（埋め込み）は語をベクトルにする層です（⓪-1）。"
        "Seq2Seq の文脈ベクトルは、エンコーダの最後の時刻の中間層の出力 $h_n$ のことです。"
    )


def explain_additive() -> None:
    """解説: 加法注意（Bahdanau ら）と内積による注意."""
    st.markdown(
        "そこで、デコーダが 1 語書くたびに、エンコーダの **すべての時刻の状態** $h_1, \\dots, h_n$ を見直せるようにしたのが "
        "Attention です。デコーダの直前の状態 $s_{i-1}$ と各 $h_j$ の相性をスコア $e_{ij}$ にし、"
        "softmax で足して 1 になる重み $\\alpha_{ij}$ に直し、その割合で $h_j$ を混ぜて、その時刻専用の文脈ベクトル "
        "$c_i$ を作ります。スコアを tanh を挟んだ小さなネット（パラメータ $W, U, v$）で計算するので **加法注意** と呼ばれます。"
    )
    st.latex(r"e_{ij} = v^\top \tanh\left(W s_{i-1} + U h_j\right)")
    st.latex(r"\alpha_{ij} = \frac{\exp(e_{ij})}{\sum_k \exp(e_{ik})},\qquad c_i = \sum_j \alpha_{ij}\, h_j")
    st.markdown(
        "スコアを内積 $e_{ij} = s_{i-1} \\cdot h_j$ で済ませるのが **内積による注意** です。パラメータが要らず、"
        "行列の積でまとめて計算できます（$s$ と $h_j$ の長さは同じ必要があります）。"
        "Transformer の注意は、この内積を $\\sqrt{d_k}$ で割る形です（① 以降のページ）。"
        "Attention は RNN の「遠くの語の情報が届きにくい」「1 本のベクトルに詰め込む」という問題を和らげ、"
        "やがて RNN そのものをなくした Transformer につながりました。"
    )


def explain_rnn_kinds() -> None:
    """解説: エルマンネットワーク, ジョルダンネットワーク, 双方向 RNN."""
    st.markdown(
        "初期の RNN は、前の時刻の何を戻すかで呼び名が分かれます。**エルマンネットワーク**（Elman、1990 年）は **中間層の出力** を"
        "文脈層に写して次の時刻の中間層へ戻します（上の $h_t = f(x_t, h_{t-1})$ の形で、単純な RNN とも呼びます）。"
        "**ジョルダンネットワーク**（Jordan、1986 年）は **出力層の出力** を戻します。決め手は、戻すのが中間層か出力層かです。\n\n"
        "**双方向 RNN**（Schuster と Paliwal、1997 年）は、前から読む RNN と後ろから読む RNN の中間層の出力を時刻ごとにつなぎます。"
        "前後両方の文脈を使えるので、文全体が先にある課題（Bahdanau らのエンコーダ、ELMo）に向きますが、まだ書いていない語は"
        "読めないので、1 語ずつ生成するデコーダには使えません。試験では「後ろの文脈も使える」「生成には使えない」が決め手です。"
    )


def explain_attention_kinds() -> None:
    """解説: soft vs hard attention (Xu ら), global vs local attention (Luong ら)."""
    st.markdown(
        "ここまでの注意は、すべての位置に softmax の重みを配って状態を混ぜる **ソフトな注意** です。重みがなめらかに変わるので、"
        "誤差逆伝播でそのまま学習できます。これに対して **ハードな注意** は、重みを確率とみなして **1 か所だけを選び**、"
        "その状態をそのまま使います（Xu らが 2015 年の画像キャプション生成で両方を比べました）。選ぶ操作には勾配がないので、"
        "くじ引き（サンプリング）を使った強化学習風の方法で学習させる必要があります。"
    )
    st.markdown(
        "Luong らは 2015 年に、入力の **すべての位置** を見る **グローバルな注意** と、中心 $p_t$ の前後 $D$ 語の **窓の中だけ** を見る "
        "**ローカルな注意** を比べました。ローカルな注意には、出力の $t$ 語目は入力の $t$ 語目あたりと決め打ちする local-m"
        "（$p_t = t$）と、$p_t$ をデコーダの状態から予測し、窓の中の重みに中心からの距離で減るガウス分布を掛ける local-p があります。"
    )
    st.latex(r"\begin{aligned}a_t(s) &= \mathrm{align}(h_t, \bar h_s)\,\exp\left(-\frac{(s - p_t)^2}{2\sigma^2}\right) \\ "
             r"\sigma &= \frac{D}{2}\end{aligned}")
    st.markdown(
        "スコアの式は、内積 $h_t^\\top \\bar h_s$（dot）、間に行列をはさむ $h_t^\\top W \\bar h_s$（general）、Bahdanau と同じく tanh を挟む形"
        "（concat）などが試されました。また、Bahdanau らはデコーダの **直前の** 状態 $s_{i-1}$ でスコアを作りますが、"
        "Luong らは **その時刻の** 状態 $h_t$ を使います。ローカルな注意は、ハードな注意のように見る範囲を絞りながら、"
        "窓の中ではソフトに混ぜるので、誤差逆伝播で学習できます。"
    )


def explain_gates() -> None:
    """解説: LSTM と GRU のゲート."""
    st.markdown(
        "単純な RNN は、時刻をさかのぼるほど勾配が小さくなり（**勾配消失**）、遠い語との関係を学べません。"
        "**LSTM** は記憶用の **セル** を持ち、3 つのゲートで出入りを調節します。**忘却ゲート** はセルの記憶のうち何を消すか、"
        "**入力ゲート** は新しい情報をどれだけ書き込むか、**出力ゲート** はセルのどれだけを隠れ状態として外に出すかを決めます。"
        "**GRU** はこれを 2 つにまとめた簡略版で、**更新ゲート** が前の状態と新しい候補を混ぜる割合を、**リセットゲート** が"
        "候補を作るときに前の状態をどれだけ使うかを決めます（セルはありません）。どのゲートもシグモイド関数で 0〜1 の値をとり、"
        "掛け算で情報の通る量を決めます。"
    )


def explain_cells() -> None:
    """解説: the LSTM's history and formulas, the GRU's, and what makes the LSTM heavier."""
    st.markdown(
        "LSTM は 1997 年に Hochreiter と Schmidhuber が提案しました。中心にあるのは、誤差を弱めずに時間方向へ運ぶ記憶セル"
        "（**CEC**：Constant Error Carousel）で、最初の形のゲートは入力ゲートと出力ゲートでした。**忘却ゲート** は 1999〜2000 年に "
        "Gers らが加えたもので、いま LSTM と呼ぶのはふつう 3 つのゲートを持つこの形です。1 ステップの計算は次のとおりです"
        "（$\\sigma$ はシグモイド関数、$\\odot$ は成分ごとの積）。"
    )
    st.latex(r"\begin{aligned}f &= \sigma(W_f x_t + U_f h_{t-1} + b_f) \\ i &= \sigma(W_i x_t + U_i h_{t-1} + b_i) \\ "
             r"o &= \sigma(W_o x_t + U_o h_{t-1} + b_o)\end{aligned}")
    st.latex(r"\begin{aligned}g &= \tanh(W_g x_t + U_g h_{t-1} + b_g) \\ c_t &= f \odot c_{t-1} + i \odot g \\ "
             r"h_t &= o \odot \tanh(c_t)\end{aligned}")
    st.markdown(
        "セルの更新が掛け算の連鎖ではなく **足し算** なので、$f$ が 1 に近いあいだは記憶も勾配もほとんど弱まらずに運ばれます。"
        "**GRU**（Cho ら、2014 年）では、更新ゲート $z$ が「前の状態を残す割合」、$1 - z$ が「候補を取り入れる割合」で、"
        "$z$ 1 つが LSTM の忘却ゲートと入力ゲートの両方の役を受け持ちます（$z$ と $1 - z$ の役を逆に書く教科書もあります）。"
    )
    st.latex(r"\begin{aligned}z &= \sigma(W_z x_t + U_z h_{t-1} + b_z) \\ r &= \sigma(W_r x_t + U_r h_{t-1} + b_r)\end{aligned}")
    st.latex(r"\begin{aligned}\tilde h &= \tanh\left(W_h x_t + U_h (r \odot h_{t-1}) + b_h\right) \\ "
             r"h_t &= z \odot h_{t-1} + (1 - z) \odot \tilde h\end{aligned}")
    st.markdown(
        "パラメータは、変換の 1 組（$W$：$d_h \\times d_x$、$U$：$d_h \\times d_h$、$b$：$d_h$）が $d_h(d_h + d_x) + d_h$ 個です。"
        "LSTM は 4 組（ゲート 3 つ + 候補）、GRU は 3 組（ゲート 2 つ + 候補）なので、同じ大きさなら GRU は LSTM の 3/4 で済みます"
        "（「手計算」で数えます）。"
    )


def explain_bptt() -> None:
    """解説: BPTT and truncated BPTT."""
    st.markdown(
        "RNN の学習には **BPTT**（Backpropagation Through Time、通時的誤差逆伝播法）を使います。系列の長さの分だけ RNN を"
        "時間方向に展開すると、同じ重みを時刻の数だけ使い回す深いネットワークとみなせます。これに普通の誤差逆伝播法を当て、"
        "最後の時刻から最初の時刻へ向けて勾配を送ります。重みは全時刻で共有されているので、重みの勾配は各時刻で求めた勾配の **和** です。"
    )
    st.latex(r"\begin{aligned}\frac{\partial L}{\partial U} &= \sum_{t=1}^{T} \frac{\partial L}{\partial U^{(t)}}"
             r" \\ &\quad (U^{(t)}\text{：時刻 } t \text{ で使われた } U)\end{aligned}")
    st.markdown(
        "さかのぼるたびに同じ変換が掛かるので、勾配消失や勾配爆発が起こりやすくなります（次の節と「可視化」）。"
        "長い系列では、さかのぼる時刻の数を一定で打ち切る **truncated BPTT** で、計算とメモリを抑えます。"
    )


def explain_clipping() -> None:
    """解説: 勾配爆発と勾配クリッピング (after BPTT, under its own bold line)."""
    st.markdown("**勾配爆発と勾配クリッピング**")
    st.markdown(
        "逆に、時刻をさかのぼるたびに勾配が大きくなると **勾配爆発** が起き、1 回の更新でパラメータが大きく飛んでしまいます。"
        "素朴で効く対策が **ノルムによる勾配クリッピング** です。勾配ベクトル $g$ の長さ $\\|g\\|$ がしきい値 $c$ を超えたときだけ、"
        "向きはそのままで長さを $c$ に縮めます。"
    )
    st.latex(r"g \leftarrow g \cdot \min\left(1,\ \frac{c}{\|g\|}\right)")


def explain_teacher_forcing() -> None:
    """解説: 教師強制と露出バイアス."""
    st.markdown(
        "デコーダは前の時刻の語を入力にして次の語を予測します。学習のとき、その入力に **正解の前の語** を使うのが **教師強制** です。"
        "前の予測が外れても次の入力は正しいので、学習は安定して速く進みます。ところが推論のときには正解がなく、"
        "**自分が出した語** を次の入力にするしかありません。学習中に自分の誤りを入力として見たことがないので、"
        "一度間違えると誤りが後ろへ連鎖しがちです。この学習と推論のずれを **露出バイアス**（exposure bias）と呼びます。"
    )


def explain_scheduled_sampling() -> None:
    """解説: scheduled sampling (Bengio ら、2015 年), after teacher forcing under its own bold line."""
    st.markdown("**露出バイアスとスケジュールドサンプリング**")
    st.markdown(
        "露出バイアスを和らげる方法の 1 つが **スケジュールドサンプリング**（Bengio ら、2015 年）です。学習中のデコーダの各時刻で、"
        "確率 $\\varepsilon_i$ で正解の前の語を、残りの確率 $1 - \\varepsilon_i$ で自分が前の時刻に出した語を入力にします。"
        "$\\varepsilon_i$ は学習のステップ $i$ が進むにつれて 1 から下げていきます（線形・指数・逆シグモイドの 3 通りの下げ方が提案されました）。"
        "序盤は教師強制に近い形で安定して学び、終盤は推論時に近い形で、自分の誤りから立て直すことを学びます。"
    )
    st.latex(r"\begin{aligned}\varepsilon_i &= \max(\varepsilon_{\min},\ k - c\,i) \\ \varepsilon_i &= k^i \\ "
             r"\varepsilon_i &= \frac{k}{k + \exp(i / k)}\end{aligned}")


# 解説's second half, one tap each: the first section of ⓪ stays short on a phone (docs/performance.md)
TERMS = (("RNN の形：エルマン・ジョルダン・双方向 RNN", explain_rnn_kinds, "kinds_rnn"),
         ("注意のいろいろ：ソフトとハード、グローバルとローカル", explain_attention_kinds, "kinds"),
         ("LSTM と GRU のゲート", lambda: (explain_gates(), explain_cells()), "gates"),
         ("BPTT・勾配爆発と勾配クリッピング", lambda: (explain_bptt(), explain_clipping()), "bptt"),
         ("教師強制・露出バイアスとスケジュールドサンプリング", lambda: (explain_teacher_forcing(), explain_scheduled_sampling()),
          "forcing"))


def edited_attention():
    """試してみよう's H, s, W, U, v as last left (or the worked example) and their attention; None if refused."""
    h = ui.matrix_value(H_KEY, s2s.ENC_STATES)
    s = ui.matrix_value(S_KEY, s2s.DEC_STATE[None, :])[0]
    w, u = ui.matrix_value(W_KEY, s2s.W_DEC), ui.matrix_value(U_KEY, s2s.U_ENC)
    v = ui.matrix_value(V_KEY, s2s.V_ATT[None, :])[0]
    att = ui.compute("seq2seq_att", s2s.additive_attention, s, h, w, u, v)
    dot = ui.compute("seq2seq_dot", s2s.dot_attention, s, h)
    return None if att is None or dot is None else (h, s, w, u, v, att, dot)


def hand() -> None:
    st.subheader("加法注意のスコアと重み")
    hand_additive()
    cells = edited_cells()
    if cells is not None:
        st.subheader("LSTM の 1 ステップ（d = 2）")
        hand_lstm(*cells[:2])
        st.subheader("GRU の 1 ステップ（d = 2）")
        hand_gru(cells[0], cells[2])
    st.subheader("パラメータ数：LSTM が GRU より重い理由")
    hand_params()


def hand_additive() -> None:
    """手計算: additive attention of 試してみよう's H, s, W, U, v, step by step."""
    found = edited_attention()
    if found is None:
        return
    h, s, w, u, v, att, dot = found
    st.markdown(f"入力文を「{'・'.join(SRC)}」の 3 語とし、エンコーダの状態 $h_j$ とデコーダの状態 $s$ を 2 次元にします。"
                "値は手で追えるように選んだ仮のもので、本物のモデルではどれも学習と計算で決まります。"
                "「試してみよう」で書き換えると、この手計算も変わります。")
    c1, c2 = st.columns(2)
    with c1:
        ui.show_matrix(h, SRC, HID, digits=ui.handcalc.auto_digits(h), caption="エンコーダの状態 $H$（行 = $h_j$）")
    with c2:
        ui.show_matrix(s[None, :], ["s"], HID, digits=ui.handcalc.auto_digits(s[None, :]), caption="デコーダの状態 s")
    st.latex(f"W = {mat(w)},\\quad U = {mat(u)}")
    st.latex(f"v = {col(v)}")
    st.markdown("**手順 1　$W s$**：デコーダの状態を変換します（どの $j$ にも共通）。")
    st.latex(matvec("W", "s", w, s, att.ws))
    st.markdown("**手順 2　$U h_j$**：エンコーダの各状態を変換します。")
    st.latex(ui.handcalc.stack([matvec("U", f"h_{{{j + 1}}}", u, h[j], att.uh[j]) for j in range(len(SRC))]))
    st.markdown("**手順 3　足して tanh、$v$ との内積でスコア $e_j$**")
    for j in range(len(SRC)):
        st.latex(r"\begin{aligned}" + f"e_{{{j + 1}}} &= v^\\top \\tanh{col(att.pre[j])} = v^\\top {col(att.hidden[j])}"
                 + r" \\ &= " + dot_terms(v, att.hidden[j]) + f" \\\\ &\\approx {fmt(att.scores[j])}" + r"\end{aligned}")
    st.markdown("**手順 4　softmax で重み $\\alpha_j$、重み付き和で文脈ベクトル $c$**")
    st.latex(r"\begin{aligned}\alpha &= \mathrm{softmax}" + row(att.scores) + r" \\ &\approx " + row(att.weights)
             + r"\end{aligned}")
    st.latex(r"\begin{aligned}c &= " + r" \\ &\quad + ".join(f"{fmt(a)} \\times {row(hj)}" for a, hj in zip(att.weights, h))
             + r" \\ &\approx " + row(att.context) + r"\end{aligned}")
    st.caption("表示は小数第 4 位を四捨五入した値です（計算は丸めずに進めています）。")
    ui.show_table({"値": ["スコア e（加法注意）", "重み α（加法注意）", "スコア s·h（内積）", "重み α（内積）"],
                   **{tok: [fmt(att.scores[j]), fmt(att.weights[j]), fmt(dot.scores[j]), fmt(dot.weights[j])]
                      for j, tok in enumerate(SRC)}}, hide_index=True)
    st.markdown(
        f"加法注意の重みがいちばん大きいのは {'と'.join(f'**{SRC[j]}**' for j in att.tops)}（{fmt(att.weights[att.top])}{'、同じ重みで並んでいます' if len(att.tops) > 1 else ''}）です。"
        f"同じ $s$ と $h_j$ でも、内積による注意の文脈ベクトルは {text_row(dot.context)} になり、"
        f"Attention を使わない Seq2Seq が渡すのは最後の状態 $h_{{{len(SRC)}}}$ = "
        f"{text_row(s2s.fixed_context(h))} だけです。"
    )


def edited_cells():
    """試してみよう's x_t, h_{t-1}, c_{t-1} as last left (or the example), their LSTM and GRU steps; None if refused."""
    states = ui.matrix_value(CELL_KEY, rnn.CELL_STATES)
    lstm = ui.compute("seq2seq_lstm", rnn.lstm_step, states[0], states[1], states[2], rnn.LSTM_WEIGHTS)
    gru = ui.compute("seq2seq_gru", rnn.gru_step, states[0], states[1], rnn.GRU_WEIGHTS)
    return None if lstm is None or gru is None else (states, lstm, gru)


def hand_lstm(states, step) -> None:
    """手計算: one LSTM step (rnn.lstm_step) on 試してみよう's x_t, h_{t-1}, c_{t-1}."""
    x, h, c = states
    st.markdown("入力 $x_t$、前の隠れ状態 $h_{t-1}$、前のセル $c_{t-1}$ を 2 次元にし、ゲートごとの変換行列 $W, U$ は手で追える小さな整数、"
                "バイアス $b$ は 0 にしました（「試してみよう」で状態を書き換えると、この計算も変わります）。")
    st.latex(r"\begin{aligned}" + f"x_t &= {row(x)} \\\\ h_{{t-1}} &= {row(h)} \\\\ c_{{t-1}} &= {row(c)}" + r"\end{aligned}")
    with st.expander("ゲートごとの変換行列 W, U（b はすべて 0）"):
        st.latex(ui.handcalc.stack([f"W_{k} = {mat(rnn.LSTM_WEIGHTS[k][0])},\\quad U_{k} = {mat(rnn.LSTM_WEIGHTS[k][1])}"
                                    for k in rnn.LSTM_GATES]))
    st.markdown("**手順 1　ゲートと候補**：忘却 $f$・入力 $i$・出力 $o$ はシグモイド、候補 $g$ は tanh を通します。")
    for k in rnn.LSTM_GATES:
        st.latex(gate_lines(k, r"\tanh" if k == "g" else r"\sigma", step.gates[k], "h_{t-1}"))
    f, i, g, o = (step.gates[k].value for k in rnn.LSTM_GATES)
    st.markdown("**手順 2　セルの更新**：前のセルを $f$ の割合で残し、候補を $i$ の割合で書き足します（足し算）。")
    st.latex(r"\begin{aligned}c_t &= f \odot c_{t-1} + i \odot g \\ &= " + products(f, c) + r" \\ &\quad + " + products(i, g)
             + r" \\ &= " + row(step.keep) + " + " + row(step.write) + r" \\ &\approx " + row(step.c) + r"\end{aligned}")
    st.markdown("**手順 3　隠れ状態**：セルを tanh で −1〜1 に収め、出力ゲート $o$ の割合だけ外へ出します。")
    st.latex(r"\begin{aligned}h_t &= o \odot \tanh(c_t) \\ &= o \odot " + row(step.tanh_c) + r" \\ &= " + products(o, step.tanh_c)
             + r" \\ &\approx " + row(step.h) + r"\end{aligned}")
    st.caption("表示は小数第 4 位を四捨五入した値です（計算は丸めずに進めています）。")
    st.markdown(f"1 成分目では、前のセルの {fmt(c[0])} のうち {fmt(step.keep[0])} が残り（$f_1 \\approx {fmt(f[0])}$）、"
                f"候補から {fmt(step.write[0])} が書き足されて $c_t$ の 1 成分目は {fmt(step.c[0])} になりました。"
                "セルは足し算で更新されるので、忘却ゲートが 1 に近ければ記憶はほぼそのまま次の時刻へ運ばれます。")


def hand_gru(states, step) -> None:
    """手計算: one GRU step (rnn.gru_step) on the same x_t and h_{t-1}."""
    x, h, _c = states
    st.markdown("同じ $x_t$ と $h_{t-1}$ で GRU を 1 ステップ動かします（GRU にセルはないので $c_{t-1}$ は使いません）。")
    with st.expander("ゲートごとの変換行列 W, U（b はすべて 0）"):
        st.latex(ui.handcalc.stack([f"W_{k} = {mat(rnn.GRU_WEIGHTS[k][0])},\\quad U_{k} = {mat(rnn.GRU_WEIGHTS[k][1])}"
                                    for k in rnn.GRU_GATES]))
    st.markdown("**手順 1　更新ゲート $z$ とリセットゲート $r$**")
    st.latex(gate_lines("z", r"\sigma", step.gates["z"], "h_{t-1}"))
    st.latex(gate_lines("r", r"\sigma", step.gates["r"], "h_{t-1}"))
    st.markdown("**手順 2　候補 $\\tilde h$**：前の状態をリセットゲートの割合だけ使って候補を作ります。")
    st.latex(r"\begin{aligned}r \odot h_{t-1} &= " + products(step.gates["r"].value, h) + r" \\ &= " + row(step.reset_h)
             + r"\end{aligned}")
    cand = step.gates["h"]
    st.latex(r"\begin{aligned}\tilde h &= \tanh\left(W_h x_t + U_h (r \odot h_{t-1})\right) \\ &= \tanh\left(" + row(cand.wx)
             + " + " + row(cand.uh) + r"\right) \\ &= \tanh" + row(cand.pre) + r" \approx " + row(cand.value) + r"\end{aligned}")
    z = step.gates["z"].value
    st.markdown("**手順 3　混ぜる**：前の状態を $z$ の割合で残し、候補を $1 - z$ の割合で取り入れます。")
    st.latex(r"\begin{aligned}h_t &= z \odot h_{t-1} + (1 - z) \odot \tilde h \\ &= " + products(z, h) + r" \\ &\quad + "
             + products(1 - z, cand.value) + r" \\ &= " + row(step.keep) + " + " + row(step.take) + r" \\ &\approx "
             + row(step.h) + r"\end{aligned}")
    st.caption("$z$ が LSTM の忘却ゲート、$1 - z$ が入力ゲートの役をしています。表示は小数第 4 位を四捨五入した値です。")


def hand_params() -> None:
    """手計算: parameters of one layer (rnn.param_table) for the example and a typical size."""
    small, big = rnn.param_table(2, 2), rnn.param_table(256, 256)
    st.markdown("変換の 1 組は $W$（$d_h \\times d_x$）・$U$（$d_h \\times d_h$）・$b$（$d_h$）で、$d_h(d_h + d_x) + d_h$ 個の数です"
                "（バイアスは 1 組に 1 つと数えます）。上の例（$d_x = d_h = 2$）の LSTM なら次のとおりです。")
    st.latex(r"\begin{aligned}&4 \times \left(d_h(d_h + d_x) + d_h\right) \\ &= 4 \times (2 \times (2 + 2) + 2) = 4 \times "
             + f"{small['lstm']['per_block']} = {small['lstm']['total']}" + r"\end{aligned}")
    ui.show_table({"モデル": ["単純な RNN", "GRU", "LSTM"],
                   "変換の組": [f"{small[k]['blocks']} 組" for k in rnn.BLOCKS],
                   "d_x = d_h = 2": [numfmt.grouped(small[k]["total"]) for k in rnn.BLOCKS],
                   "d_x = d_h = 256": [numfmt.grouped(big[k]["total"]) for k in rnn.BLOCKS]}, hide_index=True)
    st.markdown(f"どの大きさでも GRU は LSTM の 3/4 です（{numfmt.grouped(big['gru']['total'])} / "
                f"{numfmt.grouped(big['lstm']['total'])}）。LSTM はゲートが 1 つ多く（忘却・入力・出力）、"
                "その分の $W, U, b$ を持つので重くなります。")


def visual() -> None:
    found = edited_attention()
    if found is not None:
        att, dot = found[-2:]
        st.markdown("デコーダの 1 時刻ぶんの重みを、加法注意と内積による注意で並べました。明るいマスほど、その語の状態を多く混ぜます。")
        ui.heatmap([att.weights, dot.weights], ["加法注意", "内積注意"], SRC, x_title="入力の語（エンコーダの状態 h_j）",
                   y_title="方式", title="デコーダの 1 時刻の重み α")
    st.subheader("勾配消失と勾配爆発を数で見る")
    vanishing_and_exploding()
    st.subheader("教師強制と、自分の出力を入れる生成")
    teacher_forcing_runs()
    st.subheader("スケジュールドサンプリングを動かす")
    scheduled_sampling_view()
    st.subheader("ソフトとハード、グローバルとローカルの重み")
    attention_kinds_view()


def scheduled_sampling_view() -> None:
    """可視化: ε_i of the three decays, and one pass of the same small decoder with ε = 1, 0.5, 0."""
    st.markdown("スケジュールドサンプリングで正解の語を入れる確率 $\\varepsilon_i$ を、3 通りの下げ方で計算しました"
                "（線形は k = 1, c = 0.0001, 下限 0.1、指数は k = 0.9997、逆シグモイドは k = 1000）。")
    steps = (0, 2000, 5000, 8000, 10000)
    names = {"linear": "線形", "exponential": "指数", "inverse_sigmoid": "逆シグモイド"}
    ui.show_table({"下げ方": [names[k] for k in rnn.SCHEDULES],
                   **{f"i = {numfmt.grouped(i)}": [fmt(rnn.teacher_probability(i, k, *rnn.SCHEDULE_EXAMPLE[k]))
                                                   for k in rnn.SCHEDULES] for i in steps}}, hide_index=True)
    st.markdown("上の「教師強制と、自分の出力を入れる生成」と同じ小さなデコーダに、確率 ε で正解を、1 − ε で自分の前の予測を"
                "入れて 1 回動かしました（どちらを入れるかは乱数のくじで決まります）。")
    runs = {p: rnn.scheduled_decode(s2s.TF_LOGITS, s2s.TF_VOCAB, s2s.TF_TARGET, p,
                                    np.random.default_rng(rnn.SAMPLING_SEED)) for p in (1.0, 0.5, 0.0)}
    ui.show_table({"ε": [fmt(p) for p in runs],
                   "入力の出どころ（時刻 2〜6）": ["・".join("正解" if t else "自分" for t in r.from_truth[1:]) for r in runs.values()],
                   "入れた語（時刻 1〜6）": ["・".join(r.run.inputs) for r in runs.values()],
                   "正解数": [f"{r.run.n_correct} / {len(s2s.TF_TARGET)}" for r in runs.values()]}, hide_index=True)
    st.caption("ε = 1 は教師強制、ε = 0 は推論時と同じ入れ方です。その間の ε で学習すると、モデルは自分の誤りが入力に"
               "混じる状況にも出会い、そこから立て直す練習ができます（この表のモデルは学習させていないので、正解数は入れ方だけで決まります）。")


def attention_kinds_view() -> None:
    """可視化: soft (global), hard (one draw), local-m and local-p weights over an 8-word source."""
    soft = s2s.dot_attention(s2s.LONG_QUERY, s2s.LONG_STATES)                 # global, soft
    j, hard = s2s.hard_attention(s2s.LONG_STATES, soft.scores, np.random.default_rng(rnn.SAMPLING_SEED))
    local_m = s2s.local_attention(s2s.LONG_QUERY, s2s.LONG_STATES, LOCAL_M, LOCAL_D, gaussian=False)
    local_p = s2s.local_attention(s2s.LONG_QUERY, s2s.LONG_STATES, LOCAL_P, LOCAL_D)
    st.markdown(f"入力「{' '.join(LONG)}」（8 語）を英語の “I saw a cat at the station yesterday” に訳す途中で、デコーダが "
                "4 語目の cat を書く時刻の重みを、4 つの方式で並べました（スコアはどれも内積）。")
    ui.heatmap(np.column_stack([soft.weights, hard, local_m.weights, local_p.weights]), LONG,
               ["ソフト", "ハード", "local-m", "local-p"], x_title="方式", y_title="入力の語",
               title=f"重み（窓の半幅 D = {LOCAL_D}）")
    st.caption(f"列は左から、ソフト（グローバル）、ハード（くじ 1 回）、ローカル local-m（p = {LOCAL_M}）、"
               f"ローカル local-p（p = {format_number(LOCAL_P, 1)}）の重みです（1 列 = 1 つの方式、各列の合計が 1）。")
    st.markdown(
        f"ソフトな注意は 8 語すべてに重みを配り、いちばん大きいのは **猫**（{fmt(soft.weights[5])}）です。ハードな注意はその重みを"
        f"確率としてくじを引き、今回は **{LONG[j]}** の 1 語だけを選びました（引き直すと変わり、重みの小さい語が出ることもあります）。"
        f"local-m は $p = t = {LOCAL_M}$ と"
        f"決め打ちするので、語順の違う日本語では窓が「{'・'.join(t for t, w in zip(LONG, local_m.window) if w)}」に来てしまい、"
        f"猫 の重みは {fmt(local_m.weights[5])} です。位置を予測する local-p（$p = {format_number(LOCAL_P, 1)}$）は窓が猫にかかり、"
        f"猫 に {fmt(local_p.weights[5])} を配ります（ガウス分布を掛けた後は和を 1 に戻さないので、重みの和は "
        f"{fmt(local_p.weights.sum())} です）。"
    )


def vanishing_and_exploding() -> None:
    """可視化: the length a^t of a gradient sent t steps back through W = aI."""
    st.markdown("時刻を 1 つさかのぼるたびに、勾配に再帰の変換 $W^\\top$ が掛かります。ここでは $W = aI$ の線形な RNN で、"
                "長さ 1 の勾配が $t$ 段さかのぼったときの長さ $\\|g_t\\| = a^t$ を計算しました（tanh を挟むと、さらに小さくなる向きに働きます）。")
    depths = (0, 5, 10, 20)
    back = {a: s2s.scaled_recurrence_norms(a, max(depths)) for a in (0.5, 1.0, 1.5)}
    ui.show_table({"a": [format_number(a, 1) for a in back],
                   **{f"t = {d}": [length(n[d]) for n in back.values()] for d in depths}}, hide_index=True)
    st.caption(f"a = 0.5 では 20 段で {length(back[0.5][20])} まで縮み（勾配消失）、a = 1.5 では {length(back[1.5][20])} まで"
               "膨らみます（勾配爆発）。爆発した勾配も、ノルムによるクリッピングなら向きを保ったまま長さ c に収まります。")


def teacher_forcing_runs() -> None:
    """可視化: one small decoder run with teacher forcing and with its own output."""
    teacher, free = s2s.exposure_gap(s2s.TF_LOGITS, s2s.TF_VOCAB, s2s.TF_TARGET)
    st.markdown(
        "前の語だけを見て次の語を当てる小さなデコーダ（2 語の組の表で予測する）を用意しました。正解の文は「"
        + " ".join(s2s.TF_TARGET) + "」です。このモデルは「は」の次を少しだけ間違えて覚えていて、「魚」より「猫」を選びます。"
        "同じモデルを、入力の与え方だけを変えて動かします。"
    )
    tab_t, tab_f = st.tabs(["教師強制（学習時）", "自分の出力を入れる（推論時）"])
    for tab, run in ((tab_t, teacher), (tab_f, free)):
        with tab:
            ui.show_table({"時刻": [str(t + 1) for t in range(len(s2s.TF_TARGET))], "入力": list(run.inputs),
                           "予測": list(run.predictions), "正解": list(s2s.TF_TARGET),
                           "正誤": ["○" if ok else "×" for ok in run.correct]}, hide_index=True)
    t1, t2 = st.columns(2)
    t1.metric("教師強制での正解数", f"{teacher.n_correct} / {len(s2s.TF_TARGET)}")
    t2.metric("自分の出力を入れたときの正解数", f"{free.n_correct} / {len(s2s.TF_TARGET)}")
    st.markdown(
        f"教師強制では、時刻 3 で間違えても時刻 4 の入力は正解の「{teacher.inputs[3]}」なので、誤りは 1 か所で止まります。"
        f"自分の出力を入れると、時刻 3 の誤り「{free.predictions[2]}」が次の入力になり、そこから"
        "「猫 → は → 猫 …」のくり返しに入って、残りがすべて外れます。学習中の正解数だけを見ていると、"
        "推論時のこの弱さ（露出バイアス）に気づけません。"
        f"教師強制のもとでの平均の交差エントロピー損失は {fmt(teacher.loss)} です。"
    )


def try_it() -> None:
    """Five fragments: an edit reruns only its own part."""
    for part in (try_attention, try_gradients, try_cells, try_params, try_local):
        part()


@st.fragment
def try_attention() -> None:
    """The editors of H, s, W, U and v and the weights they give, as a fragment: an edit reruns this part only."""
    st.markdown("エンコーダの状態 $H$（1 行が 1 語の $h_j$）やデコーダの状態 $s$ を書き換えると、手計算・ヒートマップ・"
                "内積による注意との比較がすべて計算し直されます（「手計算」「可視化」を開くと、書き換えた値で計算されています）。"
                "たとえば「食べた」の行を $s$ に近づけると、重みはどこへ移るでしょうか。")
    h = ui.matrix_editor(H_KEY, s2s.ENC_STATES, SRC, HID, label="エンコーダの状態 H（1 行 = 1 語）")
    s = ui.matrix_editor(S_KEY, s2s.DEC_STATE[None, :], ["s"], HID, label="デコーダの直前の状態 s")[0]
    with st.expander("パラメータ W, U, v も変える"):
        c1, c2 = st.columns(2)
        with c1:
            w = ui.matrix_editor(W_KEY, s2s.W_DEC, ["1", "2"], HID, label="$W$（$d_a \\times d_s$）")
        with c2:
            u = ui.matrix_editor(U_KEY, s2s.U_ENC, ["1", "2"], HID, label="$U$（$d_a \\times d_h$）")
        v = ui.matrix_editor(V_KEY, s2s.V_ATT[None, :], ["v"], ["1", "2"], label="$v$（長さ $d_a$）")[0]
    att = ui.compute("seq2seq_att", s2s.additive_attention, s, h, w, u, v)
    if att is not None and ui.compute("seq2seq_dot", s2s.dot_attention, s, h) is not None:
        for column, j in zip(st.columns(3), range(len(SRC))):
            column.metric(f"{SRC[j]} への重み α", fmt(att.weights[j]))


@st.fragment
def try_gradients() -> None:
    """勾配クリッピング as a fragment: g or c reruns this part and the one below it (clipping with this c)."""
    st.markdown("**勾配クリッピング**：勾配 $g$ としきい値 $c$ を変えてみましょう。")
    g = ui.matrix_editor("seq2seq_g", s2s.CLIP_GRAD[None, :], ["g"], ["1", "2"], label="勾配 g")[0]
    c = ui.number_input("しきい値 c", min_value=0.001, max_value=1_000_000.0, value=float(s2s.CLIP_THRESHOLD),
                        step=0.5, key="seq2seq_c", persist_state="session")
    clip = ui.compute("seq2seq_clip", s2s.clip_by_norm, g, c)
    by_value = ui.compute("seq2seq_clip_value", s2s.clip_by_value, g, c)
    if clip is not None and by_value is not None:
        k1, k2, k3 = st.columns(3)
        k1.metric("‖g‖", fmt(clip.norm))
        k2.metric("倍率 min(1, c/‖g‖)", fmt(clip.factor))
        k3.metric("クリップ後の g", text_row(clip.clipped))
        st.latex(r"\|g\| = " + fmt(clip.norm) + r",\quad g \cdot " + fmt(clip.factor) + " = " + row(clip.clipped))
        st.caption(("‖g‖ がしきい値を超えたので、向きを保ったまま長さを c に縮めました。"
                    if clip.was_clipped else "‖g‖ がしきい値以下なので、勾配はそのままです。")
                   + f"成分ごとに [−c, c] に切る方法（値によるクリッピング）だと {text_row(by_value)} になり、"
                   "向きが変わることがあります。")

    try_recurrence(c)


@st.fragment
def try_recurrence(c: float) -> None:
    """勾配の爆発と消失, a fragment inside try_gradients: a reruns this part only (a new c reruns both)."""
    st.markdown("**勾配の爆発と消失**：再帰の変換の大きさ $a$ を変えて、さかのぼった勾配の長さを見てみましょう。")
    a_rec = st.slider("再帰の変換の大きさ a（W = aI）", min_value=0.1, max_value=2.0, value=1.2, step=0.1,
                      key="seq2seq_a", persist_state="session")
    norms = ui.compute("seq2seq_norms", s2s.scaled_recurrence_norms, a_rec, 30)
    clip_back = ui.compute("seq2seq_clip_back", s2s.clip_by_norm, [norms[-1], 0.0], c) if norms is not None else None
    if norms is not None and clip_back is not None:
        r1, r2 = st.columns(2)
        r1.metric("30 段さかのぼった勾配の長さ", length(norms[-1]))
        r2.metric("上のしきい値 c でクリップした長さ", length(clip_back.clipped_norm))


@st.fragment
def try_cells() -> None:
    """LSTM and GRU steps as a fragment: an edit of x_t, h_{t-1}, c_{t-1} reruns this part only
    (手計算 computes with the same values when it is opened next)."""
    st.markdown("**LSTM と GRU の 1 ステップ**：入力 $x_t$・前の隠れ状態 $h_{t-1}$・前のセル $c_{t-1}$ を書き換えると、"
                "「手計算」の LSTM と GRU の計算もこの値で計算し直されます。たとえば $c_{t-1}$ を大きくすると、"
                "$c_t$ と $h_t$ はどう変わるでしょうか（$h_t$ は tanh と出力ゲートのおかげで −1〜1 に収まります）。")
    ui.matrix_editor(CELL_KEY, rnn.CELL_STATES, CELL_ROWS, HID, label="状態（1 行目 $x_t$、2 行目 $h_{t-1}$、3 行目 $c_{t-1}$）")
    cells = edited_cells()                 # the engine on what the editor now holds
    if cells is None:
        return
    _states, lstm, gru = cells
    m1, m2, m3 = st.columns(3)
    m1.metric("LSTM のセル c_t", text_row(lstm.c))
    m2.metric("LSTM の隠れ状態 h_t", text_row(lstm.h))
    m3.metric("GRU の隠れ状態 h_t", text_row(gru.h))


@st.fragment
def try_params() -> None:
    """Parameter counts as a fragment: d_x or d_h reruns this part only."""
    st.markdown("**パラメータ数**：入力の次元 $d_x$ と隠れ状態（中間層）の次元 $d_h$ を変えて、1 層のパラメータ数を比べましょう。")
    c1, c2 = st.columns(2)
    with c1:
        d_x = ui.number_input("入力の次元 d_x", min_value=1, max_value=100_000, value=256, step=1, key="seq2seq_dx",
                              persist_state="session")
    with c2:
        d_h = ui.number_input("隠れ状態の次元 d_h", min_value=1, max_value=100_000, value=256, step=1, key="seq2seq_dh",
                              persist_state="session")
    table = ui.compute("seq2seq_params", rnn.param_table, d_x, d_h)
    if table is None:
        return
    k1, k2, k3 = st.columns(3)
    k1.metric("単純な RNN（1 組）", numfmt.grouped(table["rnn"]["total"]))
    k2.metric("GRU（3 組）", numfmt.grouped(table["gru"]["total"]))
    k3.metric("LSTM（4 組）", numfmt.grouped(table["lstm"]["total"]))
    st.caption(f"1 組 = $d_h(d_h + d_x) + d_h$ = {numfmt.grouped(table['rnn']['per_block'])} 個。LSTM は GRU より"
               "ちょうど 1 組分（忘却・入力・出力の 3 ゲートと候補で 4 組、GRU は 2 ゲートと候補で 3 組）多くなります。")


@st.fragment
def try_local() -> None:
    """Local attention as a fragment: the centre p and the half-width D rerun this part only."""
    st.markdown("**ローカルな注意の窓**：中心 $p$ と窓の半幅 $D$ を動かして、local-p の重みがどこに集まるかを見ましょう"
                "（「可視化」と同じ 8 語、同じスコア）。")
    p = st.slider("中心の位置 p", min_value=1.0, max_value=8.0, value=LOCAL_P, step=0.1, key="seq2seq_p",
                  persist_state="session")
    d = st.slider("窓の半幅 D", min_value=1, max_value=4, value=LOCAL_D, step=1, key="seq2seq_d", persist_state="session")
    res = ui.compute("seq2seq_local", s2s.local_attention, s2s.LONG_QUERY, s2s.LONG_STATES, p, d)
    if res is None:
        return
    ui.show_table({"項目": ["窓の中", "窓の中の softmax", "ガウス分布を掛けた重み"],
                   **{f"{j + 1} {t}": ["○" if res.window[j] else "", fmt(res.align[j]), fmt(res.weights[j])]
                      for j, t in enumerate(LONG)}}, hide_index=True)
    st.caption(f"重みの和は {fmt(res.weights.sum())}、文脈ベクトルは {text_row(res.context)} です。"
               "窓の外の語は、スコアがどれだけ大きくても重み 0 です。")


ui.sections("seq2seq", [("aim", aim_and_explain), ("hand", hand), ("visual", visual), ("try", try_it)],
            after_quiz=lambda: ui.next_link("seq2seq"))
