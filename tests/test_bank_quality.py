"""The knowledge bank's answer-pattern gate (issue 15 §1): a test-wise learner must score at chance.

Two tricks are measured on what a learner reads (placeholders ``[[…]]`` filled as the loader fills
them, math markup ``$…$`` reduced to its visible symbols):

- "pick the longest choice": over the single-answer items (forms ``best`` / ``worst``) the right
  choice may be the strictly longest one in at most 30 % of them (chance is 25 %). The reverse
  trick ("pick the shortest") is held to the same line, so that the cure does not become a cue.
- "pick the combination that agrees most with the others" (穴埋め, form ``blank``): every
  candidate word of a blank appears in exactly two of the four choices, and the expected score
  of the majority trick (ties broken at random) is at most 25 %.

The calculation generators' 穴埋め questions (quizzes.GENERATORS, kind "calc") are held to the same
rule over CALC_SEEDS: the majority trick scores at most 25 %, and not below REVERSE_MIN either. A
generator whose right combination is (almost) never the most agreeing one teaches the reverse trick
("avoid the combination that agrees most"): with four choices, a learner who drops the top-agreeing
choices then picks among the rest and beats 25 %. The majority score is meaningful on a calc item
because its wrong values are computed slips, not hand-picked words; a score under 10 % over 200
seeds (e.g. mask.order_blank measured 0 % before its choices were rebuilt) is far below what a fair
draw gives (exactly 25 % when every candidate appears twice, and a fair item seldom strays more than
a few points), so REVERSE_MIN = 10 % flags the reverse cue without flagging noise. Every calc 穴埋め
generator builds its choices with quizzes.calc.two_slips (each candidate value in exactly two
choices), which this file checks too. A self-check shows the measurements detect a cue-laden toy item.
"""
from __future__ import annotations

import re
from collections import Counter

import pytest

import quizzes
from quizzes import knowledge
from quizzes.core import GENERATOR_INFO

LONGEST_MAX = 0.30          # share of single-answer items whose right choice is strictly longest
SHORTEST_MAX = 0.30         # … strictly shortest (the reverse cue)
RANK_MAX = 0.35            # … any "pick the k-th longest" strategy (k = 1 … 4)
MAJORITY_MAX = 0.25         # expected score of the majority trick over the 穴埋め items
REVERSE_MIN = 0.10          # … and not so low that "avoid the majority" becomes the trick (calc items)
CALC_SEEDS = range(200)

# calc 穴埋め generators allowed above MAJORITY_MAX or below REVERSE_MIN: none (issue 15 §1)
KNOWN_MAJORITY_CUED: set[str] = set()

# ---------------------------------------------------------------------------
# what a learner reads
# ---------------------------------------------------------------------------
_SYMBOLS = {
    "times": "×", "cdot": "·", "top": "ᵀ", "infty": "∞", "delta": "δ", "partial": "∂", "dots": "…",
    "ldots": "…", "to": "→", "sum": "Σ", "neq": "≠", "gamma": "γ", "beta": "β", "alpha": "α",
    "epsilon": "ε", "varepsilon": "ε", "theta": "θ", "le": "≤", "ge": "≥", "leq": "≤", "geq": "≥",
    "approx": "≈", "log": "log", "exp": "exp", "sin": "sin", "cos": "cos", "max": "max", "in": "∈",
    "pm": "±", "mu": "μ", "sigma": "σ", "odot": "⊙", "oplus": "⊕", "lambda": "λ", "pi": "π",
}


def _math(tex: str) -> str:
    """A $…$ formula as it is read: \\text{ab} → ab, \\sqrt{x} → √x, \\frac{a}{b} → a/b,
    named symbols → one character, sizing commands, braces, ^ and _ dropped."""
    tex = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"\1/\2", tex)
    tex = re.sub(r"\\sqrt", "√", tex)
    tex = re.sub(r"\\(?:text|mathrm|mathbf|mathit|operatorname)\s*", "", tex)
    tex = re.sub(r"\\(?:left|right|big|Big|bigg|Bigg)\b", "", tex)
    tex = re.sub(r"\\([a-zA-Z]+)", lambda m: _SYMBOLS.get(m.group(1), ""), tex)
    tex = re.sub(r"\\[,;:! ]", " ", tex)
    tex = tex.replace("\\\\", " ").replace("\\", "")
    tex = re.sub(r"[{}^_]", "", tex)
    return re.sub(r"\s+", " ", tex).strip()


def visible(text: str) -> str:
    """The text a learner sees: placeholders filled from the engine's facts, math reduced."""
    facts = knowledge.facts()
    text = re.sub(r"\[\[([a-z0-9_]+)\]\]", lambda m: facts[m.group(1)], text)
    text = re.sub(r"\$([^$]+)\$", lambda m: _math(m.group(1)), text)
    return re.sub(r"\s+", " ", text).strip()


