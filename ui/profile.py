"""The misconception profile on screen (あなたのつまずき), the mock exam's list of misconceptions,
and the つまずき練習 flow. The numbers come from practice.profile / practice.drill; where to re-learn
a misconception from practice.profile.relearn (a topic one: the page that teaches it; a form one:
practice of that question form on /drill)."""
from __future__ import annotations

from datetime import date, datetime

import streamlit as st

import quizzes
from practice.drill import DRILL_SIZE, drill_ids
from practice.scope import includes_advanced
from practice.skill import seen
from practice.profile import ProfileRow, exam_misconceptions as _exam_counts, relearn, top_misconceptions
from quizzes.core import TOPICS, QuizError
from quizzes.misconceptions import Misconception, catalogue
from tutor import numfmt

from . import clock, state
from .nav import PAGE_BY_KEY
from .quiz import question_card, question_link
from .sections import HEADINGS, QUERY, label as section_label

DRILL_PAGE = "pages/22_drill.py"
CHOICE_K = "drill__choice"     # the selectbox (misconception id)
IDS_K = "drill__ids"           # the question ids of the current set
MID_K = "drill__mid"           # the misconception of the current set
ROUND_K = "drill__round"
LINKED_K = "drill__linked"     # the ?m= value already handled


def _section_label(m: Misconception) -> str:
    return m.heading or HEADINGS.get(m.section, m.section)


def teaching_page(m: Misconception):
    """The PageInfo that teaches a topic misconception ``m``; None for a form one (no page teaches
    how a question is read: it is practised, see links)."""
    route = relearn(m.id)
    info = PAGE_BY_KEY.get(route.page or "") if route is not None and route.kind == "topic" else None
    return info if info is not None and info.exists else None


def when_text(row: ProfileRow, today: date | None = None) -> str:
    """'最後は 12月1日（火） 16:30（3 問前）' from the stored time (the learner's wall clock when it
    was answered) and the attempts since; the year is said when it is not this year."""
    try:
        at = datetime.fromisoformat(row.last_at)
    except ValueError:
        when = row.last_at
    else:
        when = f"{numfmt.day(at.date(), clock.today() if today is None else today)} {at:%H:%M}"
    ago = "直前の問題" if row.since == 0 else f"{row.since} 問前"
    return f"最後は {when}（{ago}）"


def links(m: Misconception) -> None:
    """Where it is fixed. A form misconception: one link to practise that form (→ /drill?m=<id>,
    labelled with what is practised). A topic one: the page that teaches it, and 「このつまずきを
    練習する」 (→ /drill?m=<id>)."""
    route = relearn(m.id)
    if route is not None and route.kind == "form":
        st.caption(f"学び直す場所：ページではなく、問題の読み方です。"
                   f"{route.practice}を、いろいろなページから集めて練習します。")
        st.page_link(DRILL_PAGE, label=f"{route.practice}を練習する", query_params={"m": m.id},
                     icon=":material/target:")
        return
    info = teaching_page(m)
    if info is not None:   # (a page link's label never wraps: the long part goes in the caption)
        st.caption(f"学び直す場所：{info.label} の「{_section_label(m)}」")
        st.page_link(info.path, label=info.label, icon=":material/menu_book:",   # opens at that section
                     query_params={QUERY: section_label(m.section)})
    st.page_link(DRILL_PAGE, label="このつまずきを練習する", query_params={"m": m.id}, icon=":material/target:")


def profile_section(progress: dict, *, limit: int = 3) -> None:
    """あなたのつまずき: the top misconceptions with count, last seen, and two links each."""
    st.subheader("あなたのつまずき")
    rows = top_misconceptions(progress, limit)
    if not rows:
        st.caption("いま目立つつまずきはありません。問題で誤答を選ぶと、その誤答につながる誤解がここにまとまります"
                   "（しばらく繰り返さない誤解や、正解を重ねた誤解は消えていきます）。")
        return
    st.caption("選んだ誤答から見た、あなたの誤解の傾向です。最近の誤りほど重く数え、正解を重ねると消えます。")
    cat = catalogue()
    for rank, row in enumerate(rows, start=1):
        m = cat[row.id]
        with st.container(border=True, key=f"profile_row_{rank}"):
            st.markdown(f"**{rank}. {m.name}**　{row.count} 回・{when_text(row)}")
            st.caption(m.explanation)
            links(m)


