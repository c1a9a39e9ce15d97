"""⑨-1 BERT・GPT・ViT: ViT's token count and patch length, MLM's [MASK] count, a head's d_k,
the weights of L encoder layers, and a 不適切 item about a ViT configuration.

Answers: tutor.pretrain (vit_tokens, vit_patch_dim, mlm_expected_counts, bert_head_dim,
encoder_weights); every distractor is one of the named mistakes next to those formulas
(vit_tokens_without_class, vit_tokens_hw_over_p, vit_tokens_sides_added, vit_patch_dim_p_not_p2,
vit_patch_dim_no_channels, mlm_counts_all_mask, mlm_counts_of_whole_sequence,
mlm_counts_changed_as_mask, bert_head_dim_unsplit, bert_head_dim_multiplied,
encoder_weights_no_ffn, encoder_weights_square_ffn, encoder_weights_per_head,
encoder_weights_one_layer).
"""
from __future__ import annotations

import numpy as np

from tutor import pretrain as pt

from .calc import BEST, WORST, calc_generator, mc, num, pick, tnum
from .core import Draft

IMAGES = ((224, 224), (384, 384), (256, 256), (192, 192), (320, 320), (448, 448), (224, 448), (256, 384))
PATCHES = (8, 14, 16, 32)
MLM_NS = tuple(range(200, 6001, 200))  # 0.15 n and 0.12 n stay whole numbers
WIDTHS = (256, 384, 512, 768, 1024, 1536, 2048)
HEADS = (4, 6, 8, 12, 16, 32)
LAYERS = (2, 4, 6, 8, 12, 24)
ENC_WIDTHS = (128, 256, 512, 768, 1024)
ENC_HEADS = (2, 4, 8, 12, 16)


def _params_image(rng: np.random.Generator) -> dict:
    h, w = pick(rng, IMAGES)
    p = pick(rng, [x for x in PATCHES if h % x == 0 and w % x == 0])
    return {"h": h, "w": w, "p": p}


def _size(h: int, w: int) -> str:
    return f"高さ ${h}$・幅 ${w}$ 画素"


# ---------------------------------------------------------------------------
@calc_generator("pretrain.vit_tokens", "pretrain", _params_image)
def _vit_tokens(p: dict) -> Draft:
    """(H/P)(W/P) + 1 tokens."""
    h, w, size = p["h"], p["w"], p["p"]
    g = pt.vit_patch_grid(h, w, size)
    no_cls = pt.vit_tokens_without_class(h, w, size)
    hw_p = pt.vit_tokens_hw_over_p(h, w, size)
    sides = pt.vit_tokens_sides_added(h, w, size)
    stem = (f"Vision Transformer で、{_size(h, w)}のカラー画像を ${size} \\times {size}$ のパッチに重なりなく分け、"
            f"各パッチを 1 トークンとし、先頭にクラストークンを 1 つ加えてエンコーダに入れる。"
            f"エンコーダに入るトークンの数{BEST}")
    wrong = (
        (num(no_cls), mc("クラストークンの数え忘れ", f"パッチの数 $({h}/{size})({w}/{size}) = {tnum(no_cls)}$ だけを数え、"
                                                 "先頭に加える分類用のトークンを足さなかった。")),
        (num(hw_p), mc("P² ではなく P で割った", f"画素数 ${h} \\times {w}$ をパッチ 1 辺の ${size}$ で割ってしまった。"
                                             f"パッチ 1 つは ${size} \\times {size}$ 画素なので $P^2$ で割る。")),
        (num(sides), mc("縦と横の足し算", f"縦のパッチ数 {g.rows} と横のパッチ数 {g.cols} を掛けずに足した。"
                                       "パッチは格子状に並ぶので、数は縦 × 横になる。")),
    )
    expl = (f"縦に ${h}/{size} = {g.rows}$ 個、横に ${w}/{size} = {g.cols}$ 個のパッチが並ぶので、パッチは "
            f"${g.rows} \\times {g.cols} = {tnum(g.patches)}$ 個。クラストークンを 1 つ足して ${tnum(g.tokens)}$ トークン。"
            "ViT-B/16 に 224×224 の画像を入れると 197 トークンになる。")
    return Draft(stem, num(g.tokens), wrong, expl)


