"""The mock exam (模擬試験): assembling a paper, the exam in progress, the clock, and scoring.

Pure Python (no streamlit). As in the real G検定, knowledge questions are the paper and
calculation questions a handful (DEFAULT_CALC_SHARE, about 3 %: the real exam is said to
have 2–4 in about 145); a setting raises the share. Items tagged 発展 (beyond the syllabus,
``quizzes.is_advanced``) stay on the pages unless the learner asks for them. The default
pace is the real exam's ≈ 40 s per question.

The exam in progress is a plain JSON-able dict (see STATE_KEYS and :func:`new_exam`), so it
can be kept in the learner's browser and read back through :func:`validate_state`. The
server's clock is the authority: the time left is computed from ``started_at`` (epoch
seconds, written by the server when the paper was started), never from anything the browser
sends, and an answer that arrives after the deadline does not count.

Every state function returns a new dict and never changes its argument:

    state = new_exam(n, pace, seed, now)      # start
    state = answer(state, i, choice, now)     # ignored once time is up
    state = set_flag(state, i, True) / go_to(state, i)
    record = submit(state, now)               # scored; the deadline caps the time used
"""
from __future__ import annotations

import math
import random
import re
import time
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone, tzinfo

from quizzes.core import GENERATOR_INFO, SEED_SPACE, TOPICS, Question, QuizError, from_id

from .progress import MAX_EXAMS_KEPT, apply_answers
from .record import ExamState, required
from .skill import unseen_first

LENGTHS = (10, 20, 40)
DEFAULT_PACE_S = 40          # seconds per question (about 145 questions in 100 minutes)
PACE_CHOICES = (30, 40, 60, 90)
DEFAULT_CALC_SHARE = 0.03    # 本番並み: a handful of calculations (2–4 in ~145 → about 3 %)
CALC_SHARE_CHOICES = (0.03, 0.1, 0.2)
CALC_SHARE_LABELS = {0.03: "本番並み（約 3 %）", 0.1: "多め（約 1 割）", 0.2: "計算の練習（約 2 割）"}
CALC_SHARE = DEFAULT_CALC_SHARE   # the default share (older name)

# the exam in progress (validate_state checks exactly these keys)
STATE_VERSION = 1
STATE_KEYS = required(ExamState)
MAX_QUESTIONS = 200          # a paper never has more questions than this
MIN_PACE_S, MAX_PACE_S = 10, 600
EARLIEST_START = 1_704_067_200.0   # 2024-01-01T00:00:00Z: no paper was started before the app existed
CLOCK_SKEW_S = 60            # a start this far in the future is tolerated (server clocks drift)
STALE_AFTER_S = 7 * 86_400   # a paper whose deadline passed longer ago than this is not resumed
RUN_ID = re.compile(r"[0-9a-f]{8}")


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _spread(pool: list[str], n: int, rng: random.Random, seen: frozenset[str] = frozenset()) -> list[str]:
    """n generator ids from pool, each topic's share of the paper its share of the pool, no id twice
    until the pool is used up; within a topic, a skill the learner has not answered yet (``seen``:
    practice.skill.seen) comes before one they have.

    The pool follows the syllabus map (every in-scope keyword asked twice or more, 発展 left out by
    the map's tags: quizzes/data/syllabus.json), so a page that carries more of the syllabus —
    ⓪-1's word representations, ⑪'s multimodal models — gets more questions than one that teaches
    a single formula. A topic's count is n × its share rounded down or up (systematic sampling: one
    random start, then every whole step), so it is never more than one off its share, and a small
    topic is asked as often as its share says over many papers. Ids repeat only when n is larger
    than the pool (the pool in full first, then again).
    """
    if not pool or n <= 0:
        return []
    by_topic: dict[str, list[str]] = {}
    for gid in sorted(pool):
        by_topic.setdefault(GENERATOR_INFO[gid].topic, []).append(gid)
    topics = sorted(by_topic)
    rng.shuffle(topics)
    out: list[str] = []
    while len(out) < n:
        k = min(n - len(out), len(pool))
        start, edge, counts = rng.random(), 0.0, {}
        for t in topics:                   # the whole steps start + j that fall in the topic's stretch
            low, edge = edge, edge + k * len(by_topic[t]) / len(pool)
            counts[t] = math.ceil(edge - start - 1e-12) - math.ceil(low - start - 1e-12)
        for t in topics:
            queue = unseen_first(rng.sample(by_topic[t], len(by_topic[t])), seen)
            out += queue[:counts[t]]
    return out


