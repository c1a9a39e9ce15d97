"""⑦-6 原論文の実験と評価: BLEU's modified n-gram precision and BLEU itself on a candidate and its
references, the length penalty of beam search (穴埋め), the paper's training-cost estimate in
FLOPs, and checkpoint averaging.

Answers: tutor.paper (ngram_match / modified_precision, bleu, rank_hypotheses, training_flops,
average_checkpoints); every distractor is one of the named mistakes next to those formulas
(precision_unclipped, ngram_recall, precision_by_types, the first reference alone, bleu_without_bp,
bleu_bp_both_ways, bleu_arithmetic_mean, bleu_unclipped, bleu_recall, score_times_penalty and the
plain log P, flops_hours_not_seconds, flops_one_gpu, flops_giga, last_checkpoint_only,
average_of_all, sum_of_checkpoints). All of them are 発展 (beyond the G検定 syllabus: see
docs/syllabus-research.md).
"""
from __future__ import annotations

import numpy as np

from tutor import numfmt
from tutor import paper as pp

from .calc import BEST, BLANK, blank, calc_generator, mc, num, pick, redraw, tex_vec, tnum, two_slips
from .core import Draft

# a sentence and a second human translation of it (tokens separated by spaces, as BLEU counts them)
SENTENCES = (
    (("猫", "が", "庭", "で", "魚", "を", "食べた"), ("庭", "で", "猫", "が", "魚", "を", "食べた")),
    (("彼", "は", "駅", "まで", "歩いて", "行った"), ("彼", "は", "駅", "へ", "歩いて", "向かった")),
    (("私", "は", "毎朝", "公園", "を", "走る"), ("毎朝", "私", "は", "公園", "で", "走る")),
    (("外", "は", "強い", "雨", "が", "降って", "いる"), ("雨", "が", "強く", "降って", "いる")),
    (("母", "が", "台所", "で", "夕食", "を", "作った"), ("台所", "で", "母", "は", "夕食", "を", "作った")),
    (("子ども", "たち", "が", "川", "で", "泳いで", "いる"), ("川", "で", "子ども", "たち", "が", "泳いで", "いる")),
    (("この", "本", "は", "とても", "面白い"), ("この", "本", "は", "本当に", "面白い")),
    (("犬", "が", "公園", "で", "ボール", "を", "追いかけた"), ("公園", "で", "犬", "は", "ボール", "を", "追った")),
)
OFF_WORDS = ("鳥", "学校", "昨日", "静かに", "大きな", "花")


def _params_sentences(rng: np.random.Generator, *, with_n: bool) -> dict:
    """A machine translation made from the first reference: 0–2 words dropped, one word doubled
    (so that clipping matters), maybe one word replaced by a word of no reference."""
    ref1, ref2 = SENTENCES[int(rng.integers(len(SENTENCES)))]
    cand = list(ref1)
    for _ in range(int(rng.integers(3))):
        del cand[int(rng.integers(len(cand)))]
    j = int(rng.integers(len(cand)))
    cand.insert(j, cand[j])
    if rng.integers(2):
        k = int(rng.integers(len(cand)))
        if k not in (j, j + 1):
            cand[k] = pick(rng, OFF_WORDS)
    refs = (ref1, ref2) if rng.integers(2) else (ref1,)
    out = {"cand": tuple(cand), "refs": refs}
    if with_n:
        out["n"] = 1 + int(rng.integers(2))
    return out


def _shown(tokens) -> str:
    return "「" + " ".join(tokens) + "」"


def _sentences_text(p: dict) -> str:
    refs = "\n".join(f"- 参照訳 {i + 1}：{_shown(r)}（{len(r)} 語）" for i, r in enumerate(p["refs"]))
    return f"- 候補訳：{_shown(p['cand'])}（{len(p['cand'])} 語）\n{refs}"


def _frac(a: int, b: int) -> str:
    return f"${a}/{b}$"


def _distinct(right: str, options) -> tuple | None:
    """The first three options whose text differs from the answer and from each other (None: too few)."""
    out, seen = [], {right.strip()}
    for text, note in options:
        if text.strip() not in seen:
            out.append((text, note))
            seen.add(text.strip())
    return tuple(out[:3]) if len(out) >= 3 else None