# ---------------------------------------------------------------------------
@calc_generator("pretrain.patch_dim", "pretrain", _params_image)
def _patch_dim(p: dict) -> Draft:
    """Length of one flattened patch: P² · C."""
    h, w, size = p["h"], p["w"], p["p"]
    right = pt.vit_patch_dim(size, 3)
    one_side = pt.vit_patch_dim_p_not_p2(size, 3)
    grey = pt.vit_patch_dim_no_channels(size, 3)
    count = pt.vit_tokens_without_class(h, w, size)
    stem = (f"Vision Transformer で、{_size(h, w)}の RGB 画像（3 チャンネル）を ${size} \\times {size}$ のパッチに分け、"
            f"各パッチの画素値をすべて 1 列に並べてから線形層で射影する。射影する前の、パッチ 1 つのベクトルの長さ{BEST}")
    wrong = (
        (num(one_side), mc("P² ではなく P を使った", f"パッチの 1 辺の ${size}$ 画素にチャンネル数 3 を掛けただけで、"
                                               f"${size} \\times {size}$ 画素の面積を考えなかった。")),
        (num(grey), mc("チャンネルの数え忘れ", f"${size} \\times {size}$ 画素は数えたが、各画素が R・G・B の 3 つの値を持つことを"
                                         "忘れた。")),
        (num(count), mc("パッチの長さと個数の取り違え", f"1 つのパッチの長さではなく、画像から取れるパッチの個数 "
                                               f"$({h}/{size})({w}/{size})$ を答えた。")),
    )
    expl = (f"パッチ 1 つは ${size} \\times {size}$ 画素で、各画素に 3 つの値があるので "
            f"$P^2 C = {size}^2 \\times 3 = {tnum(right)}$。これを射影行列で D 次元のトークンに変える"
            "（ViT-B/16 では 768 から 768 次元へ）。")
    return Draft(stem, num(right), wrong, expl)


# ---------------------------------------------------------------------------
def _params_mlm(rng: np.random.Generator) -> dict:
    return {"n": pick(rng, MLM_NS)}


@calc_generator("pretrain.mlm_mask", "pretrain", _params_mlm)
def _mlm_mask(p: dict) -> Draft:
    """Expected number of [MASK] tokens: 0.8 · 0.15 n."""
    n = p["n"]
    right = pt.mlm_expected_counts(n)
    all_mask = pt.mlm_counts_all_mask(n).mask
    whole = pt.mlm_counts_of_whole_sequence(n).mask
    changed = pt.mlm_counts_changed_as_mask(n).mask
    stem = (f"BERT のマスク言語モデル（MLM）と同じ規則で、特殊トークンを除いた ${tnum(n)}$ 個のトークンからなる入力を作る"
            f"（予測の対象に 15 % を選び、そのうち 80 % を [MASK]、10 % をランダムな語に置き換え、10 % はそのまま残す）。"
            f"[MASK] に置き換わるトークンの数の期待値{BEST}")
    wrong = (
        (num(all_mask), mc("15 % をすべて [MASK] にすると誤解", f"選んだ {num(right.chosen)} 個を全部 [MASK] にすると考え、"
                                                          "80 / 10 / 10 の内訳を忘れた。")),
        (num(whole), mc("80 % を系列全体に掛けた", f"80 % を、選ばれた 15 % ではなく全 ${tnum(n)}$ 個に掛けてしまった。")),
        (num(changed), mc("ランダムな語への置換も [MASK] に数えた", f"入力が変わる 90 %（[MASK] の 80 % とランダムな語の 10 %）を"
                                                          f"まとめて [MASK] と数え、{num(right.chosen)} × 0.9 とした。")),
    )
    expl = (f"予測の対象は ${tnum(n)} \\times 0.15 = {tnum(right.chosen)}$ 個。そのうち 80 % が [MASK] なので "
            f"${tnum(right.chosen)} \\times 0.8 = {tnum(right.mask)}$ 個。残りはランダムな語が {num(right.random)} 個、"
            f"そのままが {num(right.keep)} 個で、どちらも元の語を予測させる。")
    return Draft(stem, num(right.mask), wrong, expl)