def calc_count(n: int, calc_share: float = DEFAULT_CALC_SHARE) -> int:
    """Calculation questions wanted in an n-question paper: n × share, rounded half up."""
    if not (isinstance(calc_share, (int, float)) and 0.0 <= calc_share <= 1.0):
        raise ValueError(f"計算問題の割合は 0 以上 1 以下にしてください（{calc_share!r}）。")
    return min(int(n), math.floor(int(n) * calc_share + 0.5))


def exam_mix(n: int, n_calc_pool: int, n_know_pool: int,
             calc_share: float = DEFAULT_CALC_SHARE) -> tuple[int, int]:
    """(calculation, knowledge) counts for an n-question paper.

    About ``calc_share`` calculations (n × share rounded half up, so a short paper at the
    real exam's share may have none); knowledge questions are never repeated within a paper
    (the seed only reshuffles their choices), so when the bank has fewer than needed,
    calculations (fresh numbers each time) fill the rest.
    """
    if n < 1:
        raise ValueError("問題数は 1 以上にしてください。")
    n_calc = calc_count(n, calc_share)
    if n_know_pool == 0:
        return (n if n_calc_pool else 0), 0
    if n_calc_pool == 0:
        return 0, min(n, n_know_pool)
    n_know = min(n - n_calc, n_know_pool)
    return n - n_know, n_know


def exam_pool(advanced: bool = False) -> tuple[list[str], list[str]]:
    """(calculation, knowledge) generator ids a paper draws from; 発展 ones only if ``advanced``."""
    calc = sorted(g for g, info in GENERATOR_INFO.items()
                  if info.kind == "calc" and (advanced or not info.advanced))
    know = sorted(g for g, info in GENERATOR_INFO.items()
                  if info.kind == "knowledge" and (advanced or not info.advanced))
    return calc, know


def pool_topics(advanced: bool = False) -> list[str]:
    """The topics a paper draws from (quizzes.core.TOPICS order): what the start screen names."""
    calc, know = exam_pool(advanced)
    drawn = {GENERATOR_INFO[g].topic for g in calc + know}
    return [t for t in TOPICS if t in drawn]


def planned_mix(n: int, calc_share: float = DEFAULT_CALC_SHARE, advanced: bool = False) -> tuple[int, int]:
    """(calculation, knowledge) counts the paper will have with these settings (for the setup screen)."""
    calc, know = exam_pool(advanced)
    return exam_mix(n, len(calc), len(know), calc_share)


def build_exam(n: int, seed: int, *, calc_share: float = DEFAULT_CALC_SHARE,
               advanced: bool = False, seen: frozenset[str] = frozenset()) -> list[str]:
    """Question ids for an n-question paper mixing every topic; same arguments → same paper.

    Shorter than n only when there are no calculation generators and the knowledge bank
    is smaller than n (knowledge questions are not repeated). Items tagged 発展 are drawn
    only with ``advanced=True``. Skills in ``seen`` (practice.skill.seen) come after the
    unseen ones of their topic. Empty registry → [].
    """
    rng = random.Random(seed)
    calc, know = exam_pool(advanced)
    n_calc, n_know = exam_mix(n, len(calc), len(know), calc_share)
    picks = _spread(calc, n_calc, rng, seen) + _spread(know, n_know, rng, seen)
    rng.shuffle(picks)
    return [f"{g}#{rng.randrange(SEED_SPACE)}" for g in picks]


def _whole_seconds(x: float) -> int:
    """Whole seconds used, forgiving float noise below a millisecond (started + limit − started
    may come out as limit − 6e-8; datetimes from epoch seconds are rounded to microseconds)."""
    return int(math.floor(x + 1e-3))


def time_limit_s(n: int, pace_s: int = DEFAULT_PACE_S) -> int:
    return int(n) * int(pace_s)