# ---------------------------------------------------------------------------
@calc_generator("paper.modified_precision", "paper", lambda rng: _params_sentences(rng, with_n=True), advanced=True)
def _modified_precision(p: dict) -> Draft:
    """BLEU's modified n-gram precision p_n (n = 1 or 2): clipped matches / the candidate's n-grams."""
    cand, refs, n = p["cand"], p["refs"], p["n"]
    m = pp.ngram_match(cand, refs, n)
    right = _frac(m.matched, m.total)
    gram = {1: "1-gram（単語）", 2: "2-gram（隣り合う 2 語）"}[n]
    r = pp.closest_reference_length(len(cand), [len(x) for x in refs])
    ref_total = r - n + 1
    recall_matched = m.matched
    options = [
        (_frac(m.unclipped, m.total), mc("クリップし忘れ", f"候補訳で同じ {gram}がくり返されたとき、参照訳に現れる回数を超えた分まで"
                                                   "一致として数えた。一致は、どれか 1 つの参照訳に現れる最大の回数までで切る。")),
        (_frac(recall_matched, ref_total), mc("再現率との取り違え", f"一致の数を、候補訳ではなく参照訳（{r} 語）の {gram}の数 {ref_total} で割った。"
                                                             "BLEU の p_n は候補訳の側の割合（適合率）である。")),
    ]
    if len(refs) > 1:
        first = pp.ngram_match(cand, refs[:1], n)
        options.append((_frac(first.matched, first.total),
                        mc("参照訳 1 つだけで照合", "参照訳 1 だけと照らし合わせた。参照訳が複数あれば、どれかに現れる n-gram は一致に数える。")))
    types = pp.ngram_match(cand, refs, n)
    found = sum(1 for x in types.ref_max if x > 0)
    options.append((_frac(found, len(types.grams)), mc("種類の数で数えた", f"同じ {gram}は何度現れても 1 つと数え、種類の数どうしで割った。"
                                                                       "数えるのは出現のたびで、上限だけを参照訳の回数で切る。")))
    wrong = _distinct(right, options)
    if wrong is None:
        return redraw()
    stem = (f"機械翻訳の候補訳と参照訳（人の訳）が次のとおりである（単語は空白で区切ってある）。\n\n{_sentences_text(p)}\n\n"
            f"BLEU で使う修正 {n}-gram 精度 $p_{n}$ {BEST}")
    clipped = "、".join(f"「{' '.join(g)}」{c} 回→{x} 回" for g, c, x in zip(m.grams, m.counts, m.ref_max) if c > x > 0)
    missing = "、".join(f"「{' '.join(g)}」" for g, x in zip(m.grams, m.ref_max) if x == 0)
    expl = (f"候補訳の {gram}は {m.total} 個。参照訳のどれかに現れるものを、参照訳 1 つに現れる最大の回数を上限として数えると "
            f"{m.matched} 個なので $p_{n} = {m.matched}/{m.total}$。"
            + (f"上限で切ったもの：{clipped}（参照訳 1 つに現れる最大の回数まで）。" if clipped else "")
            + (f"どの参照訳にもないもの：{missing}。" if missing else "")
            + "同じ語をくり返す訳が高い点を取らないための工夫（クリップ）である。")
    return Draft(stem, right, wrong, expl)


# ---------------------------------------------------------------------------
def _params_bleu(rng: np.random.Generator) -> dict:
    return _params_sentences(rng, with_n=False)


def _bleu_text(x: float) -> str:
    return num(x, 3)