def exam_misconceptions(res: dict, *, links_for: int = 3) -> None:
    """The misconceptions behind a submitted mock exam's wrong answers (res: practice.exam.submit)."""
    counts = _exam_counts(list(res.get("qids", [])), list(res.get("answers", [])))
    if not counts:
        return
    st.subheader("誤答につながったつまずき")
    cat = catalogue()
    st.markdown("\n".join(f"- {cat[mid].name}（{n} 問）" for mid, n in counts))
    for mid, _ in counts[:links_for]:
        with st.container(border=True, key=f"exam_mc_{mid}"):
            st.markdown(f"**{cat[mid].name}**")
            links(cat[mid])


# ---------------------------------------------------------------------------
# つまずき練習 (pages/22_drill.py)
# ---------------------------------------------------------------------------
def _start(mid: str) -> None:
    st.session_state[MID_K] = mid
    progress = state.get_progress()
    st.session_state[IDS_K] = drill_ids(mid, DRILL_SIZE, seen=seen(progress["attempts"]),
                                        advanced=includes_advanced(progress))
    st.session_state[ROUND_K] = st.session_state.get(ROUND_K, 0) + 1


def _start_chosen() -> None:
    mid = st.session_state.get(CHOICE_K)
    if mid in catalogue():
        _start(mid)


def _handle_link() -> None:
    """?m=<id>: choose that misconception and start a set. The value comes from whoever wrote the
    link: only a catalogue id is used, anything else is never echoed."""
    linked = st.query_params.get("m")
    if not linked or st.session_state.get(LINKED_K) == linked:
        return
    st.session_state[LINKED_K] = linked
    if linked in catalogue():
        st.session_state[CHOICE_K] = linked
        _start(linked)
    else:
        st.warning("リンクのつまずきが見つかりませんでした。下の一覧から選んでください。", icon=":material/warning:")


def drill_section() -> None:
    """Choose a misconception, then a short set of fresh questions that can reveal it."""
    cat = catalogue()
    _handle_link()
    if CHOICE_K not in st.session_state:
        top = top_misconceptions(state.get_progress(), 1)
        st.session_state[CHOICE_K] = top[0].id if top else next(iter(cat))
    st.header("練習するつまずき", divider="gray")
    st.selectbox("つまずき", options=list(cat), key=CHOICE_K, format_func=lambda mid: cat[mid].name)
    chosen = cat[st.session_state[CHOICE_K]]
    st.caption(chosen.explanation)
    st.button("この誤解の問題を解く", key="drill__start", on_click=_start_chosen, icon=":material/play_arrow:")
    ids = st.session_state.get(IDS_K)
    if not ids:
        return
    m = cat.get(st.session_state.get(MID_K))
    if m is None:
        return
    if m.kind == "form":
        st.header(f"練習：{m.practice_label}", divider="gray")
        st.caption(f"どれも{m.practice_label}です（いろいろなページから集めています）。4 つの記述を 1 つずつ"
                   f"確かめて、成り立たない 1 つを選びましょう。正解を重ねると、つまずき「{m.name}」は消えていきます。")
    else:
        st.header(f"練習：{m.name}", divider="gray")
        st.caption(f"どの問題にも「{m.name}」につながる誤答が入っています。正解を重ねると、あなたのつまずきから消えていきます。")
    if len(ids) < DRILL_SIZE:
        st.caption(f"この練習に使える問題は {len(ids)} 種類なので、同じ問題をくり返さないよう {len(ids)} 問にしています。")
    rnd = st.session_state.get(ROUND_K, 0)
    for i, qid in enumerate(ids, start=1):
        try:
            question = quizzes.from_id(qid)
        except QuizError:
            continue
        with st.container(border=True):
            # source "page": progress.SOURCES has no "drill" yet (see the report); a wrong answer is
            # scheduled for review like any page answer
            question_card(question, key=f"drill_{rnd}_{i}", number=i, source="drill", link=False)
            # its ?q= link belongs to its page: the learner can open it there
            st.caption(f"[{TOPICS[question.topic]} の問題]({PAGE_BY_KEY[question.topic].url}{question_link(qid)})")
    answered = [st.session_state[k] == quizzes.from_id(qid).answer for i, qid in enumerate(ids, start=1)
                if (k := f"drill_{rnd}_{i}__answered") in st.session_state]
    if answered:
        st.caption(f"{len(ids)} 問中 {len(answered)} 問に回答、{sum(answered)} 問正解。")
    st.button("同じつまずきで新しい問題", key="drill__again", on_click=_start, args=(m.id,), icon=":material/refresh:")