Instant = datetime | float   # a datetime, or epoch seconds (time.time()) as the exam state keeps it


def elapsed_s(started_at: Instant, now: Instant) -> float:
    """Seconds from started_at to now (never negative); both datetimes or both epoch seconds."""
    if isinstance(started_at, datetime) and isinstance(now, datetime):
        return max(0.0, (now - started_at).total_seconds())
    if isinstance(started_at, datetime) or isinstance(now, datetime):
        raise TypeError("started_at and now must both be datetimes or both epoch seconds")
    return max(0.0, float(now) - float(started_at))


def remaining_s(started_at: Instant, now: Instant, limit_s: int) -> int:
    """Whole seconds left, rounded up (never negative): 0 exactly when time is up."""
    return max(0, math.ceil(limit_s - elapsed_s(started_at, now)))


def is_time_up(started_at: Instant, now: Instant, limit_s: int) -> bool:
    return remaining_s(started_at, now, limit_s) == 0


def format_clock(seconds: float) -> str:
    """Seconds → "m:ss" (or "h:mm:ss" from one hour)."""
    s = max(0, int(math.ceil(seconds)))
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def time_fraction_left(started_at: Instant, now: Instant, limit_s: int) -> float:
    """Share of the time still left, 0.0 … 1.0 (for a progress bar)."""
    if limit_s <= 0:
        return 0.0
    return min(1.0, remaining_s(started_at, now, limit_s) / limit_s)


Answers = Mapping[int, "int | None"] | Sequence["int | None"]   # index → choice, or one entry per question


def _choice(answers: Answers, i: int) -> int | None:
    if isinstance(answers, Mapping):
        return answers.get(i)
    return answers[i] if i < len(answers) else None


def paper_status(n: int, answers: Answers, flags) -> dict:
    """Counts and lists shown before submitting: answered, unanswered, flagged."""
    answered = [i for i in range(n) if _choice(answers, i) is not None]
    unanswered = [i for i in range(n) if _choice(answers, i) is None]
    flagged = sorted(i for i in set(flags) if 0 <= i < n)
    return {"answered": len(answered), "unanswered": unanswered, "flagged": flagged, "total": n}


def score_exam(questions: list[Question], answers: Answers) -> dict:
    """Score a paper. answers: question index → chosen index, as a dict or a list (None / missing = 未回答)."""
    items: list[dict] = []
    by_topic: dict[str, dict[str, int]] = {}
    for i, q in enumerate(questions):
        choice = _choice(answers, i)
        correct = choice is not None and choice == q.answer
        items.append({
            "qid": q.id, "topic": q.topic, "choice": choice, "answer": q.answer, "correct": correct,
            "misconception": q.misconceptions[choice] if choice is not None and not correct else "",
        })
        t = by_topic.setdefault(q.topic, {"correct": 0, "total": 0})
        t["total"] += 1
        t["correct"] += int(correct)
    score = sum(it["correct"] for it in items)
    unanswered = sum(it["choice"] is None for it in items)
    return {"score": score, "total": len(questions),
            "percent": 100.0 * score / len(questions) if questions else 0.0,
            "wrong": len(questions) - score - unanswered, "unanswered": unanswered,
            "by_topic": by_topic, "items": items}