@calc_generator("paper.bleu", "paper", _params_bleu, advanced=True)
def _bleu(p: dict) -> Draft:
    """BLEU with N = 2: BP · √(p₁ p₂)."""
    cand, refs = p["cand"], p["refs"]
    b = pp.bleu(cand, refs, 2)
    if b.score == 0:
        return redraw()
    right = _bleu_text(b.score)
    p1, p2 = (m.precision for m in b.matches)
    options = []
    if b.c < b.r:
        options.append((_bleu_text(pp.bleu_without_bp(cand, refs, 2)),
                        mc("短さのペナルティの掛け忘れ", f"候補訳（{b.c} 語）が参照訳（{b.r} 語）より短いのに BP を掛けなかった。")))
    if b.c > b.r:
        options.append((_bleu_text(pp.bleu_bp_both_ways(cand, refs, 2)),
                        mc("長い訳にも短さのペナルティ", f"候補訳（{b.c} 語）が参照訳（{b.r} 語）より長いのに $e^{{1 - c/r}}$ を掛けた。"
                                                  "BP が罰するのは短い訳だけで、長い訳は精度の分母が増えることで損をする。")))
    options += [
        (_bleu_text(pp.bleu_arithmetic_mean(cand, refs, 2)),
         mc("算術平均との取り違え", "$p_1$ と $p_2$ の相乗平均（幾何平均）ではなく、足して 2 で割った算術平均を使った。")),
        (_bleu_text(pp.bleu_unclipped(cand, refs, 2)),
         mc("クリップし忘れ", "くり返された語や 2-gram を、参照訳に現れる回数を超えて一致に数えた。")),
        (_bleu_text(pp.bleu_recall(cand, refs, 2)),
         mc("再現率との取り違え", "一致の数を候補訳ではなく参照訳の n-gram の数で割った。")),
    ]
    wrong = _distinct(right, options)
    if wrong is None:
        return redraw()
    stem = (f"機械翻訳の候補訳と参照訳（人の訳）が次のとおりである（単語は空白で区切ってある）。\n\n{_sentences_text(p)}\n\n"
            "BLEU を 2-gram まで（$N = 2$、重みは 1/2 ずつ）で $\\mathrm{BLEU} = \\mathrm{BP} \\cdot \\sqrt{p_1 p_2}$ と計算する。"
            "$p_n$ は修正 n-gram 精度、$\\mathrm{BP}$ は候補訳の語数 $c$ が参照訳の語数 $r$（候補訳に最も近い長さのもの）より大きければ 1、"
            "そうでなければ $e^{1 - r/c}$ とする。小数第 4 位を四捨五入した値" + BEST)
    bp_text = "1（c > r）" if b.c > b.r else f"$e^{{1 - {b.r}/{b.c}}} = {tnum(b.bp)}$"
    expl = (f"$p_1 = {b.matches[0].matched}/{b.matches[0].total}$、$p_2 = {b.matches[1].matched}/{b.matches[1].total}$ で、"
            f"$\\sqrt{{p_1 p_2}} = {tnum(b.geo_mean)}$。$c = {b.c}$、$r = {b.r}$ なので BP = {bp_text}。"
            f"BLEU = {tnum(b.bp)} × {tnum(b.geo_mean)} = {right}（論文の表記では ×100 して {num(b.score * 100, 1)}）。"
            f"（p₁ = {num(p1)}、p₂ = {num(p2)}。どちらかが 0 なら BLEU は 0 になる）。")
    return Draft(stem, right, wrong, expl)


# ---------------------------------------------------------------------------
# lp values that are whole numbers: α = 1 → lp = (5 + L)/6; α = 0.5 → lp = √((5 + L)/6)
LP_SETTINGS = ((1.0, (2, 3), (4, 5)), (0.5, (2,), (3, 4)))   # |Y|: 7, 13 / 19, 25 and 19 / 49, 91


def _length_for(lp: int, alpha: float) -> int:
    """|Y| with ((5 + |Y|)/6)^α = lp (α = 1 or 0.5)."""
    return 6 * lp ** round(1 / alpha) - 5


def _params_lp(rng: np.random.Generator) -> dict:
    alpha, shorts, longs = pick(rng, LP_SETTINGS)
    lp_s, lp_l = pick(rng, shorts), pick(rng, longs)
    x = int(rng.integers(6, 21))                               # the long one's normalised score: −x/10
    upper = (x * lp_l + lp_s - 1) // lp_s                      # y/10 < x/10 · lp_l/lp_s: the raw log P prefers the short one
    y = int(rng.integers(x + 1, max(upper, x + 2)))
    return {"alpha": alpha, "len_s": _length_for(lp_s, alpha), "len_l": _length_for(lp_l, alpha),
            "logp_s": -y * lp_s / 10, "logp_l": -x * lp_l / 10, "long_is_a": bool(rng.integers(2))}


