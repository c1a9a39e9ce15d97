"""⑨-2 BERT・GPT の後継たち: ALBERT's embedding and shared layers, BERT's static masks (as RoBERTa
describes them), ELECTRA's learning signal, XLNet's factorization orders and what one position sees,
T5's span corruption, and BERT's answer span on SQuAD.

Answers: tutor.bertfamily (factorized_embedding, layer_sharing, static_masking, rtd_counts,
factorization_orders, orders_with_first, orders_with_before, permutation_mask, span_corruption,
best_span); every distractor is one of the named mistakes next to those formulas
(embedding_without_projection, embedding_unfactorized, embedding_projection_reversed,
sharing_overlooked, sharing_divided_by_heads, sharing_attention_only, static_repeats_as_copies,
static_repeats_as_epochs, static_repeats_dynamic, static_as_dynamic, rtd_loss_only_masked,
rtd_restored_as_replaced, orders_as_pairs, orders_as_subsets, orders_as_sum,
orders_condition_ignored, orders_before_as_first, orders_both_fixed, visible_left_to_right,
visible_with_self, visible_all_others, visible_after, target_without_final_sentinel,
target_without_sentinels, target_whole_text, input_mask_per_token, input_without_sentinels,
span_ignoring_order, span_start_first, span_end_first, span_single_token).

ALBERT, RoBERTa, ELECTRA, XLNet and T5 are not named by the G検定 syllabus: their generators are 発展
(advanced). The SQuAD span (BERT and 質問応答) is not.
"""
from __future__ import annotations

import numpy as np

from tutor import bertfamily as bf
from tutor import numfmt

from .calc import BEST, BLANK, blank, calc_generator, draft, mc, num, pick, redraw, sample, tnum, two_slips
from .core import Draft

VOCABS = (20_000, 25_000, 30_000, 32_000, 40_000, 50_000)
EMBEDS = (64, 128, 256)
HIDDENS = (512, 768, 1024, 2048, 4096)
LAYERS = (4, 6, 8, 12, 24)
SHARE_HIDDENS = (128, 256, 512, 768, 1024)
SHARE_HEADS = (4, 8, 12, 16)
MASK_PLANS = tuple((c, c * r) for c in range(2, 11) for r in range(2, 9) if r != c)   # (copies, epochs): epochs / copies ≠ copies
T5_WORDS = ("私", "は", "昨日", "駅", "で", "古い", "友人", "に", "会い", "一緒", "に", "昼", "を", "食べ", "た", "。")


def _positions(ps) -> str:
    """0-based positions as the learner reads them: 「1・3」 (or 「なし」)."""
    return "位置 " + "・".join(str(p + 1) for p in ps) if ps else "なし（どの位置も参照できない）"


# ---------------------------------------------------------------------------
def _params_embedding(rng: np.random.Generator) -> dict:
    h = pick(rng, HIDDENS)
    return {"v": pick(rng, VOCABS), "e": pick(rng, [e for e in EMBEDS if e < h]), "h": h}


@calc_generator("bertfamily.albert_embedding", "bertfamily", _params_embedding, advanced=True)
def _albert_embedding(p: dict) -> Draft:
    """ALBERT's factorized embedding: V·E + E·H."""
    v, e, h = p["v"], p["e"], p["h"]
    right = bf.factorized_embedding(v, e, h)
    stem = (f"ALBERT は、語彙 $V = {tnum(v)}$ の各語をまず幅 $E = {e}$ のベクトルに埋め込み、それを行列で隠れ層の幅 "
            f"$H = {tnum(h)}$ に変換する（因数分解した埋め込み）。この埋め込み部分のパラメータ数（バイアスは数えない）{BEST}")
    wrong = (
        (num(bf.embedding_without_projection(v, e, h)),
         mc("E·H の射影の数え忘れ", f"$V \\times E$ の表だけを数え、$E$ から $H$ へ変換する ${e} \\times {tnum(h)}$ の行列を落とした。")),
        (num(bf.embedding_unfactorized(v, e, h)),
         mc("分解しない V·H のまま", f"BERT と同じ $V \\times H$ の表を数えた。ALBERT はこれを $V \\times E$ と $E \\times H$ に分ける。")),
        (num(bf.embedding_projection_reversed(v, e, h)),
         mc("射影の向きの取り違え", "語を先に幅 $H$ で埋め込み、あとで $E$ に縮めると考え、$V \\times H + H \\times E$ とした。")),
    )
    expl = (f"表が $V \\times E = {tnum(v)} \\times {e} = {tnum(right.lookup)}$、射影が $E \\times H = {e} \\times {tnum(h)} = "
            f"{tnum(right.projection)}$ で、合わせて ${tnum(right.factorized)}$。分解しない $V \\times H = {tnum(right.untied)}$ の "
            f"{numfmt.percent(right.ratio, 1)} で、${tnum(right.saved)}$ 個減る。")
    return Draft(stem, num(right.factorized), wrong, expl)


