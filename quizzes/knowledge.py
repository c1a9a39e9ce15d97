"""The knowledge bank (知識問題): the team's own Japanese questions, kept as data.

Files: ``quizzes/data/<topic>.json``::

    {"topic": "naive",
     "questions": [
       {"id": "naive.k01",                     # unique, stable
        "form": "best" | "worst" | "blank",     # 最も適切 / 不適切 / (ア)(イ)(ウ) 穴埋め
        "stem": "...",                          # Markdown
        "answer": "...",
        "wrong": [{"text": "...", "why": "誤解の名前：なぜ違うか"}, x3],
        "explanation": "...",                   # ≥ 40 characters
        "keywords": ["Attention", ...],        # syllabus keywords it covers
        "advanced": true,                       # optional: 発展 (beyond the syllabus), default false
        "moved_from": "multihead.k04",          # optional: the item's former id (see renamed_ids)
        "fact": "softmax_rows"}]}               # optional: items that test the same fact share a name
                                                # (siblings: a review of one may show another, fact_groups)

A number that depends on the engine is written as a placeholder ``[[name]]`` and filled
from :data:`FACTS`, which the engine computes (e.g. ``[[paper_d_k]]`` → 64).
Each item becomes its own generator ``kb.<id>``; the seed only shuffles the choices.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

import tutor
from tutor import numfmt
from tutor import textbook as tb

from .core import MOVED, TOPICS, Draft, QuizError, register

DATA_DIR = Path(__file__).with_name("data")
FORMS = ("best", "worst", "blank")
ITEM_KEYS = {"id", "form", "stem", "answer", "wrong", "explanation", "keywords"}
OPTIONAL_KEYS = {"advanced": bool, "moved_from": str, "fact": str}   # absent = not advanced / never renamed / its own fact
FACT_NAME = re.compile(r"[a-z0-9_]{1,40}")
NOT_BANK = frozenset({"misconceptions.json", "glossary.json", "syllabus.json"})   # other data in data/: quizzes.misconceptions, quizzes.glossary, quizzes.syllabus
_PLACEHOLDER = re.compile(r"\[\[([a-z0-9_]+)\]\]")


def _fmt(x: float) -> str:
    return numfmt.grouped(x) if float(x).is_integer() else numfmt.significant(x, 4)


def engine_facts() -> dict[str, float]:
    """Numbers the knowledge questions quote, each computed by one explicit engine call."""
    d_model, h, n, d = tb.PAPER_D_MODEL, tb.PAPER_HEADS, tb.COST_N, tb.COST_D
    d_k = tutor.head_dim(d_model, h)
    temperature_top = {t: numfmt.round_half_up(tutor.output.probabilities(tb.TEMPERATURE_LOGITS, t)[0], 3)
                       for t in (1.0, 0.5, 2.0)}
    out = {
        # the paper's sizes (① – ⑥)
        "paper_d_model": d_model,
        "paper_heads": h,
        "paper_layers": tb.PAPER_LAYERS,
        "paper_d_k": d_k,
        "paper_sqrt_d_k": tutor.scaling.score_divisor(d_k),
        "paper_sqrt_d_model": tutor.scaling.score_divisor(d_model),
        "paper_var_qk": tutor.scaling.dot_product_variance(d_k),
        "paper_concat_width": tutor.multihead.concat_width(d_model, h),
        "paper_mha_params": tutor.multihead.mha_param_count(d_model),
        "paper_one_matrix_params": tutor.multihead.mha_param_count_mistake(d_model, h, "one_matrix"),
        # ⑦: the layer, the encoder–decoder, generation, cost
        "paper_d_ff": tb.PAPER_D_FF,
        "paper_ffn_params": tutor.block.ffn_param_count(d_model, tb.PAPER_D_FF),
        "paper_attention_sublayers": tutor.encdec.attention_sublayers(tb.PAPER_LAYERS),
        "cost_n": n,
        "cost_d": d,
        "cost_self_attention_ops": tutor.cost.layer_cost("self_attention", n, d).operations,
        "cost_recurrent_ops": tutor.cost.layer_cost("recurrent", n, d).operations,
        "cost_growth_double_n": tutor.cost.cost_growth("self_attention", 2, 1),
        "temp_max_t1": temperature_top[1.0],
        "temp_max_t05": temperature_top[0.5],
        "temp_max_t2": temperature_top[2.0],
    }
    return out


@lru_cache(maxsize=1)
def facts() -> dict[str, str]:
    """The placeholders ``[[name]]`` of the knowledge bank, filled from :func:`engine_facts`."""
    return {k: _fmt(v) if isinstance(v, (int, float)) else str(v) for k, v in engine_facts().items()}


def _fill(text: str, where: str) -> str:
    def sub(m: re.Match) -> str:
        name = m.group(1)
        if name not in facts():
            raise QuizError(f"{where}: 未知のプレースホルダ [[{name}]]")
        return facts()[name]
    return _PLACEHOLDER.sub(sub, text)


def validate_item(item: dict, topic: str) -> None:
    """Raise QuizError (Japanese) if a bank item breaks the schema."""
    where = f"{topic}:{item.get('id', '?')}"
    if not isinstance(item, dict) or not ITEM_KEYS <= set(item) <= ITEM_KEYS | set(OPTIONAL_KEYS):
        raise QuizError(f"{where}: キーが {sorted(ITEM_KEYS)}（任意で {sorted(OPTIONAL_KEYS)}）と一致しません")
    for key, kind in OPTIONAL_KEYS.items():
        if key in item and not isinstance(item[key], kind):
            raise QuizError(f"{where}: {key} の型が {kind.__name__} ではありません")
    if "fact" in item and not FACT_NAME.fullmatch(item["fact"]):
        raise QuizError(f"{where}: fact は英小文字・数字・_ の 40 文字までの名前にしてください")
    if not isinstance(item["id"], str) or not item["id"].startswith(topic + "."):
        raise QuizError(f"{where}: id は '{topic}.' で始まる文字列にしてください")
    if item["form"] not in FORMS:
        raise QuizError(f"{where}: form は {FORMS} のどれか")
    for key in ("stem", "answer", "explanation"):
        if not isinstance(item[key], str) or not item[key].strip():
            raise QuizError(f"{where}: {key} が空です")
    if len(item["explanation"]) < 40:
        raise QuizError(f"{where}: 解説は 40 文字以上")
    wrong = item["wrong"]
    if not isinstance(wrong, list) or len(wrong) != 3:
        raise QuizError(f"{where}: 誤答はちょうど 3 つ")
    for w in wrong:
        if not isinstance(w, dict) or set(w) != {"text", "why"} or not all(isinstance(w[k], str) and w[k].strip() for k in w):
            raise QuizError(f"{where}: 誤答は {{text, why}} の空でない文字列")
    texts = [item["answer"]] + [w["text"] for w in wrong]
    if len({t.strip() for t in texts}) != 4:
        raise QuizError(f"{where}: 4 つの選択肢が区別できません")
    if not isinstance(item["keywords"], list) or not all(isinstance(k, str) for k in item["keywords"]):
        raise QuizError(f"{where}: keywords は文字列のリスト")


@lru_cache(maxsize=1)
def bank() -> dict[str, list[dict]]:
    """{topic: [validated items]} read from quizzes/data/*.json."""
    out: dict[str, list[dict]] = {}
    seen: set[str] = set()
    for path in sorted(DATA_DIR.glob("*.json")):
        if path.name in NOT_BANK:
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        topic = data.get("topic")
        if topic not in TOPICS or path.stem != topic:
            raise QuizError(f"{path.name}: topic {topic!r} がファイル名または既知のトピックと合いません")
        for item in data["questions"]:
            validate_item(item, topic)
            if item["id"] in seen:
                raise QuizError(f"{path.name}: id {item['id']} が重複しています")
            seen.add(item["id"])
            out.setdefault(topic, []).append(item)
    return out


def _draft_fn(item: dict, topic: str):
    where = f"{topic}:{item['id']}"

    def draft(rng) -> Draft:  # the seed only shuffles the choices (done by the registry)
        return Draft(
            stem=_fill(item["stem"], where),
            correct=_fill(item["answer"], where),
            wrong=tuple((_fill(w["text"], where), _fill(w["why"], where)) for w in item["wrong"]),
            explanation=_fill(item["explanation"], where),
        )
    return draft


def renamed_ids() -> dict[str, str]:
    """{old generator id: new generator id} for every generator that moved to another topic: bank
    items with ``moved_from`` (``{"kb.multihead.k04": "kb.block.k10"}``: the same question, only the
    choice order may differ) and calculation generators registered with ``moved_from`` (the same
    skill; a seed may draw other numbers under the new id). quizzes.core.MOVED, as a copy."""
    return dict(MOVED)


@lru_cache(maxsize=1)
def fact_groups() -> dict[str, tuple[str, ...]]:
    """{fact name: the generator ids of the bank items that name it (sorted)}, e.g.
    ``{"softmax_rows": ("kb.naive.k03", "kb.qkv.k06")}``: siblings, different wordings of one fact.
    An item without ``fact`` is a fact of its own and is not listed (practice.skill)."""
    groups: dict[str, list[str]] = {}
    for items in bank().values():
        for item in items:
            if "fact" in item:
                groups.setdefault(item["fact"], []).append(f"kb.{item['id']}")
    return {name: tuple(sorted(ids)) for name, ids in groups.items()}


def keywords_covered() -> dict[str, int]:
    """How many bank questions name each syllabus keyword."""
    counts: dict[str, int] = {}
    for items in bank().values():
        for item in items:
            for kw in item["keywords"]:
                counts[kw] = counts.get(kw, 0) + 1
    return counts


for _topic, _items in bank().items():
    for _item in _items:
        register(f"kb.{_item['id']}", _topic, _draft_fn(_item, _topic), kind="knowledge",
                 advanced=_item.get("advanced", False),
                 moved_from=f"kb.{_item['moved_from']}" if "moved_from" in _item else None)