@calc_generator("paper.length_penalty_blank", "paper", _params_lp, advanced=True)
def _length_penalty_blank(p: dict) -> Draft:
    """(ア)(イ) log P / lp(Y) of the two hypotheses, (ウ) the one chosen."""
    a = p["alpha"]
    hyps = [("短い", p["len_s"], p["logp_s"]), ("長い", p["len_l"], p["logp_l"])]
    if p["long_is_a"]:
        hyps.reverse()
    (_, la, pa), (_, lb, pb) = hyps
    rank = pp.rank_hypotheses([pa, pb], [la, lb], a)
    if rank.chosen == rank.raw_choice or rank.scores[0] == rank.scores[1]:
        return redraw()
    names = ("A", "B")
    right = (f"${tnum(rank.scores[0])}$", f"${tnum(rank.scores[1])}$", names[rank.chosen])
    times = [pp.score_times_penalty(lp_, n, a) for lp_, n in ((pa, la), (pb, lb))]
    slips = two_slips(
        right,
        ("長さペナルティを掛けた", "log P を lp(Y) で割らずに掛けた", {0: f"${tnum(times[0])}$", 1: f"${tnum(times[1])}$"}),
        ("長さで割る前の log P で比較", f"スコアを比べずに、長さで割る前の log P が大きい {names[rank.raw_choice]} を選んだ",
         {2: names[rank.raw_choice]}))
    if slips is None:
        return redraw()
    wrong, notes = slips
    alpha_text = "1" if a == 1 else "0.5"
    stem = (f"{BLANK}\n\nビームサーチで最後に残った訳の候補 A（$|Y| = {la}$ トークン、$\\log P(Y|X) = {tnum(pa)}$）と"
            f"候補 B（$|Y| = {lb}$ トークン、$\\log P(Y|X) = {tnum(pb)}$）を、長さペナルティ "
            f"$lp(Y) = \\left(\\frac{{5 + |Y|}}{{5 + 1}}\\right)^{{\\alpha}}$（$\\alpha = {alpha_text}$）で割ったスコア "
            "$s = \\log P(Y|X) / lp(Y)$ で比べる。A のスコアは（ア）、B のスコアは（イ）で、出力に選ばれるのは（ウ）である。")
    expl = (f"$lp = ((5 + {la})/6)^{{{alpha_text}}} = {tnum(rank.penalties[0])}$、$((5 + {lb})/6)^{{{alpha_text}}} = {tnum(rank.penalties[1])}$。"
            f"スコアは A が ${tnum(pa)} / {tnum(rank.penalties[0])} = {tnum(rank.scores[0])}$、"
            f"B が ${tnum(pb)} / {tnum(rank.penalties[1])} = {tnum(rank.scores[1])}$ で、0 に近い {names[rank.chosen]} が選ばれる。"
            f"log P だけなら {names[rank.raw_choice]} が選ばれる。1 語ごとに負の log P が足されるので、割らないと短い訳が有利になる"
            "（原論文はビーム幅 4、α = 0.6）。")
    return Draft(stem, blank(*right), tuple(zip(wrong, notes)), expl)


# ---------------------------------------------------------------------------
TIMES = (("時間", 12), ("時間", 24), ("時間", 36), ("日", 2), ("日", 3.5), ("日", 5))
GPU_COUNTS = (2, 4, 8, 16)


def _params_flops(rng: np.random.Generator) -> dict:
    unit, value = pick(rng, TIMES)
    return {"unit": unit, "value": value, "gpus": pick(rng, GPU_COUNTS), "gpu": pick(rng, tuple(pp.GPU_TFLOPS))}


def _hours(p: dict) -> float:
    return p["value"] * (pp.HOURS_PER_DAY if p["unit"] == "日" else 1)


def _sci(x: float) -> str:
    return "約 $" + numfmt.sci(x, 1, tex=True) + "$"