# ---------------------------------------------------------------------------
# the exam in progress: a plain JSON-able dict
# ---------------------------------------------------------------------------
def new_exam(n: int, pace_s: int, seed: int, now: float, *, calc_share: float = DEFAULT_CALC_SHARE,
             advanced: bool = False, run: str | None = None, seen: frozenset[str] = frozenset()) -> dict:
    """Start a paper of (up to) n questions at ``now`` (epoch seconds).

    The state (STATE_KEYS)::

        {"v": 1,                       # STATE_VERSION
         "run": "9f3a0c1e",            # 8 hex digits naming this paper (its widgets' keys)
         "qids": ["qkv.projection#123", "kb.mask.k02#9", ...],   # the paper, in order
         "pace": 40,                   # seconds per question
         "limit": 400,                 # seconds for the paper = len(qids) × pace
         "started_at": 1764604800.0,   # epoch seconds, server clock; deadline = started_at + limit
         "answers": [None, 2, ...],    # one per question: None (未回答) or the chosen index 0–3
         "flags": [1, 4],              # sorted indices of flagged (チェック) questions
         "cur": 0}                     # the question on screen

    A generator that cannot make its question is left out rather than breaking the paper.
    ValueError (Japanese) when there is nothing to ask or the pace is out of range.
    """
    if not (_is_int(pace_s) and MIN_PACE_S <= pace_s <= MAX_PACE_S):
        raise ValueError(f"1 問あたりの時間は {MIN_PACE_S}〜{MAX_PACE_S} 秒の整数にしてください。")
    qids = []
    for qid in build_exam(min(int(n), MAX_QUESTIONS), seed, calc_share=calc_share, advanced=advanced, seen=seen):
        try:
            from_id(qid)
        except QuizError:
            continue
        qids.append(qid)
    if not qids:
        raise ValueError("出題できる問題がありません。")
    run = f"{random.Random(seed).getrandbits(32):08x}" if run is None else run
    if not RUN_ID.fullmatch(str(run)):
        raise ValueError("試験の識別子は 16 進 8 桁にしてください。")
    return {"v": STATE_VERSION, "run": str(run), "qids": qids, "pace": int(pace_s),
            "limit": time_limit_s(len(qids), pace_s), "started_at": float(now),
            "answers": [None] * len(qids), "flags": [], "cur": 0}


def questions(state: dict) -> list[Question]:
    """The paper's questions, regenerated from their ids (same id → same question)."""
    return [from_id(qid) for qid in state["qids"]]


def deadline(state: dict) -> float:
    """When time is up, in epoch seconds."""
    return float(state["started_at"]) + int(state["limit"])


def seconds_left(state: dict, now: float) -> int:
    return remaining_s(state["started_at"], now, state["limit"])


def is_over(state: dict, now: float) -> bool:
    """Time is up (the server's clock decides)."""
    return seconds_left(state, now) == 0


def fraction_left(state: dict, now: float) -> float:
    return time_fraction_left(state["started_at"], now, state["limit"])


def _copy(state: dict) -> dict:
    out = dict(state)
    out["qids"], out["answers"], out["flags"] = list(state["qids"]), list(state["answers"]), list(state["flags"])
    return out


def _index(state: dict, i) -> int:
    if not (_is_int(i) and 0 <= i < len(state["qids"])):
        raise ValueError(f"問題の番号が範囲外です（{i!r}）。")
    return i


def answer(state: dict, i: int, choice: int | None, now: float) -> dict:
    """The state with question i answered (None clears it); unchanged once time is up
    (an answer that arrives after the deadline does not count)."""
    _index(state, i)
    if choice is not None and not (_is_int(choice) and 0 <= choice < 4):
        raise ValueError(f"選択肢の番号は 0〜3 にしてください（{choice!r}）。")
    out = _copy(state)
    if not is_over(state, now):
        out["answers"][i] = choice
    return out


def set_flag(state: dict, i: int, on: bool) -> dict:
    """The state with question i flagged (チェック) or not."""
    _index(state, i)
    out = _copy(state)
    flags = set(out["flags"]) | {i} if on else set(out["flags"]) - {i}
    out["flags"] = sorted(flags)
    return out


def go_to(state: dict, i: int) -> dict:
    """The state showing question i (clamped to the paper)."""
    out = _copy(state)
    out["cur"] = max(0, min(len(state["qids"]) - 1, int(i)))
    return out


def next_flagged(state: dict) -> int | None:
    """The next flagged question after the current one (wrapping round); None if none is flagged."""
    flagged = sorted(state["flags"])
    later = [i for i in flagged if i > state["cur"]]
    return (later or flagged or [None])[0]


def status(state: dict) -> dict:
    return paper_status(len(state["qids"]), state["answers"], state["flags"])