# ---------------------------------------------------------------------------
def _params_sharing(rng: np.random.Generator) -> dict:
    h = pick(rng, SHARE_HIDDENS)
    return {"l": pick(rng, LAYERS), "h": h, "a": pick(rng, [a for a in SHARE_HEADS if h % a == 0])}


@calc_generator("bertfamily.albert_sharing", "bertfamily", _params_sharing, advanced=True)
def _albert_sharing(p: dict) -> Draft:
    """ALBERT's cross-layer sharing: the weights of one layer, 12H², serve all L layers."""
    l, h, a = p["l"], p["h"], p["a"]
    s = bf.layer_sharing(l, h)
    stem = (f"層数 $L = {l}$、幅 $H = {tnum(h)}$、ヘッド数 $A = {a}$、FFN の中間の幅 $4H$ のエンコーダで、ALBERT のように"
            f"**全層でパラメータを共有する**（1 層分の重みをすべての層でくり返し使う）。エンコーダの変換行列のパラメータ数"
            f"（バイアスと層正規化は数えない）{BEST}")
    wrong = (
        (num(bf.sharing_overlooked(l, h)),
         mc("共有の見落とし", f"BERT と同じく {l} 層が別々の重みを持つと考え、$L \\times 12H^2$ とした。")),
        (num(bf.sharing_divided_by_heads(l, h, a)),
         mc("共有をヘッド数で割ると誤解", f"共有をヘッドどうしの共有と取り違え、$L \\times 12H^2$ をヘッド数 {a} で割った。")),
        (num(bf.sharing_attention_only(l, h)),
         mc("注意だけの共有と混同", f"注意の $4H^2$ だけが共有され、FFN の $8H^2$ は {l} 層それぞれに残ると考えた。")),
    )
    expl = (f"1 層の重みは注意 $4H^2$ と FFN $8H^2$ で $12H^2 = 12 \\times {tnum(h)}^2 = {tnum(s.per_layer)}$。"
            f"全層で共有すると、層を {l} 回重ねてもこの 1 組だけなので ${tnum(s.shared)}$（共有しなければ "
            f"${tnum(s.unshared)}$）。計算の回数は {l} 層分のままで、減るのは覚えておく重みの数である。")
    return Draft(stem, num(s.shared), wrong, expl)


# ---------------------------------------------------------------------------
def _params_masking(rng: np.random.Generator) -> dict:
    copies, epochs = pick(rng, MASK_PLANS)
    return {"copies": copies, "epochs": epochs}


@calc_generator("bertfamily.static_masks", "bertfamily", _params_masking, advanced=True)
def _static_masks(p: dict) -> Draft:
    """RoBERTa's account of BERT's static masking: copies masks, each epochs/copies times; dynamic: up to epochs."""
    c, e = p["copies"], p["epochs"]
    m = bf.static_masking(e, c)
    right = (num(m.distinct), num(m.repeats), num(m.dynamic_most))
    slips = two_slips(
        right,
        ("静的マスクと動的マスクの取り違え", "前処理で作るマスクと毎回作るマスクを入れ替えた",
         {0: num(bf.static_as_dynamic(e, c)), 2: num(m.distinct)}),
        ("複製の数と使う回数の取り違え", "複製の数を、1 つのマスクを見る回数と読んだ", {1: num(bf.static_repeats_as_copies(e, c))}))
    if slips is None:
        return redraw()
    wrong, notes = slips
    stem = (f"{BLANK}\n\nBERT は前処理でマスクを決めていた。学習データを {c} 通りに複製してそれぞれに別のマスクをかけ、"
            f"{e} エポック学習すると、1 つの文が学習中に見るマスクは（ア）通りで、それぞれを（イ）回ずつ見る。"
            f"RoBERTa の動的マスクのように、文を入力するたびに新しくマスクを作ると、{e} エポックで最大（ウ）通りになる。")
    expl = (f"{c} 通りの複製を {e} エポックで順に使うので、マスクは {c} 通り、それぞれ ${e} / {c} = {m.repeats}$ 回ずつ。"
            f"動的マスクではエポックごとに作り直すので、最大 {e} 通りになる（RoBERTa の論文の BERT の設定は 10 通り × 40 エポック）。")
    return draft(blank(*right), wrong, stem, notes, expl)