def strictly_longest(answer: str, wrong: list[str]) -> bool:
    return len(visible(answer)) > max(len(visible(w)) for w in wrong)


def strictly_shortest(answer: str, wrong: list[str]) -> bool:
    return len(visible(answer)) < min(len(visible(w)) for w in wrong)


# ---------------------------------------------------------------------------
# 穴埋め: the combinations
# ---------------------------------------------------------------------------
_BLANK = re.compile(r"[（(]([ア-ン])[）)]")


def blanks(choice: str) -> dict[str, str]:
    """'（ア）64　（イ）8' → {'ア': '64', 'イ': '8'} (visible text, whitespace trimmed)."""
    parts = _BLANK.split(visible(choice))
    return {parts[i]: parts[i + 1].strip(" 　") for i in range(1, len(parts) - 1, 2)}


def majority_score(choices: list[str], answer: int) -> float:
    """Expected score of the trick 'pick the combination whose words the other choices share
    most' (each blank's word counted over the four choices; ties broken at random)."""
    combos = [blanks(c) for c in choices]
    counts = {label: Counter(c.get(label) for c in combos) for label in combos[answer]}
    agree = [sum(counts[label][c.get(label)] for label in counts) for c in combos]
    top = [i for i, a in enumerate(agree) if a == max(agree)]
    return 1 / len(top) if answer in top else 0.0


def unbalanced_blanks(choices: list[str]) -> list[str]:
    """Blanks where some candidate word does not appear in exactly two of the four choices."""
    combos = [blanks(c) for c in choices]
    labels = sorted({label for c in combos for label in c})
    out = []
    for label in labels:
        counts = Counter(c.get(label) for c in combos)
        if set(counts.values()) != {2}:
            out.append(f"（{label}）{dict(counts)}")
    return out


# ---------------------------------------------------------------------------
# the bank
# ---------------------------------------------------------------------------
def _items(*forms: str) -> list[dict]:
    return [it for items in knowledge.bank().values() for it in items if it["form"] in forms]


def longest_share(items) -> tuple[float, list[str]]:
    hits = [it["id"] for it in items if strictly_longest(it["answer"], [w["text"] for w in it["wrong"]])]
    return len(hits) / len(items), hits


def shortest_share(items) -> tuple[float, list[str]]:
    hits = [it["id"] for it in items if strictly_shortest(it["answer"], [w["text"] for w in it["wrong"]])]
    return len(hits) / len(items), hits


def rank_pick_score(answer: str, wrong: list[str], k: int) -> float:
    """Chance that 'pick the k-th longest choice' (k = 1 … 4, ties broken at random) hits the answer."""
    lengths = [len(visible(answer))] + [len(visible(w)) for w in wrong]
    longer = sum(n > lengths[0] for n in lengths)
    tied = sum(n == lengths[0] for n in lengths)          # includes the answer itself
    return 1 / tied if longer < k <= longer + tied else 0.0


def rank_scores(items) -> list[float]:
    """Expected score of each length-rank strategy (longest, 2nd, 3rd, shortest) over the items."""
    return [sum(rank_pick_score(it["answer"], [w["text"] for w in it["wrong"]], k) for it in items) / len(items)
            for k in (1, 2, 3, 4)]


def test_the_measurements_see_a_cue():
    """A toy item with the usual cues: the long careful answer, and one-blank distractors."""
    toy = {"id": "toy.k01", "answer": "$d_k$ が大きいと内積のばらつきが大きくなり、softmax が飽和するのを防ぐため",
           "wrong": [{"text": "計算量を減らすため"}, {"text": "符号をそろえるため"}, {"text": "長さを 1 にするため"}]}
    assert strictly_longest(toy["answer"], [w["text"] for w in toy["wrong"]])
    assert longest_share([toy])[0] == 1.0
    assert not strictly_shortest(toy["answer"], [w["text"] for w in toy["wrong"]])
    assert rank_scores([toy]) == [1.0, 0.0, 0.0, 0.0]
    tied = {"answer": "四文字だ", "wrong": [{"text": "五文字です"}, {"text": "同じ長さ"}, {"text": "短い"}]}
    assert rank_scores([tied]) == [0.0, 0.5, 0.5, 0.0]      # tied with a distractor: 2nd or 3rd, half each
    cued = ["（ア）64　（イ）8　（ウ）1", "（ア）512　（イ）8　（ウ）1", "（ア）64　（イ）64　（ウ）1", "（ア）64　（イ）8　（ウ）8"]
    assert majority_score(cued, 0) == 1.0
    assert unbalanced_blanks(cued)
    fair = ["（ア）64　（イ）8　（ウ）1", "（ア）64　（イ）64　（ウ）8", "（ア）512　（イ）8　（ウ）8", "（ア）512　（イ）64　（ウ）1"]
    assert majority_score(fair, 0) == 0.25
    assert unbalanced_blanks(fair) == []
    # math markup counts as what is read, placeholders as the loader fills them
    assert visible("$\\sqrt{d_k}$ で割る") == "√dk で割る"
    assert visible("$d_k = [[paper_d_k]]$") == "dk = 64"
    assert visible("$\\text{softmax}(QK^\\top)$") == "softmax(QKᵀ)"