def submit(state: dict, now: float, auto: bool = False) -> dict:
    """Score the paper with the answers given so far (未回答 = wrong). JSON-able::

        {"qids": [...], "answers": [...], "result": score_exam(...),
         "started_at": float, "finished_at": float,   # epoch seconds; finished_at ≤ the deadline
         "seconds": int, "limit": int, "pace": int, "auto": bool}
    """
    finished = min(float(now), deadline(state))
    result = score_exam(questions(state), state["answers"])
    return {"qids": list(state["qids"]), "answers": list(state["answers"]), "result": result,
            "started_at": float(state["started_at"]), "finished_at": finished,
            "seconds": min(int(state["limit"]), _whole_seconds(elapsed_s(state["started_at"], finished))),
            "limit": int(state["limit"]), "pace": int(state["pace"]), "auto": bool(auto)}


def local_time(ts: float, tz: tzinfo | None = None) -> datetime:
    """Epoch seconds → the wall-clock time in the learner's zone ``tz``, or in the server's own
    zone without one; aware either way (the progress keeps the time with its offset)."""
    return datetime.fromtimestamp(float(ts), timezone.utc).astimezone(tz)


def validate_state(obj, now: float | None = None) -> dict:
    """An exam in progress read back from untrusted storage → a fresh, checked copy.

    Strict: exactly STATE_KEYS; ``v`` == STATE_VERSION; ``run`` 8 hex digits; ``qids`` a list
    of 1 … MAX_QUESTIONS ids that name existing questions (quizzes.parse_id / from_id);
    ``pace`` an int in MIN_PACE_S … MAX_PACE_S; ``limit`` == len(qids) × pace; ``started_at``
    finite epoch seconds, not before EARLIEST_START, not more than CLOCK_SKEW_S after ``now``,
    and its deadline not more than STALE_AFTER_S before ``now`` (a paper whose time ran out
    earlier is resumed and submitted at once by the page); ``answers`` one None or 0–3 int per
    question; ``flags`` distinct question indices; ``cur`` a question index. Anything else
    raises ValueError with a Japanese message. ``now`` defaults to time.time().
    """
    now = time.time() if now is None else float(now)
    if not isinstance(obj, dict):
        raise ValueError("試験の記録が辞書の形ではありません。")
    if set(obj) != STATE_KEYS:
        missing, extra = sorted(STATE_KEYS - set(obj)), sorted(map(str, set(obj) - STATE_KEYS))
        raise ValueError(f"試験の記録の項目が違います（足りない: {missing}、余分: {extra}）。")
    if obj["v"] != STATE_VERSION or not _is_int(obj["v"]):
        raise ValueError("試験の記録の版が違います。")
    if not isinstance(obj["run"], str) or not RUN_ID.fullmatch(obj["run"]):
        raise ValueError("試験の識別子が正しくありません。")
    qids = obj["qids"]
    if not isinstance(qids, list) or not 1 <= len(qids) <= MAX_QUESTIONS:
        raise ValueError(f"問題の一覧は 1〜{MAX_QUESTIONS} 問のリストにしてください。")
    for qid in qids:
        try:
            from_id(qid)  # parse_id, then the question itself
        except QuizError as exc:
            raise ValueError(f"試験の問題を作れません：{exc}") from None
    n, pace, limit = len(qids), obj["pace"], obj["limit"]
    if not (_is_int(pace) and MIN_PACE_S <= pace <= MAX_PACE_S):
        raise ValueError(f"1 問あたりの時間は {MIN_PACE_S}〜{MAX_PACE_S} 秒の整数です。")
    if not _is_int(limit) or limit != n * pace:
        raise ValueError("制限時間が問題数 × 1 問あたりの時間と合いません。")
    started = obj["started_at"]
    if isinstance(started, bool) or not isinstance(started, (int, float)) or not math.isfinite(started):
        raise ValueError("開始時刻が数ではありません。")
    if started < EARLIEST_START or started > now + CLOCK_SKEW_S:
        raise ValueError("開始時刻がありえない値です（未来か、古すぎます）。")
    if started + limit < now - STALE_AFTER_S:
        raise ValueError("この試験は締め切りから日がたちすぎているため、再開できません。")
    answers = obj["answers"]
    if not isinstance(answers, list) or len(answers) != n:
        raise ValueError("解答の数が問題数と合いません。")
    if any(a is not None and not (_is_int(a) and 0 <= a < 4) for a in answers):
        raise ValueError("解答は未回答（null）か 0〜3 の整数にしてください。")
    flags = obj["flags"]
    if (not isinstance(flags, list) or any(not (_is_int(f) and 0 <= f < n) for f in flags)
            or len(set(flags)) != len(flags)):
        raise ValueError("チェックの一覧が正しくありません。")
    cur = obj["cur"]
    if not (_is_int(cur) and 0 <= cur < n):
        raise ValueError("表示中の問題の番号が範囲外です。")
    return {"v": STATE_VERSION, "run": obj["run"], "qids": list(qids), "pace": pace, "limit": limit,
            "started_at": float(started), "answers": list(answers), "flags": sorted(flags), "cur": cur}


