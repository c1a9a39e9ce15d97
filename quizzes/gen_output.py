"""⑦-4 出力と生成: softmax with a temperature, the top-k distribution, top-p as a blank,
and a 不適切 item about how the temperature changes the distribution. top-k and top-p are 発展 (the syllabus
map names neither: quizzes/data/syllabus.json).

Inputs: logits c·ln m (exact softmax: probabilities ∝ m^(c/T)), probabilities in twentieths.
Answers and distractors: tutor.output.temperature_table (softmax(z/T) for given T), tutor.output.temperature_mistakes,
tutor.output.top_k_mistakes, tutor.output.top_p_mistakes, tutor.output.greedy and tutor.output.probabilities.
"""
from __future__ import annotations

import numpy as np

import tutor

from .calc import BEST, BLANK, WORST, blank, calc_generator, draft, ln_tex, mc, num, pick, sample, tex_vec, two_slips, redraw
from .core import Draft

WORDS = ("猫", "魚", "犬", "鳥", "本", "駅", "雨", "空")
# (temperature, coefficient c of the logits c·ln m): c / T is 1 or 2, so softmax(z/T) ∝ m or m²
TEMPS = ((0.5, 1), (2.0, 2), (3.0, 3), (2.0, 4), (0.5, 1))


def _labels(rng: np.random.Generator, n: int) -> tuple[str, ...]:
    # the very draw of rng.choice(WORDS, size=n, replace=False), without turning WORDS into an array
    return tuple(WORDS[i] for i in sample(rng, len(WORDS), n))


# ---------------------------------------------------------------------------
def _params_temp(rng: np.random.Generator) -> dict:
    t, c = TEMPS[int(rng.integers(len(TEMPS)))]
    m = tuple(i + 1 for i in sample(rng, 5, 3))   # = rng.choice(np.arange(1, 6), 3, replace=False)
    return {"t": t, "c": c, "m": m, "j": int(rng.integers(3)), "words": _labels(rng, 3)}


@calc_generator("output.temperature", "output", _params_temp)
def _temperature(p: dict) -> Draft:
    """P(token j) = softmax(z / T)_j for logits z = c·ln m."""
    t, c, m, j, words = p["t"], p["c"], p["m"], p["j"], p["words"]
    z = c * np.log(np.array(m, float))                            # the logits shown in the stem: c·ln m
    row_t = tutor.output.temperature_table(z, [t])[0]                    # z / T and the right softmax(z / T)
    right = row_t.probs
    r = tutor.output.temperature_mistakes(z, t, tutor.output.TEMPERATURE_MISTAKES)   # every mistake, checked once
    choices = (num(right[j]), num(r["inverted"][j]), num(r["ignored"][j]), num(r["no_normalise"][j]))

    row = ",\\ ".join(ln_tex(c, v) for v in m)
    stem = (f"言語モデルの出力層で、次のトークンの候補「{words[0]}」「{words[1]}」「{words[2]}」のロジットが $({row})$ だった"
            f"（$\\ln$ は自然対数）。温度 $T = {num(t, 1)}$ で $\\mathrm{{softmax}}(z/T)$ を計算したときの「{words[j]}」の確率{BEST}")
    notes = (
        mc("温度の向きの取り違え", f"ロジットを $T$ で割らずに $T = {num(t, 1)}$ を掛けてしまった。"),
        mc("温度の無視", "温度 T で割らずに、ロジットのまま softmax にかけた。"),
        mc("正規化の忘れ", "$e^{z_j/T}$ を計算したところで止め、合計で割らなかった。確率は合計 1 になるように割る。"),
    )
    expl = (f"ロジットを $T = {num(t, 1)}$ で割ると $z/T \\approx ({', '.join(num(v, 3) for v in row_t.scaled)})$ で、"
            f"$e^{{z_j/T}}$ はちょうど ${tex_vec(r['no_normalise'])}$ になる。合計で割ると ${tex_vec(right)}$ なので、"
            f"「{words[j]}」は {choices[0]}。")
    return draft(choices[0], choices[1:], stem, notes, expl)