def test_right_choice_is_rarely_the_longest():
    items = _items("best", "worst")
    assert len(items) >= 80
    share, hits = longest_share(items)
    assert share <= LONGEST_MAX, f"right choice strictly longest in {len(hits)}/{len(items)} ({share:.0%}): {hits}"


def test_right_choice_is_rarely_the_shortest():
    items = _items("best", "worst")
    share, hits = shortest_share(items)
    assert share <= SHORTEST_MAX, f"right choice strictly shortest in {len(hits)}/{len(items)} ({share:.0%}): {hits}"


def test_no_length_rank_beats_chance_by_much():
    """'Pick the 2nd longest' (or 3rd) must not become the trick that replaced 'pick the longest'."""
    scores = rank_scores(_items("best", "worst"))
    assert abs(sum(scores) - 1) < 1e-9
    assert max(scores) <= RANK_MAX, f"length-rank strategies (longest, 2nd, 3rd, shortest): {[round(x, 3) for x in scores]}"


def test_blank_words_each_appear_in_two_choices():
    items = _items("blank")
    assert len(items) >= 12
    bad = {}
    for it in items:
        texts = [it["answer"]] + [w["text"] for w in it["wrong"]]
        assert len(blanks(texts[0])) >= 2, f"{it['id']}: answer not in （ア）…（イ）… form"
        assert all(set(blanks(t)) == set(blanks(texts[0])) for t in texts), f"{it['id']}: blanks differ"
        if unbalanced_blanks(texts):
            bad[it["id"]] = unbalanced_blanks(texts)
    assert bad == {}


def test_majority_trick_is_at_chance_on_the_bank():
    items = _items("blank")
    scores = [majority_score([it["answer"]] + [w["text"] for w in it["wrong"]], 0) for it in items]
    assert sum(scores) / len(scores) <= MAJORITY_MAX


def _calc_blank_ids() -> list[str]:
    out = []
    for gid, info in sorted(GENERATOR_INFO.items()):
        kind = info.kind
        if kind == "calc" and len(blanks(quizzes.GENERATORS[gid](0).choices[0])) >= 2:
            out.append(gid)
    return out


def calc_majority_scores() -> dict[str, float]:
    """{calc 穴埋め generator: expected score of the majority trick over CALC_SEEDS}."""
    out = {}
    for gid in _calc_blank_ids():
        qs = [quizzes.GENERATORS[gid](seed) for seed in CALC_SEEDS]
        out[gid] = sum(majority_score(list(q.choices), q.answer) for q in qs) / len(qs)
    return out


def test_calc_blank_generators_majority_measured():
    """Every calc 穴埋め generator: the majority trick scores ≤ 25 % and ≥ REVERSE_MIN over CALC_SEEDS."""
    scores = calc_majority_scores()
    assert len(scores) >= 9
    cued = {gid for gid, s in scores.items() if s > MAJORITY_MAX}
    reverse = {gid for gid, s in scores.items() if s < REVERSE_MIN}
    print({gid: round(s, 3) for gid, s in scores.items()})
    assert cued - KNOWN_MAJORITY_CUED == set(), f"majority-cued calc generators: {sorted(cued - KNOWN_MAJORITY_CUED)}"
    assert reverse - KNOWN_MAJORITY_CUED == set(), f"reverse-cued calc generators: {sorted(reverse - KNOWN_MAJORITY_CUED)}"


def test_calc_blank_values_each_appear_in_two_choices():
    """The construction behind the score: in every calc 穴埋め question every candidate value of a
    blank appears in exactly two of the four choices (quizzes.calc.two_slips)."""
    bad = {}
    for gid in _calc_blank_ids():
        for seed in range(60):
            q = quizzes.GENERATORS[gid](seed)
            if unbalanced_blanks(list(q.choices)):
                bad.setdefault(gid, []).append(seed)
    assert bad == {}