@calc_generator("paper.training_flops", "paper", _params_flops, advanced=True)
def _training_flops(p: dict) -> Draft:
    """FLOPs = hours × 3,600 × GPUs × TFLOPS × 10¹²."""
    hours, gpus, gpu = _hours(p), p["gpus"], p["gpu"]
    tflops = pp.GPU_TFLOPS[gpu]
    right = _sci(pp.training_flops(hours, gpus, tflops))
    wrong = (
        (_sci(pp.flops_hours_not_seconds(hours, gpus, tflops)),
         mc("時間を秒に直し忘れ", "TFLOPS は 1 秒あたりの回数なのに、学習時間を時間のまま掛けた（3,600 倍し忘れた）。")),
        (_sci(pp.flops_one_gpu(hours, gpus, tflops)), mc("GPU の台数の掛け忘れ", f"GPU 1 台分だけを数え、{gpus} 台分にしなかった。")),
        (_sci(pp.flops_giga(hours, gpus, tflops)), mc("テラとギガの取り違え", "TFLOPS のテラ（$10^{12}$）を $10^{9}$ として掛けた。")),
    )
    time = f"{num(p['value'])} {p['unit']}"
    stem = (f"原論文は、学習に使った浮動小数点演算の回数（FLOPs）を「学習時間 × GPU の台数 × GPU 1 台の持続的な単精度演算性能」で"
            f"見積もった。1 台 {num(tflops)} TFLOPS（1 秒に ${num(tflops)} \\times 10^{{12}}$ 回）と仮定した {gpu} を {gpus} 台使い、"
            f"{time}学習したときの見積もり{BEST}")
    seconds = hours * pp.SECONDS_PER_HOUR
    in_hours = f"{time} = {num(hours)} 時間" if p["unit"] == "日" else time
    expl = (f"{in_hours} = ${tnum(seconds)}$ 秒。${tnum(seconds)} \\times {gpus} \\times {num(tflops)} \\times 10^{{12}}"
            f" \\approx {right.removeprefix('約 $')}。原論文の base モデル（P100 を 8 台で 12 時間）は同じ計算で約 $3.3 \\times 10^{{18}}$、"
            "big モデル（3.5 日）は約 $2.3 \\times 10^{19}$ で、表 2 の値と一致する。")
    return Draft(stem, right, wrong, expl)


# ---------------------------------------------------------------------------
CENTRES = ((1.0, -1.0), (0.5, 2.0), (2.0, 0.5), (-1.5, 1.0))


def _params_ckpt(rng: np.random.Generator) -> dict:
    n = pick(rng, (5, 6))
    k = pick(rng, (2, 4, 5) if n == 6 else (2, 4))
    centre = np.array(pick(rng, CENTRES))
    steps = rng.integers(-4, 5, size=(n, 2))
    return {"k": k, "ck": tuple(tuple(float(v) for v in row) for row in np.round(centre + steps / 10, 1))}


@calc_generator("paper.checkpoint_average", "paper", _params_ckpt, advanced=True)
def _checkpoint_average(p: dict) -> Draft:
    """The mean of the last k parameter vectors."""
    ck, k = np.array(p["ck"]), p["k"]
    avg = pp.average_checkpoints(ck, k)
    right = f"${tex_vec(avg.mean)}$"
    wrong = (
        (f"${tex_vec(pp.last_checkpoint_only(ck, k))}$",
         mc("最後のチェックポイントだけ", "平均を取らず、最後に保存したパラメータをそのまま使った。")),
        (f"${tex_vec(pp.average_of_all(ck, k))}$",
         mc("全チェックポイントの平均", f"学習の初めの方も含めて、保存した {len(ck)} 個すべてを平均した。平均するのは最後の {k} 個だけ。")),
        (f"${tex_vec(pp.sum_of_checkpoints(ck, k))}$", mc("k で割り忘れ", f"最後の {k} 個を足しただけで、{k} で割らなかった。")),
    )
    rows = "\n".join(f"| {i + 1} | {numfmt.fixed(a, 1)} | {numfmt.fixed(b, 1)} |" for i, (a, b) in enumerate(ck))
    stem = (f"学習中に一定の間隔で保存したチェックポイント（パラメータ $(w_1, w_2)$ の値）が、古い順に次のとおりである。\n\n"
            f"| 保存の順 | $w_1$ | $w_2$ |\n|:-:|:-:|:-:|\n{rows}\n\n"
            f"原論文と同じように、最後の {k} 個のチェックポイントを平均して 1 つのモデルにする。そのパラメータ $(w_1, w_2)$ {BEST}")
    used = " + ".join(num(v) if v >= 0 else f"({num(v)})" for v in avg.used[:, 0])
    expl = (f"使うのは {len(ck) - k + 1} 番目から {len(ck)} 番目の {k} 個。成分ごとに平均して "
            f"$w_1 = ({used}) / {k} = {tnum(avg.mean[0])}$、同じく $w_2 = {tnum(avg.mean[1])}$ で、{right}。"
            "平均したパラメータで 1 つのモデルを作るので、推論の手間は 1 つのモデルと同じ（アンサンブルとは違う）。"
            f"原論文は base モデルで {pp.BASE_CHECKPOINTS} 個、big モデルで {pp.BIG_CHECKPOINTS} 個を平均した。")
    return Draft(stem, right, wrong, expl)
