"""The quiz section at the end of every learning page (確認クイズ)."""
from __future__ import annotations

import secrets
from urllib.parse import quote

import streamlit as st

import quizzes
from practice.progress import MASTERY_CORRECT, MASTERY_WINDOW, is_mastered, to_master
from practice.scope import includes, includes_advanced, scope_first
from practice.skill import key as skill_key, seen, unseen_first
from quizzes.core import SEED_SPACE, QuizError, Question

from . import state, storage

MAX_CARDS = 10   # 「もう 1 問」 adds cards up to this many; then 「新しい問題」 starts a new set


def _fresh_ids(topic: str, n: int) -> list[str]:
    """n question ids for a topic: calculation and knowledge mixed, no generator twice, the exam's
    items before 発展 ones unless the learner includes them (practice.scope.scope_first), and among
    those the skills this learner has not answered yet first (practice.skill.unseen_first)."""
    rng = secrets.SystemRandom()
    progress = state.get_progress()
    met = seen(progress["attempts"])
    calc, know = (quizzes.by_topic(topic, kind) for kind in ("calc", "knowledge"))
    calc, know = (scope_first(unseen_first(rng.sample(pool, len(pool)), met), progress) for pool in (calc, know))
    n_know = min(len(know), max(1, n // 3)) if know else 0
    picks = calc[:min(len(calc), n - n_know)] + know[:n_know]
    if len(picks) < n:  # a topic with few generators: fill from whatever is left
        rest = [g for g in calc + know if g not in picks]
        picks += rng.sample(rest, min(len(rest), n - len(picks)))
    rng.shuffle(picks)
    return [f"{g}#{rng.randrange(SEED_SPACE)}" for g in picks]


def _one_more_id(topic: str, ids: list[str]) -> str:
    """One more question id for a topic's cards: a generator none of ``ids`` uses (when every one
    is used already: any but the last card's), of the exam's scope while one remains (unless the
    learner includes 発展), with a fresh seed."""
    rng = secrets.SystemRandom()
    gens = quizzes.by_topic(topic)
    used = [i.split("#")[0] for i in ids]
    pool = [g for g in gens if g not in used] or [g for g in gens if g != used[-1]] or gens
    progress = state.get_progress()
    pool = [g for g in pool if includes(progress, g)] or pool        # the exam's items, while one remains
    met = seen(progress["attempts"])
    pool = [g for g in pool if skill_key(g) not in met] or pool     # a skill not met yet, while one remains
    return f"{rng.choice(pool)}#{rng.randrange(SEED_SPACE)}"


ADVANCED_HELP = ("発展：G検定の出題範囲を超える内容（FlashAttention、top-p など）。オフのあいだは、確認クイズは"
                 "試験範囲の問題から先に出し、復習・つまずき・つまずき練習・模擬試験には発展の問題を入れません。"
                 "ページの習得 ✓ は、この設定にかかわらず試験範囲の問題だけで数えます。")


def _set_advanced(key: str) -> None:
    state.set_settings(advanced=bool(st.session_state[key]))


def advanced_switch(key: str) -> None:
    """The one switch of 発展 (practice.scope), saved with the progress; the review page and the mock
    exam's start screen draw it under their own ``key``, each showing the saved setting."""
    st.session_state[key] = includes_advanced(state.get_progress())
    st.toggle("発展の問題も練習する", key=key, on_change=_set_advanced, args=(key,), help=ADVANCED_HELP)


def question_link(qid: str) -> str:
    """Relative link that reopens exactly this question on its page ('#' must be escaped)."""
    return f"?q={quote(qid, safe='')}"


def record(question: Question, choice: int, source: str) -> bool:
    """Store one answer (attempt + review schedule, see ui.state.record_answer)."""
    return state.record_answer(question, choice, source)


# A 不適切 item asks for the one WRONG statement; its stem says so (quizzes.calc.WORST and every
# knowledge item of form "worst" end their question with this phrase; Question has no form field).
WORST_PHRASE = "不適切なものを1つ選べ"


def asks_for_incorrect(question: Question) -> bool:
    """True if the question asks for the incorrect statement (不適切なものを1つ選べ)."""
    return WORST_PHRASE in question.stem


def answer_tag(question: Question) -> str:
    """How the right choice is marked in a list of choices: on a 不適切 item it is the WRONG statement."""
    return "正解（誤っている記述）" if asks_for_incorrect(question) else "正解"


def verdict(question: Question, choice: int) -> str:
    """The first line of the feedback: right or wrong, and which choice was the answer."""
    right = question.choices[question.answer]
    if choice == question.answer:
        return f"正解です。「{right}」は誤っている記述です。" if asks_for_incorrect(question) else "正解です。"
    return f"不正解です。{answer_tag(question)}は「{right}」です。"


YOUR_CHOICE = "← あなたの解答"


def marked_choices(question: Question, choice: int | None) -> str:
    """The four choices after an answer (an answered card, the mock exam's review), as a Markdown
    list: the right one marked ✓ with answer_tag's words, the learner's (None: none given) with
    「← あなたの解答」 (icon and words, never colour alone). Each choice's text is Markdown as in the
    radio before (its formulas stay formulas)."""
    lines = []
    for i, text in enumerate(question.choices):
        marks = ([f"**✓ {answer_tag(question)}**"] if i == question.answer else []) + \
                ([YOUR_CHOICE] if i == choice else [])
        lines.append(f"- {'ABCD'[i]}. {text}" + "".join(f"　{m}" for m in marks))
    return "\n".join(lines)


def mistake_line(question: Question, misconception: str) -> str:
    """The line under a wrong answer. On a 不適切 item the learner picked a TRUE statement, so the
    line says so (the bank's note there starts with 正しい記述：…) instead of naming a 誤解."""
    if asks_for_incorrect(question):
        return f"あなたの選んだ選択肢は誤りではありません — {misconception}"
    return f"あなたの選んだ選択肢につながる誤解 — {misconception}"


def feedback(question: Question, choice: int) -> None:
    """Right or wrong, the named mistake behind a wrong choice, and the explanation."""
    if choice == question.answer:
        st.success(verdict(question, choice), icon=":material/check_circle:")
    else:
        st.error(verdict(question, choice), icon=":material/cancel:")
        st.warning(mistake_line(question, question.misconceptions[choice]))
    st.info(f"**解説** {question.explanation}")


def _answer(question: Question, key: str, source: str) -> None:
    """on_click of 回答する (the form's submit button): runs before the card is drawn again, so
    the card is drawn locked at once. The radio's value arrives with the submit."""
    choice = st.session_state.get(f"{key}__choice")
    if f"{key}__answered" in st.session_state:
        return
    if choice is None:  # pressed without a choice: the card says so (nothing is recorded)
        st.session_state[f"{key}__empty"] = True
        return
    before = _marks(question.topic)
    record(question, int(choice), source)
    st.session_state[f"{key}__answered"] = int(choice)
    if _marks(question.topic) != before:
        # the answer changed the page's ✓ in the sidebar: inside a fragment (quiz_section) only
        # the quiz would be redrawn, so ask for the whole app (outside a fragment: no change)
        st.rerun(scope="app")


def _marks(topic: str) -> bool:
    """Whether the sidebar shows ✓ for ``topic`` (ui.nav.sidebar draws it from the same stats)."""
    return is_mastered(state.get_progress(), topic)


def _result(question: Question, key: str) -> None:
    """The verdict of an answered card: the choices marked (marked_choices), right or wrong, the
    mistake, the explanation. Drawn first after the answer, it waits for that answer to be in the
    browser's storage (ui.storage.saved_marker: 保存しています…, then ✓ 保存しました), so a tab
    closed the moment the verdict shows has kept the answer."""
    saved_k = f"{key}__saved"
    if saved_k not in st.session_state:     # the first draw after the answer: its write is queued now
        st.session_state[saved_k] = state.last_write()
    with st.container(key=storage.RESULT_PREFIX + key):
        if st.session_state[saved_k] is not None:
            nonce, seq = st.session_state[saved_k]
            storage.saved_marker(nonce, seq, key=f"{key}_saved")
        with st.container(key=storage.VERDICT_PREFIX + key):
            choice = st.session_state[f"{key}__answered"]
            st.markdown(marked_choices(question, choice))
            feedback(question, choice)


def question_card(question: Question, key: str, *, number: int | None = None, source: str = "page",
                  link: bool = True) -> None:
    """One question: stem, radio with nothing preselected, an answer button, feedback, a link.

    The radio and 回答する are one st.form: choosing an option sends nothing to the server, so
    回答する is clickable at once (a fast click right after choosing is never lost) and one round
    trip brings the verdict. Answered once, the radio and the button give way to the choices as
    text, marked (marked_choices: a disabled radio fades its text to 2.6 : 1); one attempt per
    card, so the statistics and the review schedule cannot be gamed by re-answering."""
    kind = "計算問題" if question.kind == "calc" else "知識問題"
    head = f"問{number}" if number is not None else "問"
    advanced = quizzes.is_advanced(question.id)          # beyond the syllabus (practice.scope)
    st.markdown(f"**{head}**（{kind}）" + ("　:orange-badge[発展]" if advanced else ""))
    if advanced:
        st.caption("発展：G検定の出題範囲の外の問題です。習得 ✓ には数えません。")
    st.markdown(question.stem)
    answered_k = f"{key}__answered"
    locked = answered_k in st.session_state
    if not locked:
        with st.form(key=f"{key}__form", border=False, enter_to_submit=False):
            st.radio("選択肢", options=range(4), index=None, key=f"{key}__choice",
                     format_func=lambda i: f"{'ABCD'[i]}. {question.choices[i]}",
                     label_visibility="collapsed")
            st.form_submit_button("回答する", key=f"{key}__submit",
                                  on_click=_answer, args=(question, key, source))
        if st.session_state.pop(f"{key}__empty", False):
            st.warning("選択肢を 1 つ選んでから「回答する」を押してください。", icon=":material/touch_app:")
    else:
        _result(question, key)
    if link:
        st.caption(f"[この問題へのリンク]({question_link(question.id)})")


def mastery_line(left: int, more: bool = False) -> str:
    """The line under a page's quiz: ``left`` right answers in a row still earn the page's ✓
    (practice.progress.to_master), and the rule itself (a countdown of 5 alone read as "5 right in a
    row", while the rule is 4 of the last 5); ``more``: every card is answered and 「もう 1 問」 is there."""
    if not left:
        return "このページは習得済みです（✓）"
    return (f"あと {left} 問続けて正解すれば習得（✓：直近 {MASTERY_WINDOW} 問のうち {MASTERY_CORRECT} 問以上が正解）"
            + ("。「もう 1 問」で続けられます。" if more else ""))


def quiz_section(topic: str, n: int = 3) -> None:
    """確認クイズ: n fresh questions for the page's topic; ?q=<id> reopens one question."""
    st.header("確認クイズ", divider="gray")
    _quiz(topic, n)


def quiz_cards(topic: str, n: int = 3) -> None:
    """The quiz without its header: the last tab of a page drawn by ui.sections."""
    _quiz(topic, n)


@st.fragment
def _quiz(topic: str, n: int) -> None:
    """The quiz under its header, as a fragment: an answer, 「もう 1 問」 and 「新しい問題」 rerun the
    quiz only, not the page around it (its hand calculations and charts stay as they are), and the
    mastery line under the cards is right after every answer. Such a rerun does not run
    ui.page(), so the quiz saves the answer to the browser itself (ui.state.flush), before a card
    draws the verdict that waits for that write."""
    state.flush(key=f"quiz_{topic}_store")  # (a component key may not contain "__")
    ids_k = f"quiz_{topic}__ids"
    round_k = f"quiz_{topic}__round"
    bad_k = f"quiz_{topic}__bad_link"
    linked = st.query_params.get("q")
    if linked and st.session_state.get(f"quiz_{topic}__linked") != linked:
        st.session_state[f"quiz_{topic}__linked"] = linked
        st.session_state.pop(bad_k, None)
        try:
            q = quizzes.from_id(linked)
            if q.topic != topic:
                raise QuizError("このページの問題ではありません。")
            st.session_state[ids_k] = [linked] + _fresh_ids(topic, n)[: n - 1]
            st.session_state[round_k] = st.session_state.get(round_k, 0) + 1
        except QuizError:
            st.session_state[bad_k] = linked
    if linked and st.session_state.get(bad_k) == linked:  # said on every run while the link is in the URL
        # The ?q= value comes from whoever wrote the link: never echoed (no text or link
        # injection into the app's own warning box).
        st.warning("リンクの問題を開けませんでした（問題 id が正しくないか、このページの問題ではありません）。"
                   "新しい問題を出します。")
    if ids_k not in st.session_state:
        st.session_state[ids_k] = _fresh_ids(topic, n)
        st.session_state[round_k] = 0
    if not st.session_state[ids_k]:
        st.info("このページの問題はまだありません。")
        return
    st.caption("G検定と同じ 4 択です。選んで「回答する」を押すと、正誤と解説が出ます。")
    rnd = st.session_state[round_k]
    ids = st.session_state[ids_k]
    for i, qid in enumerate(ids, start=1):
        try:
            question = quizzes.from_id(qid)
        except QuizError as exc:
            st.warning(f"問題 {state.plain(qid)} を作れませんでした：{state.plain(exc)}")
            continue
        with st.container(border=True):
            question_card(question, f"quiz_{topic}_{rnd}_{i}", source="page")

    all_answered = all(f"quiz_{topic}_{rnd}_{i}__answered" in st.session_state for i in range(1, len(ids) + 1))
    st.markdown(mastery_line(to_master(state.get_progress(), topic), all_answered and len(ids) < MAX_CARDS))

    def one_more() -> None:
        now = st.session_state[ids_k]
        if len(now) < MAX_CARDS:
            st.session_state[ids_k] = now + [_one_more_id(topic, now)]

    def new_round() -> None:
        st.session_state[ids_k] = _fresh_ids(topic, n)
        st.session_state[round_k] = st.session_state.get(round_k, 0) + 1
        st.query_params.pop("q", None)

    with st.container(horizontal=True):
        if len(ids) < MAX_CARDS:
            st.button("もう 1 問", key=f"quiz_{topic}__more", on_click=one_more, icon=":material/add:")
        st.button("新しい問題", key=f"quiz_{topic}__new", on_click=new_round, icon=":material/refresh:")
    if len(ids) >= MAX_CARDS:
        st.caption(f"一度に並べられる問題は {MAX_CARDS} 問までです。続けるときは「新しい問題」を押してください。")