@calc_generator("bertfamily.static_repeats", "bertfamily", _params_masking, advanced=True)
def _static_repeats(p: dict) -> Draft:
    """BERT's static masking: each of the ``copies`` masks is seen epochs / copies times."""
    c, e = p["copies"], p["epochs"]
    m = bf.static_masking(e, c)
    stem = (f"BERT の元の事前学習のように、マスクを前処理で決めておく（静的マスク）。学習データを {c} 通りに複製して"
            f"それぞれに別のマスクをかけ、{e} エポック学習するとき、1 つの文が同じマスクで学習される回数{BEST}")
    wrong = (
        (num(bf.static_repeats_as_copies(e, c)),
         mc("複製の数と使う回数の取り違え", f"複製の数 {c} を、1 つのマスクを見る回数と読んだ。")),
        (num(bf.static_repeats_as_epochs(e, c)),
         mc("エポック数をそのまま回数とした", f"複製で {c} 通りに分けたことを忘れ、{e} エポックすべてで同じマスクを見ると考えた。")),
        (num(bf.static_repeats_dynamic(e, c)),
         mc("静的マスクと動的マスクの取り違え", "毎回マスクを作り直す RoBERTa の動的マスクと取り違え、同じマスクは 1 回しか見ないと考えた。")),
    )
    expl = (f"{c} 通りの複製を {e} エポックで順に使うので、同じマスクを見るのは ${e} \\div {c} = {m.repeats}$ 回。"
            f"1 つの文が見るマスクは {c} 通りだけである（RoBERTa の論文が述べる BERT の設定は 10 通り × 40 エポックで 4 回ずつ）。")
    return Draft(stem, num(m.repeats), wrong, expl)