def test_the_calc_gate_sees_a_reverse_cue():
    """A calc-style item whose answer never agrees most (the old mask.order_blank shape: the answer
    shares (ア) with one slip only, the others share values among themselves) scores 0."""
    old = ["（ア）足す　（イ）0.5　（ウ）1", "（ア）掛ける　（イ）0.3　（ウ）0.6", "（ア）置換　（イ）0.3　（ウ）1",
           "（ア）足す　（イ）0.3　（ウ）1"]
    assert majority_score(old, 0) < REVERSE_MIN
    assert unbalanced_blanks(old)


@pytest.mark.parametrize("form", ["best", "worst", "blank"])
def test_every_item_reads_without_unknown_markup(form):
    for it in _items(form):
        for text in [it["stem"], it["answer"]] + [w["text"] for w in it["wrong"]]:
            assert "\\" not in visible(text), f"{it['id']}: {visible(text)!r}"


# ---------------------------------------------------------------------------
# 発展 tag and moved items (issue 15 §3)
# ---------------------------------------------------------------------------
BEYOND_SYLLABUS = ("FlashAttention", "RoPE", "RMSNorm", "SwiGLU", "top-p", "\\delta_{ij}")


def test_items_beyond_the_syllabus_are_tagged_advanced():
    """An item whose stem or choices need FlashAttention, RoPE, RMSNorm, SwiGLU, top-p or the softmax
    Jacobian carries "advanced": true (shown on the pages, not drawn into the mock exam by default)."""
    untagged = []
    for it in _items("best", "worst", "blank"):
        text = it["stem"] + it["answer"] + "".join(w["text"] for w in it["wrong"])
        if any(term in text for term in BEYOND_SYLLABUS) and it.get("advanced") is not True:
            untagged.append(it["id"])
    assert untagged == []
    advanced = {it["id"] for it in _items("best", "worst", "blank") if it.get("advanced")}
    assert {"training.k07", "training.k08", "training.k03"} <= advanced      # the app's demo, the softmax Jacobian
    # most of the bank is the syllabus; each item's tag follows the syllabus map (tests/test_syllabus.py), so
    # this only catches a bank drifting into 発展 (a fifth was a guess made before the map; the new pages'
    # 発展 neighbours — RoBERTa, LoRA, BLEU … — are named by the standard texts, not by the syllabus)
    assert len(advanced) < len(_items("best", "worst", "blank")) / 3


def test_moved_items_map_old_ids_to_new_ones():
    renamed = knowledge.renamed_ids()
    assert renamed == {"kb.multihead.k04": "kb.block.k10", "kb.multihead.k05": "kb.block.k11",
                       "kb.multihead.k06": "kb.block.k12",
                       "kb.seq2seq.k11": "kb.wordvec.k01", "kb.seq2seq.k12": "kb.wordvec.k02",   # word vectors: ⓪-2 → ⓪-1
                       "kb.seq2seq.k31": "kb.wordvec.k03", "kb.seq2seq.k32": "kb.wordvec.k04",
                       # ⑩-1's assistant part moved to ⑩-2 (issue 43)
                       "kb.llm.k07": "kb.adapt.k01", "kb.llm.k08": "kb.adapt.k02", "kb.llm.k09": "kb.adapt.k03",
                       "kb.llm.k10": "kb.adapt.k04", "kb.llm.k11": "kb.adapt.k05", "llm.reward_loss": "adapt.reward_loss",
                       # ⑩-1's inference part moved to ⑩-3 (issue 43)
                       "kb.llm.k15": "kb.efficient.k01", "kb.llm.k16": "kb.efficient.k02", "kb.llm.k17": "kb.efficient.k03",
                       "llm.kv_cache": "efficient.kv_cache",
                       # ⑩-1's CLIP moved to ⑪ (issue 43)
                       "kb.llm.k22": "kb.multimodal.k01", "kb.llm.k23": "kb.multimodal.k02"}
    for old, new in renamed.items():
        assert old not in quizzes.GENERATORS and new in quizzes.GENERATORS
        assert GENERATOR_INFO[new][0] == new.removeprefix("kb.").split(".")[0]   # the new id names its topic
    assert len(set(renamed.values())) == len(renamed)


def test_optional_fields_are_checked():
    good = {"id": "naive.kx", "form": "best", "stem": "問", "answer": "A",
            "wrong": [{"text": t, "why": "名前：理由の文"} for t in "BCD"],
            "explanation": "あ" * 40, "keywords": ["Attention"]}
    knowledge.validate_item({**good, "advanced": True, "moved_from": "qkv.k09"}, "naive")
    for broken in ({**good, "advanced": "yes"}, {**good, "moved_from": 3}, {**good, "hidden": True}):
        with pytest.raises(knowledge.QuizError):
            knowledge.validate_item(broken, "naive")