# ---------------------------------------------------------------------------
def _twentieths(rng: np.random.Generator) -> tuple[int, ...]:
    """Five different counts that add up to 20 (probabilities = counts / 20)."""
    while True:
        cut = [0] + sorted(i + 1 for i in sample(rng, 19, 4)) + [20]   # = rng.choice(np.arange(1, 20), …)
        counts = tuple(b - a for a, b in zip(cut, cut[1:]))    # the gaps (np.diff)
        if len(set(counts)) == 5:
            return counts


def _params_topk(rng: np.random.Generator) -> dict:
    counts = _twentieths(rng)
    k = pick(rng, (2, 3))
    ranked = sorted(range(len(counts)), key=lambda i: -counts[i])   # largest first, ties by index (a stable sort)
    return {"counts": counts, "k": k, "tok": ranked[int(rng.integers(k))], "words": _labels(rng, 5)}


def _probs(counts) -> np.ndarray:
    return tutor.output.probabilities(np.log(np.array(counts, float)))   # = counts / Σ counts, via the engine's softmax


def _prob_list(words, probs) -> str:
    return "、".join(f"「{w}」{num(x, 2)}" for w, x in zip(words, probs))


@calc_generator("output.top_k", "output", _params_topk, advanced=True)
def _top_k(p: dict) -> Draft:
    """Probability of one token after top-k (k most probable kept and renormalised)."""
    probs, k, tok, words = _probs(p["counts"]), p["k"], p["tok"], p["words"]
    r = tutor.output.top_k_mistakes(probs, k)                               # the right one and every mistake at once
    right = r[None]
    choices = (num(right[tok]), num(r["k_plus"][tok]), num(r["k_minus"][tok]), num(r["no_renormalise"][tok]))

    stem = (f"次のトークンの確率が {_prob_list(words, probs)} だった。top-k サンプリング（$k = {k}$）で、"
            f"確率の高い順に残した候補の確率を合計 1 になるように直したとき、「{words[tok]}」が選ばれる確率{BEST}")
    notes = (
        mc("k の数え間違い（多い）", f"候補を {k} 個ではなく 1 個多く残して正規化し直した。"),
        mc("k の数え間違い（少ない）", f"候補を {k} 個ではなく 1 個少なく残して正規化し直した。"),
        mc("正規化し直しの忘れ", "残した候補の確率を元のまま使った。残した候補の合計で割って、合計 1 に直す。"),
    )
    kept = [int(i) for i in np.flatnonzero(right > 0)]
    mass = tutor.output.kept_distribution(probs, "top_k", k=k).kept_mass   # = top_k_sample(…).kept_mass, no draw needed
    expl = (f"確率の高い {k} 個（{'、'.join(words[i] for i in kept)}）を残すと、その合計は {num(mass, 2)}。"
            f"「{words[tok]}」の {num(probs[tok], 2)} をこれで割って {choices[0]}。")
    return draft(choices[0], choices[1:], stem, notes, expl)


# ---------------------------------------------------------------------------
def _params_topp(rng: np.random.Generator) -> dict:
    return {"counts": _twentieths(rng), "p": float(pick(rng, (0.5, 0.6, 0.7, 0.8, 0.9))), "words": _labels(rng, 5)}