def review_note(result: dict) -> str:
    """What the result page says about the review schedule: the wrong answers went in, the
    unanswered questions did not (see :func:`record_exam`). "" when everything was right."""
    wrong, unanswered = result["wrong"], result["unanswered"]
    parts = []
    if wrong:
        parts.append(f"間違えた {wrong} 問は復習の予定に入りました。")
    if unanswered:
        parts.append(f"未回答の {unanswered} 問は復習の予定に入れていません（解説は下の振り返りで読めます）。")
    return "".join(parts)


def topic_rows(result: dict) -> list[dict]:
    """Per-topic rows for the result chart, in the learning path's order."""
    return [{"topic": t, "label": TOPICS[t], "correct": v["correct"], "total": v["total"],
             "percent": 100.0 * v["correct"] / v["total"]}
            for t in TOPICS if (v := result["by_topic"].get(t))]


def weakest_topic(result: dict) -> str | None:
    """The topic with the lowest share correct (ties: learning-path order); None if all right."""
    rows = [r for r in topic_rows(result) if r["correct"] < r["total"]]
    return min(rows, key=lambda r: r["percent"])["topic"] if rows else None


def history_record(result: dict, started_at: datetime, finished_at: datetime, pace_s: int,
                   run: str | None = None) -> dict:
    """What the progress file keeps of one finished exam; ``run`` names the paper (so a paper
    submitted in two tabs counts once: practice.progress.merge).

    Time used never exceeds the time limit (a paper submitted late by the server — e.g.
    the tab was asleep at the deadline — used exactly the limit).
    """
    limit = time_limit_s(result["total"], pace_s)
    out = {
        "at": finished_at.replace(microsecond=0).isoformat(),
        "total": result["total"], "score": result["score"],
        "seconds": min(limit, _whole_seconds(elapsed_s(started_at, finished_at))), "pace": int(pace_s),
        "by_topic": {t: [v["correct"], v["total"]] for t, v in result["by_topic"].items()},
    }
    if run is not None:
        out["run"] = str(run)
    return out


def record_exam(progress: dict, result: dict, started_at: datetime, finished_at: datetime,
                pace_s: int, run: str | None = None) -> dict:
    """Progress after a finished exam: each answered question recorded as an attempt
    (source "exam", wrong ones into the review schedule) and the result in the history.
    Unanswered questions are scored wrong (in the result and the history) but go neither
    into the review schedule nor into the attempts: no choice was made, so there is no
    mistake to review, and an abandoned or cut-short paper does not flood the review queue
    with questions never read."""
    answered = [(it["qid"], it["topic"], it["correct"], it["choice"])
                for it in result["items"] if it["choice"] is not None]
    out = apply_answers(progress, answered, "exam", finished_at)  # a new record (sharing what it keeps)
    out["exams"] = (out["exams"] + [history_record(result, started_at, finished_at, pace_s, run)])[-MAX_EXAMS_KEPT:]
    return out


def history_rows(exams: list[dict]) -> list[dict]:
    """One row per past exam for the history chart: number, date, percent, score text."""
    return [{"回": i, "日時": e["at"].replace("T", " ")[:16], "正答率": 100.0 * e["score"] / e["total"],
             "得点": f"{e['score']}/{e['total']}", "所要時間": format_clock(e["seconds"])}
            for i, e in enumerate(exams, start=1)]