# ---------------------------------------------------------------------------
def _params_rtd(rng: np.random.Generator) -> dict:
    n = 20 * int(rng.integers(1, 11))                  # 20 … 200: 15 % is a whole number
    masked = n * 15 // 100
    return {"n": n, "masked": masked, "restored": int(rng.integers(1, max(2, masked // 2) + 1))}


@calc_generator("bertfamily.electra_signal", "bertfamily", _params_rtd, advanced=True)
def _electra_signal(p: dict) -> Draft:
    """MLM learns at the masked positions, replaced token detection at every position."""
    n, k, r = p["n"], p["masked"], p["restored"]
    c = bf.rtd_counts(n, k, r)
    right = (num(c.mlm_loss), num(c.rtd_loss), num(c.replaced))
    slips = two_slips(
        right,
        ("MLM と置換検出の学習位置の取り違え", "損失を計算する位置を MLM と ELECTRA で入れ替えた",
         {0: num(c.rtd_loss), 1: num(bf.rtd_loss_only_masked(n, k, r))}),
        ("元の語に戻った位置も置換と数えた", "生成器が元と同じ語を出した位置まで「置き換えられた」と数えた",
         {2: num(bf.rtd_restored_as_replaced(n, k, r))}))
    if slips is None:
        return redraw()
    wrong, notes = slips
    stem = (f"{BLANK}\n\n{n} トークンの文で、{k} 個（15 %）の位置をマスクする。BERT の MLM では損失を計算するのは（ア）個の位置である。"
            f"ELECTRA では小さな生成器がその {k} 個を埋め、識別器が全トークンについて「置き換えられたか」を判定するので、"
            f"損失は（イ）個の位置から得られる。生成器が {r} 個の位置で元と同じ語を出したとき、"
            f"「置き換えられた」が正解になる位置は（ウ）個である。")
    expl = (f"MLM はマスクした {k} 個だけで学ぶ（全体の {numfmt.percent(c.mlm_share)}）。ELECTRA の識別器は {n} 個すべてに"
            f"「元のまま / 置き換え」の正解があるので、全位置から学ぶ。生成器が元の語を出した {r} 個は「元のまま」が正解なので、"
            f"「置き換えられた」は ${k} - {r} = {c.replaced}$ 個。")
    return draft(blank(*right), wrong, stem, notes, expl)


# ---------------------------------------------------------------------------
def _params_orders(rng: np.random.Generator) -> dict:
    n = int(rng.integers(3, 9))
    i, j = sample(rng, n, 2)
    return {"n": n, "kind": pick(rng, ("all", "first", "before")), "i": i, "j": j}


@calc_generator("bertfamily.xlnet_orders", "bertfamily", _params_orders, advanced=True)
def _xlnet_orders(p: dict) -> Draft:
    """n tokens have n! factorization orders; (n − 1)! put a given position first; n!/2 put i before j."""
    n, kind, i, j = p["n"], p["kind"], p["i"] + 1, p["j"] + 1
    sum_mc = mc("階乗を和と取り違えた", "並べ方の数を足し算で数えた。並べ方は $1 \\times 2 \\times \\dots$ と掛けて数える。")
    ignored = mc("順序の条件の見落とし", f"条件を読み落とし、{n} 個の位置のすべての順序 ${n}!$ を数えた。")
    if kind == "all":
        asked, right = "", bf.factorization_orders(n)
        wrong = ((num(bf.orders_as_pairs(n)), mc("組の数と混同", f"位置の組 $(i, j)$ の数 ${n}^2$ を数えた。順序は {n} 個の並べ方である。")),
                 (num(bf.orders_as_subsets(n)), mc("部分集合の数と混同", f"どの位置を隠すかの選び方 $2^{{{n}}}$ を数えた。並べる順番とは別物。")),
                 (num(bf.orders_as_sum(n)), sum_mc))
        why = f"最初に予測する位置が {n} 通り、次が {n - 1} 通り、… と選ぶので ${n}! = {tnum(right)}$ 通り。"
    elif kind == "first":
        asked, right = f"のうち、位置 {i} が最初に予測されるもの", bf.orders_with_first(n)
        wrong = ((num(bf.orders_condition_ignored(n)), ignored),
                 (num(bf.orders_as_pairs(n - 1)), mc("組の数と混同", f"残りの {n - 1} 個の組の数 ${n - 1}^2$ を数えた。残りは並べ方を数える。")),
                 (num(bf.orders_as_sum(n - 1)), sum_mc))
        why = f"位置 {i} を先頭に固定し、残りの {n - 1} 個を並べるので ${n - 1}! = {tnum(right)}$ 通り。"
    else:
        asked, right = f"のうち、位置 {i} が位置 {j} より先に予測されるもの", bf.orders_with_before(n)
        wrong = ((num(bf.orders_condition_ignored(n)), ignored),
                 (num(bf.orders_before_as_first(n)), mc("先頭に固定すると誤解", f"「位置 {i} が先」を「位置 {i} が最初」と読み、${n - 1}!$ を数えた。")),
                 (num(bf.orders_both_fixed(n)), mc("2 つの位置を固定すると誤解", f"位置 {i} を 1 番目、位置 {j} を 2 番目に固定し、${n - 2}!$ を数えた。")))
        why = (f"全部で ${n}! = {tnum(bf.factorization_orders(n))}$ 通りあり、位置 {i} と位置 {j} を入れ替えた順序が必ず 1 つずつ"
               f"対になるので、ちょうど半分の ${tnum(right)}$ 通り。")
    stem = (f"XLNet は、{n} トークンの文について、どの位置から順に予測するか（分解の順序）をいろいろに変えて学習する。"
            f"{n} 個の位置の予測の順序{asked}の数{BEST}")
    expl = (why + "文の並びそのものは変えず、注意のマスクで「どの位置を先に見てよいか」を順序に合わせて変える。"
            "平均すると、どの位置もほかの各位置を半分の順序で見ることになり、両側の文脈を学べる。")
    return Draft(stem, num(right), wrong, expl)


# ---------------------------------------------------------------------------
def _params_visible(rng: np.random.Generator) -> dict:
    n = pick(rng, (4, 5))
    order = tuple(rng.permutation(n).tolist())
    return {"order": order, "i": int(rng.integers(n)), "drop": int(rng.integers(4))}


@calc_generator("bertfamily.xlnet_visible", "bertfamily", _params_visible, advanced=True)
def _xlnet_visible(p: dict) -> Draft:
    """Under one factorization order, a position sees the positions predicted before it."""
    order, i = p["order"], p["i"]
    m = bf.permutation_mask(order)
    mistakes = [
        (_positions(bf.visible_left_to_right(order, i)),
         mc("文の左から右と取り違えた", f"GPT のように位置 {i + 1} より左の位置を見ると考え、分解の順序を無視した。")),
        (_positions(bf.visible_with_self(order, i)),
         mc("予測する語自身も見えると誤解", f"位置 {i + 1} の語そのものも見えると考えた。見えてしまえば当てる課題にならない。")),
        (_positions(bf.visible_all_others(order, i)),
         mc("BERT のように全位置が見えると誤解", "自分以外のすべての位置が見えると考えた。見えるのは順序で先の位置だけである。")),
        (_positions(bf.visible_after(order, i)),
         mc("順序の前後の取り違え", f"順序で位置 {i + 1} より後に予測される位置が見えると、向きを逆にした。")),
    ]
    wrong = tuple(x for k, x in enumerate(mistakes) if k != p["drop"])
    seq = " → ".join(str(x + 1) for x in order)
    stem = (f"XLNet の並べ替え言語モデルで、{len(order)} トークンの文を、位置 {seq} の順に予測する分解の順序が選ばれた。"
            f"位置 {i + 1} の語を予測するときに注意で参照できる位置の組み合わせ{BEST}")
    expl = (f"この順序で位置 {i + 1} は {m.rank[i] + 1} 番目に予測されるので、それより先に予測される位置 "
            f"{_positions(m.visible(i))} だけを参照できる。文の並びは変えず、注意のマスクだけを順序に合わせる。")
    return Draft(stem, _positions(m.visible(i)), wrong, expl)


# ---------------------------------------------------------------------------
def _params_span(rng: np.random.Generator) -> dict:
    n = int(rng.integers(10, len(T5_WORDS) + 1))
    n_spans = int(rng.integers(2, 4))
    while True:                                   # spans with a gap between them (else they would be one)
        starts = sorted(rng.choice(n - 1, size=n_spans, replace=False).tolist())
        lengths = [int(x) for x in rng.integers(1, 4, size=n_spans)]
        ends = [s + length for s, length in zip(starts, lengths)]
        if ends[-1] <= n and all(ends[k] < starts[k + 1] for k in range(n_spans - 1)):
            return {"n": n, "spans": tuple(zip(starts, lengths)), "ask": pick(rng, ("input", "target"))}


@calc_generator("bertfamily.t5_lengths", "bertfamily", _params_span, advanced=True)
def _t5_lengths(p: dict) -> Draft:
    """T5's span corruption: input n − dropped + spans, target dropped + spans + 1."""
    tokens, spans = T5_WORDS[: p["n"]], p["spans"]
    c = bf.span_corruption(tokens, spans)
    where = "、".join(f"位置 {s + 1}〜{s + length}" if length > 1 else f"位置 {s + 1}" for s, length in spans)
    if p["ask"] == "target":
        asked, right = "出力（目標）の系列の長さ", c.target_length
        wrong = (
            (num(bf.target_without_final_sentinel(tokens, spans)),
             mc("最後の番兵の数え忘れ", "範囲ごとの番兵と消した語は数えたが、目標の終わりを示す最後の番兵 1 個を落とした。")),
            (num(bf.target_without_sentinels(tokens, spans)),
             mc("番兵の数え忘れ", f"消した語 {c.dropped} 個だけを目標と考え、番兵をすべて落とした。")),
            (num(bf.target_whole_text(tokens, spans)),
             mc("BART の穴埋めとの混同", f"BART のように元の文 {len(tokens)} トークン全体を出力すると考えた。T5 は消した部分だけを出す。")),
        )
    else:
        asked, right = "入力の系列の長さ", c.input_length
        wrong = (
            (num(bf.input_mask_per_token(tokens, spans)),
             mc("語ごとにマスクを置くと誤解", "BERT のように消した語 1 つずつにマスクを置くと考え、長さが元の文と同じになった。")),
            (num(bf.input_without_sentinels(tokens, spans)),
             mc("番兵の数え忘れ", f"消した {c.dropped} 語を除いただけで、その跡に置く番兵を数えなかった。")),
            (num(c.target_length),
             mc("入力と出力の取り違え", "入力ではなく、出力（番兵と消した語と最後の番兵）の長さを数えた。")),
        )
    stem = (f"T5 の事前学習（スパン破損）で、{len(tokens)} トークンの文の{where}を消す。連続して消した範囲は 1 つの番兵トークンに"
            f"置き換えて入力とし、出力は番兵と消した語を順に並べ、最後にもう 1 つ番兵を置く。{asked}{BEST}")
    expl = (f"消した語は {c.dropped} 個、範囲は {len(spans)} 個。入力は ${len(tokens)} - {c.dropped} + {len(spans)} = "
            f"{c.input_length}$、出力は ${c.dropped} + {len(spans)} + 1 = {c.target_length}$ トークン。"
            f"入力：{' '.join(c.inputs)}　出力：{' '.join(c.targets)}")
    return Draft(stem, num(right), wrong, expl)


# ---------------------------------------------------------------------------
def _squad_mistakes(s, e) -> list[tuple[float, str]]:
    """(score, misconception) of each shortcut, in the order they are offered."""
    def score(span) -> float:
        return float(s[span[0]] + e[span[1]])

    return [
        (bf.span_ignoring_order(s, e),
         mc("開始と終了の順序を無視した", "開始スコアの最大と終了スコアの最大を別々に足した。終了が開始より前になる組は答えになれない。")),
        (score(bf.span_start_first(s, e)),
         mc("開始位置を先に決めた", "開始スコアが最大の位置を先に固定し、その後ろで終了スコアが最大の位置を選んだ。組み合わせの最大とは限らない。")),
        (score(bf.span_end_first(s, e)),
         mc("終了位置を先に決めた", "終了スコアが最大の位置を先に固定し、その前で開始スコアが最大の位置を選んだ。組み合わせの最大とは限らない。")),
        (score(bf.span_single_token(s, e)),
         mc("1 語の答えに限った", "開始と終了が同じ位置（1 トークンの答え）だけを比べた。答えは複数トークンの範囲でもよい。")),
    ]


def _offered(best: float, mistakes) -> list[tuple[float, str]]:
    """The first three shortcuts whose scores differ from the answer and from each other."""
    out: list[tuple[float, str]] = []
    for value, note in mistakes:
        if value != best and all(value != v for v, _ in out):
            out.append((value, note))
    return out[:3]


def _params_squad(rng: np.random.Generator) -> dict:
    """Start and end scores (whole numbers 0–9 for 5 positions), drawn until three shortcuts give
    three different wrong scores."""
    while True:
        s, e = rng.integers(0, 10, 5).tolist(), rng.integers(0, 10, 5).tolist()
        if len(_offered(bf.best_span(s, e).best_score, _squad_mistakes(s, e))) == 3:
            return {"start": tuple(s), "end": tuple(e)}


@calc_generator("bertfamily.squad_span", "bertfamily", _params_squad)
def _squad_span(p: dict) -> Draft:
    """BERT on SQuAD: the span i ≤ j with the largest start_i + end_j."""
    s, e = p["start"], p["end"]
    a = bf.best_span(s, e)
    i, j = a.best
    wrong = tuple((num(v), note) for v, note in _offered(a.best_score, _squad_mistakes(s, e)))
    stem = (f"BERT で SQuAD のような抜き出し型の質問応答を解く。5 トークンの本文の各位置について、答えの開始位置のスコアが "
            f"${tuple(s)}$、終了位置のスコアが ${tuple(e)}$（位置 1〜5 の順）と計算された。開始位置 $i$ と終了位置 $j$ "
            f"（$i \\le j$）の範囲のスコアを「開始スコア + 終了スコア」とするとき、答えに選ばれる範囲のスコア{BEST}")
    expl = (f"$i \\le j$ のすべての組で「開始 + 終了」を比べると、位置 {i + 1}〜{j + 1} の ${s[i]} + {e[j]} = {num(a.best_score)}$ "
            f"が最大。開始と終了を別々に最大にすると終了が開始より前になることがあり、片方を先に固定すると組み合わせの最大を逃す。")
    return Draft(stem, num(a.best_score), wrong, expl)