@calc_generator("output.top_p_blank", "output", _params_topp, advanced=True)
def _top_p_blank(p: dict) -> Draft:
    """(ア) the greedy token, (イ) how many tokens top-p keeps, (ウ) their total probability."""
    probs, top_p, words = _probs(p["counts"]), p["p"], p["words"]
    g = tutor.output.greedy(probs)
    rs = tutor.output.top_p_mistakes(probs, top_p)                          # the right kept set and both mistakes at once

    def kept(mistake=None) -> dict:
        r = rs[mistake]
        return {1: f"{len(r.kept)} 個", 2: num(r.mass, 2)}

    right = (f"「{words[g.index]}」", *kept().values())
    greedy = ("貪欲法の取り違え", "貪欲法は確率がいちばん低いトークンを選ぶと考えた（実際は最大のトークン）",
              {0: f"「{words[int(g.ranking[-1])]}」"})
    stop = two_slips(right, greedy, ("p に届く手前で止めた", f"合計が {num(top_p, 1)} を超えない所で止めた（top-p は合計が p 以上になる最初の所までを残す）",
                                     kept("stop_before")))
    ascending = two_slips(right, greedy, ("低い順に足した", "確率の低いトークンから足していった（top-p は高い順に足して、珍しいトークンを切り捨てる）",
                                          kept("ascending")))
    if (stop or ascending) is None:
        return redraw()
    wrong, notes = stop or ascending

    stem = (f"{BLANK}\n\n次のトークンの確率が {_prob_list(words, probs)} だった。貪欲法で選ばれるのは（ア）である。"
            f"top-p サンプリング（$p = {num(top_p, 1)}$）では、確率の高い順に足していき合計が $p$ 以上になったところまでの"
            f"（イ）の候補を残し、その元の確率の合計は（ウ）になる。")
    r = rs[None]
    expl = (f"貪欲法は最大の「{words[g.index]}」（{num(probs[g.index], 2)}）。高い順に足すと、"
            f"{'、'.join(words[i] for i in r.kept)} で合計 {num(r.mass, 2)} となり、初めて $p = {num(top_p, 1)}$ 以上になる。"
            f"残すのは {len(r.kept)} 個で、その中で正規化し直してからくじを引く。")
    return draft(blank(*right), wrong, stem, notes, expl)


# ---------------------------------------------------------------------------
def _params_worst(rng: np.random.Generator) -> dict:
    a, b = sorted((i + 1 for i in sample(rng, 4, 2)), reverse=True)   # = rng.choice(np.arange(1, 5), …)
    return {"z": (a, b, 0), "words": _labels(rng, 3)}


@calc_generator("output.temperature_worst", "output", _params_worst)
def _temperature_worst(p: dict) -> Draft:
    """Statements about the largest probability at T = 0.5, 1, 2; the wrong one inverts T."""
    z, words = np.array(p["z"], float), p["words"]
    at_1, at_05, at_2 = (row.probs for row in tutor.output.temperature_table(z, (1.0, 0.5, 2.0)))   # softmax(z / T), z checked once
    top = int(tutor.output.greedy(at_1).index)
    p1, p05, p2, p2_inv = (num(at_1[top]), num(at_05[top]), num(at_2[top]),
                           num(tutor.output.temperature_mistake(z, 2.0, "inverted")[top]))
    stem = (f"次のトークンの候補「{words[0]}」「{words[1]}」「{words[2]}」のロジットが ${tex_vec(p['z'])}$ の言語モデルで、"
            f"温度 $T$ を変えて $\\mathrm{{softmax}}(z/T)$ を計算した。「{words[top]}」の確率についての記述{WORST}")
    answer = f"$T = 2$ にすると、「{words[top]}」の確率は {p2_inv} になる。"
    wrong = (
        (f"$T = 1$ では、「{words[top]}」の確率は {p1} である。",
         mc("正しい記述（T = 1）", "温度 1 はふつうの softmax と同じである。")),
        (f"$T = 0.5$ にすると、「{words[top]}」の確率は {p05} に上がる。",
         mc("正しい記述（T < 1）", "温度を下げるとロジットの差が広がり、分布が尖る。")),
        (f"$T = 2$ にすると、「{words[top]}」の確率は {p2} に下がる。",
         mc("正しい記述（T > 1）", "温度を上げるとロジットの差が縮み、分布が平らになる。")),
    )
    expl = (f"$T = 2$ ではロジットを 2 で割るので差が縮み、最大の確率は {p1} から {p2} に下がる。"
            f"{p2_inv} は $T$ を掛けてしまったとき（$T = 0.5$ と同じ）の値で、温度の向きが逆である。")
    return Draft(stem, answer, wrong, expl)