# ---------------------------------------------------------------------------
def _params_heads(rng: np.random.Generator) -> dict:
    h = pick(rng, WIDTHS)
    a = pick(rng, [x for x in HEADS if h % x == 0 and h // x >= 8])
    return {"h": h, "a": a}


@calc_generator("pretrain.head_dim", "pretrain", _params_heads)
def _head_dim(p: dict) -> Draft:
    """d_k = H / A."""
    h, a = p["h"], p["a"]
    d_k = pt.bert_head_dim(h, a)
    stem = (f"BERT と同じ形のエンコーダで、隠れ層の幅が $H = {tnum(h)}$、Multi-Head Attention のヘッド数が $A = {a}$ のとき、"
            f"各ヘッドのクエリ・キーの次元 $d_k$（全ヘッドの次元の合計が $H$ になるように分ける）{BEST}")
    wrong = (
        (num(pt.bert_head_dim_unsplit(h, a)), mc("d_k = d_model と誤解", f"各ヘッドが幅 ${tnum(h)}$ をまるごと使うと考えた。"
                                                                       "ヘッドは幅を分け合う。")),
        (num(pt.bert_head_dim_multiplied(h, a)), mc("割り算と掛け算の取り違え", f"${tnum(h)} \\times {a}$ と掛けてしまった。")),
        (num(a), mc("ヘッド数と次元の取り違え", f"ヘッドの数 $A = {a}$ を、1 ヘッドあたりの次元と読み違えた。")),
    )
    expl = (f"幅 $H$ を $A$ 個のヘッドで等分するので $d_k = H/A = {tnum(h)}/{a} = {tnum(d_k)}$。"
            "BERT-Base（H = 768、A = 12）でも ViT-Base でも 1 ヘッドは 64 次元になる。")
    return Draft(stem, num(d_k), wrong, expl)


# ---------------------------------------------------------------------------
def _params_encoder(rng: np.random.Generator) -> dict:
    h = pick(rng, ENC_WIDTHS)
    a = pick(rng, [x for x in ENC_HEADS if h % x == 0])
    return {"l": pick(rng, LAYERS), "h": h, "a": a, "drop": int(rng.integers(4))}


@calc_generator("pretrain.encoder_weights", "pretrain", _params_encoder)
def _encoder_weights(p: dict) -> Draft:
    """Weights (no biases, no LayerNorm) of L encoder layers: 12 L H²."""
    l, h, a = p["l"], p["h"], p["a"]
    right = pt.encoder_weights(l, h)
    f = pt.encoder_layer_params(h).ffn_width
    mistakes = [
        (num(pt.encoder_weights_no_ffn(l, h)), mc("FFN の数え忘れ", f"注意の 4 つの行列 $4H^2$ だけを数え、"
                                                                f"FFN の ${tnum(h)} \\times {tnum(f)}$ と、"
                                                                "その逆向きの 2 つの行列を落とした。")),
        (num(pt.encoder_weights_square_ffn(l, h)), mc("FFN の中間の幅を H とした", "FFN の中間の幅を $4H$ ではなく $H$ と考え、"
                                                                              "FFN の 2 つの行列を $H \\times H$ として数えた。")),
        (num(pt.encoder_weights_per_head(l, h, a)), mc("ヘッドごとに全行列があると誤解", f"{a} 個のヘッドがそれぞれ $H \\times H$ の "
                                                                                 "$W_Q, W_K, W_V, W_O$ を持つと考えた。ヘッドは幅を分け合うだけ。")),
        (num(pt.encoder_weights_one_layer(l, h)), mc("層数の掛け忘れ", f"1 層分の $12H^2$ だけを数え、{l} 層分にしなかった。")),
    ]
    wrong = tuple(m for i, m in enumerate(mistakes) if i != p["drop"])
    stem = (f"BERT と同じ形のエンコーダ（層数 $L = {l}$、幅 $H = {tnum(h)}$、ヘッド数 $A = {a}$、FFN の中間の幅 $4H$）について、"
            f"全 $L$ 層の変換行列のパラメータ数（バイアスと層正規化は数えない）{BEST}")
    expl = (f"1 層には注意の $W_Q, W_K, W_V, W_O$（各 $H \\times H$、計 $4H^2$）と FFN の $H \\times 4H$、$4H \\times H$（計 $8H^2$）があり、"
            f"合わせて $12H^2$。$H = {tnum(h)}$、FFN の幅 ${tnum(f)}$、$L = {l}$ なので "
            f"$12 \\times {l} \\times {tnum(h)}^2 = {tnum(right)}$。ヘッド数 {a} は数に関係しない。")
    return Draft(stem, num(right), wrong, expl)


# ---------------------------------------------------------------------------
@calc_generator("pretrain.vit_worst", "pretrain", _params_image)
def _vit_worst(p: dict) -> Draft:
    """Statements about a ViT input; the wrong one forgets the class token."""
    h, w, size = p["h"], p["w"], p["p"]
    g = pt.vit_patch_grid(h, w, size)
    stem = (f"Vision Transformer に{_size(h, w)}の RGB 画像を入れ、${size} \\times {size}$ のパッチに分ける"
            f"（クラストークンを 1 つ加え、位置埋め込みは学習で覚える）。この入力についての記述{WORST}")
    answer = f"位置埋め込みはパッチのトークンにだけ足すので、その表は {num(g.patches)} 行あれば足りる。"
    wrong = (
        (f"パッチは縦に {g.rows} 個、横に {g.cols} 個並び、合わせて {num(g.patches)} 個になる。",
         mc("正しい記述（パッチの数）", f"${h}/{size} = {g.rows}$、${w}/{size} = {g.cols}$ で、{g.rows} × {g.cols} 個。")),
        (f"パッチ 1 つを 1 列に並べたベクトルの長さは {num(g.patch_dim)} で、これを線形層で射影する。",
         mc("正しい記述（パッチの長さ）", f"${size}^2 \\times 3 = {tnum(g.patch_dim)}$。")),
        (f"エンコーダに入るトークンは {num(g.tokens)} 個で、分類にはクラストークンの最終層の出力を使う。",
         mc("正しい記述（トークン数）", f"パッチ {num(g.patches)} 個とクラストークン 1 個。")),
    )
    expl = (f"誤りは位置埋め込みの行数（クラストークンの数え忘れ）。クラストークンも系列の 0 番目の位置を占めるので、位置埋め込みも "
            f"{num(g.patches)} + 1 = {num(g.tokens)} 行必要になる。パッチ {num(g.patches)} 個、パッチの長さ "
            f"{num(g.patch_dim)}、トークン数 {num(g.tokens)} はどれも正しい。")
    return Draft(stem, answer, wrong, expl)
