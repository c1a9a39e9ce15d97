"""模擬試験: a timed mixed-topic mock exam; flag and revisit; result by topic; history saved.

The page only draws: the exam in progress is a plain JSON-able dict in
``st.session_state["exam"]`` (schema: practice.exam.new_exam), changed only through
practice.exam's state functions, in callbacks or at the top of a run. The clock's authority
is the server: every run (and the ticking fragment, once a second) compares the stored start
time with the server's clock, and a paper whose time is up is submitted with the answers
given so far.
"""
import secrets
import time

import streamlit as st

import quizzes
import ui
from tutor import numfmt
from ui.figures import exam_topic_chart
from practice import exam as ex
from practice.scope import includes_advanced
from practice.skill import seen
from quizzes.core import TOPICS

ui.page("exam")

EXAM = ui.state.EXAM_KEY   # the exam in progress (practice.exam state dict; None when none is running)
RESULT = "exam__result"    # the last submitted paper (practice.exam.submit record)
CONFIRM = "exam__confirm"  # the "really submit?" step is open
DROP = "exam__drop"        # the "really stop without scoring?" step is open
SHOW_CONFIRM = "exam__show_confirm"   # set by 提出する: the run after it scrolls the confirmation into view
DROPPED = "exam__dropped"  # a paper was just dropped (the setup screen says so once)


# ---------------------------------------------------------------------------
# state changes (all in callbacks or at the top of a run; the page only draws)
# ---------------------------------------------------------------------------
def start_exam() -> None:
    if st.session_state.get(EXAM):
        return  # a stale second click: the paper just started stays
    try:
        state = ex.new_exam(int(st.session_state.get("exam_len", ex.LENGTHS[0])),
                            int(st.session_state.get("exam_pace", ex.DEFAULT_PACE_S)),
                            secrets.randbits(32), time.time(),
                            calc_share=float(st.session_state.get("exam_calc", ex.DEFAULT_CALC_SHARE)),
                            advanced=includes_advanced(ui.state.get_progress()),
                            seen=seen(ui.state.get_progress()["attempts"]))   # new questions first
    except ValueError as exc:
        st.session_state["exam__error"] = str(exc)
        return
    st.session_state[EXAM] = state
    st.session_state[RESULT] = None
    st.session_state[CONFIRM] = st.session_state[DROP] = False
    ui.state.touch_exam(state["run"])


def running(run: str | None) -> dict | None:
    """The exam in progress if it is paper ``run`` (None: whichever is running), else None.

    A widget's event can arrive after its paper was submitted (the confirm click and a click
    on a pill or an answer queued behind it, or the ticking clock submitting at the deadline):
    its callback then finds no exam, or another paper, and must do nothing."""
    state = st.session_state.get(EXAM)
    if not state or (run is not None and state.get("run") != run):
        return None
    if run is not None:
        ui.state.touch_exam(run)      # a widget of this paper was used in this tab
    return state


def finish(auto: bool, run: str | None = None) -> None:
    state = running(run)
    if state is None:
        return
    record = ex.submit(state, time.time(), auto)
    ui.state.record_finished_exam(record["result"], ex.local_time(record["started_at"], ui.clock.zone()),
                                  ex.local_time(record["finished_at"], ui.clock.zone()), record["pace"], state["run"])
    st.session_state[RESULT] = record
    st.session_state[EXAM] = None
    st.session_state[CONFIRM] = st.session_state[DROP] = False


def drop(run: str) -> None:
    """「この試験をやめる」 confirmed: paper ``run`` ends without scoring; nothing is recorded
    (no result, no attempts, no review cards). A stale click (another paper, or none) does nothing."""
    if running(run) is None:
        return
    st.session_state[EXAM] = None
    st.session_state[CONFIRM] = st.session_state[DROP] = False
    st.session_state[DROPPED] = True


def set_drop(run: str, value: bool) -> None:
    if running(run) is not None:
        st.session_state[DROP] = value
        st.session_state[CONFIRM] = False


def go(run: str, i: int) -> None:
    if (state := running(run)) is None:
        return
    state = ex.go_to(state, i)
    st.session_state[EXAM] = state
    st.session_state[f"exam_{run}_nav"] = state["cur"]
    st.session_state[CONFIRM] = st.session_state[DROP] = False


def on_nav(run: str) -> None:
    if (state := running(run)) is None:
        return
    value = st.session_state.get(f"exam_{run}_nav")
    if value is not None:
        st.session_state[EXAM] = ex.go_to(state, int(value))
        st.session_state[CONFIRM] = st.session_state[DROP] = False


def on_answer(run: str, i: int) -> None:
    if (state := running(run)) is None:
        return
    value = st.session_state.get(f"exam_{run}_q{i}")
    st.session_state[EXAM] = ex.answer(state, i, None if value is None else int(value), time.time())


def on_flag(run: str, i: int) -> None:
    if (state := running(run)) is None:
        return
    st.session_state[EXAM] = ex.set_flag(state, i, bool(st.session_state.get(f"exam_{run}_flag{i}")))


def set_confirm(run: str, value: bool) -> None:
    if running(run) is not None:
        st.session_state[CONFIRM] = value
        st.session_state[DROP] = False
        st.session_state[SHOW_CONFIRM] = value    # the next run brings the confirmation into view


def reset() -> None:
    st.session_state[RESULT] = None


# ---------------------------------------------------------------------------
# screens
# ---------------------------------------------------------------------------
def setup_screen() -> None:
    drawn = ex.pool_topics()
    span = f"{TOPICS[drawn[0]][0]}〜{TOPICS[drawn[-1]][0]}" if drawn else ""
    st.markdown(
        "本番の G検定と同じく、4 択の問題をテンポよく解く練習です。出題は G検定の範囲のうち、"
        f"このチューターが扱う Attention と Transformer のまわり（{span} の全トピック）だけです。"
        "各ページからの出題数は、そのページが受け持つシラバスの範囲の広さ（試験範囲の問題の数）に比例します。"
        "本番は AI の歴史、機械学習の手法、法律・倫理などもっと広い範囲から出るので、これは本番の一部の練習です。"
        "**知識問題が中心で、計算問題はわずか**です（本番でも約 145 問のうち数問と言われています）。"
        "計算を多めに練習したいときは、下で割合を上げられます。"
        "迷った問題は **チェック** を付けて先へ進み、最後に見直してから提出しましょう。"
        "時間切れになると、その時点の解答で自動的に提出されます。"
    )
    if not quizzes.GENERATORS:
        st.info("出題できる問題がまだありません。問題が追加されると模擬試験を受けられます。")
        return
    if error := st.session_state.pop("exam__error", None):
        st.error(f"試験を始められませんでした：{ui.state.plain(error)}")
    if st.session_state.pop(DROPPED, False):
        st.info("模擬試験をやめました。採点はせず、解答も記録も残していません。", icon=":material/cancel:")
    st.radio("問題数", ex.LENGTHS, key="exam_len", horizontal=True, format_func=lambda n: f"{n} 問")
    st.radio("1 問あたりの時間", ex.PACE_CHOICES, key="exam_pace", horizontal=True,
             index=ex.PACE_CHOICES.index(ex.DEFAULT_PACE_S),
             format_func=lambda s: f"{s} 秒" + ("（本番並み）" if s == ex.DEFAULT_PACE_S else ""))
    st.radio("計算問題の割合", ex.CALC_SHARE_CHOICES, key="exam_calc", horizontal=True,
             index=ex.CALC_SHARE_CHOICES.index(ex.DEFAULT_CALC_SHARE), format_func=ex.CALC_SHARE_LABELS.get)
    ui.quiz_advanced_switch("exam_advanced")
    n = int(st.session_state.get("exam_len", ex.LENGTHS[0]))
    pace = int(st.session_state.get("exam_pace", ex.DEFAULT_PACE_S))
    n_calc, n_know = ex.planned_mix(n, float(st.session_state.get("exam_calc", ex.DEFAULT_CALC_SHARE)),
                                    includes_advanced(ui.state.get_progress()))
    st.caption(f"制限時間 {ex.format_clock(ex.time_limit_s(n, pace))}（{pace} 秒 × {n} 問）・"
               f"知識問題 {n_know} 問、計算問題 {n_calc} 問。"
               "本番は約 100 分で約 145 問、1 問あたり約 40 秒と言われています（回によって異なります）。")
    st.button("試験を始める", key="exam_start", type="primary", icon=":material/timer:", on_click=start_exam)


@st.fragment(run_every=1)
def clock() -> None:
    """The ticking remaining time; submits the paper itself when time is up."""
    state = st.session_state.get(EXAM)
    if not state:
        return
    now = time.time()
    if ex.is_over(state, now):
        if ui.state.may_auto_submit(state["run"]):
            finish(auto=True)
        st.rerun()
    st.progress(ex.fraction_left(state, now),
                text=f"残り時間 **{ex.format_clock(ex.seconds_left(state, now))}**（制限 {ex.format_clock(state['limit'])}）")


def question_screen(state: dict) -> None:
    questions, run, answers, flags = ex.questions(state), state["run"], state["answers"], set(state["flags"])
    n, i = len(questions), state["cur"]
    with ui.widgets.sticky("exam_clock"):    # the remaining time stays in view while the learner scrolls
        clock()
    status = ex.status(state)
    st.caption(f"回答済み {status['answered']} / {n} 問・チェック {len(status['flagged'])} 問　"
               "（番号の印：✓ 回答済み、★ チェック）")

    def mark(j: int) -> str:
        return f"{j + 1}" + ("★" if j in flags else "") + ("✓" if answers[j] is not None else "")

    nav_k = f"exam_{run}_nav"
    if nav_k not in st.session_state:
        st.session_state[nav_k] = i
    st.pills("問題へ移動", list(range(n)), key=nav_k, format_func=mark, required=True,
             on_change=on_nav, args=(run,), label_visibility="collapsed")

    q = questions[i]
    with st.container(border=True):
        kind = "計算問題" if q.kind == "calc" else "知識問題"
        tag = "・発展" if quizzes.is_advanced(q.id) else ""
        st.markdown(f"**問{i + 1}** / {n}（{kind}{tag}）")   # no topic, as in the real exam (the results say it)
        st.markdown(q.stem)
        st.radio("選択肢", options=range(4), index=answers[i], key=f"exam_{run}_q{i}",
                 format_func=lambda c: f"{'ABCD'[c]}. {q.choices[c]}", label_visibility="collapsed",
                 on_change=on_answer, args=(run, i))
        st.checkbox("チェック（あとで見直す）", value=i in flags, key=f"exam_{run}_flag{i}",
                    on_change=on_flag, args=(run, i))

    # keyed by the question they move from: a second tap on 次へ while 問8 was on its way acted on 問8's
    # button (a callback is the newest run's) and skipped to 問9 unseen; a tap on a button that is no
    # longer on screen is dropped (every tap shows it was received: ui/page.js)
    row = st.container(horizontal=True)  # stays one row on a phone (columns would stack)
    row.button("前へ", key=f"exam_prev_q{i}", icon=":material/arrow_back:", on_click=go, args=(run, i - 1), disabled=i == 0)
    row.button("次へ", key=f"exam_next_q{i}", icon=":material/arrow_forward:", on_click=go, args=(run, i + 1),
               disabled=i == n - 1)
    nf = ex.next_flagged(state)
    row.button("次のチェックへ", key=f"exam_next_flag_q{i}", icon=":material/flag:", on_click=go,
               args=(run, nf if nf is not None else i), disabled=nf is None)

    st.divider()
    if st.session_state.get(DROP):
        st.warning("この試験をやめると、採点はせず、ここまでの解答も捨てます（試験の記録にも復習の予定にも"
                   "入りません）。元には戻せません。", icon=":material/cancel:")
        stop = st.container(horizontal=True)
        stop.button("やめる（採点しない）", key="exam_drop_confirm", on_click=drop, args=(run,))
        stop.button("問題に戻る", key="exam_drop_cancel", on_click=set_drop, args=(run, False))
        return
    if not st.session_state.get(CONFIRM):
        end = st.container(horizontal=True)
        end.button("提出する", key="exam_submit", type="primary", on_click=set_confirm, args=(run, True))
        end.button("この試験をやめる（採点しない）", key="exam_drop", on_click=set_drop, args=(run, True))
        return
    confirm_screen(run, status)


def confirm_screen(run: str, status: dict) -> None:
    """「本当に提出する？」: the buttons first, then what is unanswered or flagged; brought into view
    the moment 提出する opens it (on a phone it opens below the fold)."""
    with st.container(key="exam_confirm_box"):
        done = st.container(horizontal=True)
        done.button("提出を確定する", key="exam_confirm", type="primary", on_click=finish, args=(False, run))
        done.button("問題に戻る", key="exam_cancel", on_click=set_confirm, args=(run, False))
        lines = ["提出すると採点され、答えは変えられなくなります。"]
        if status["unanswered"]:
            lines.append("未回答：" + "、".join(f"問{j + 1}" for j in status["unanswered"])
                         + "（未回答は不正解として数えます。復習の予定には入りません）")
        if status["flagged"]:
            lines.append("チェックした問題：" + "、".join(f"問{j + 1}" for j in status["flagged"]))
        st.warning("  \n".join(lines), icon=":material/assignment:")
        if status["flagged"]:
            st.caption("チェックした問題に戻る：")
            goto = st.container(horizontal=True)
            for j in status["flagged"]:
                goto.button(f"問{j + 1} ★", key=f"exam_goto_{j}", on_click=go, args=(run, j))
    if st.session_state.pop(SHOW_CONFIRM, False):
        ui.widgets.scroll_to("exam_confirm_box", key="exam_confirm_scroll")


def overdue_screen(state: dict) -> None:
    """A paper past its deadline that this tab did not work on (another tab ran it, or the learner
    comes back to it): it is graded only when the learner says so."""
    st.info("この模擬試験は時間切れです。ほかのタブで解いていた場合は、そのタブが採点して記録します。"
            "このタブで採点するときは「採点する」を押してください（その時点までの解答で採点します）。",
            icon=":material/timer_off:")
    st.button("採点する", key="exam_grade", type="primary", on_click=finish, args=(True, state["run"]))


def result_screen(res: dict) -> None:
    result, questions, answers = res["result"], ex.questions(res), res["answers"]
    if res["auto"]:
        st.warning("時間切れのため、その時点の解答で自動的に提出しました。", icon=":material/alarm:")
    st.subheader("結果")
    m1, m2, m3 = st.columns(3)
    m1.metric("得点", f"{result['score']} / {result['total']}")
    m2.metric("正答率", numfmt.fixed(result['percent'], 0) + "%")
    m3.metric("所要時間", ex.format_clock(res["seconds"]), help=f"制限時間 {ex.format_clock(res['limit'])}")

    st.subheader("トピック別の正答率")
    rows = ex.topic_rows(result)
    ui.cached_chart(exam_topic_chart, rows, width="stretch")
    weakest = ex.weakest_topic(result)
    info = ui.PAGE_BY_KEY.get(weakest) if weakest else None
    if info is not None and info.exists:
        st.caption("いちばん弱かったトピックを学び直す：")
        st.page_link(info.path, label=info.label, icon=":material/menu_book:")
    if note := ex.review_note(result):
        st.caption(note)
    if result["wrong"]:
        st.page_link(ui.PAGE_BY_KEY["review"].path, label="復習と進捗へ", icon=":material/replay:")
    ui.profile.exam_misconceptions(res)

    st.subheader("1 問ずつの振り返り")
    only_wrong = st.toggle("間違えた問題と未回答だけ表示", key="exam_only_wrong")
    for i, (q, it) in enumerate(zip(questions, result["items"])):
        if only_wrong and it["correct"]:
            continue
        choice = answers[i]
        mark = "○ 正解" if it["correct"] else ("− 未回答" if choice is None else "× 不正解")
        with st.expander(f"問{i + 1}　{mark}　{TOPICS[q.topic]}", expanded=not it["correct"]):
            st.markdown(q.stem)
            st.markdown(ui.quiz.marked_choices(q, choice))
            if choice is None:
                st.info("未回答でした。")
            elif not it["correct"]:
                st.warning(ui.quiz.mistake_line(q, it["misconception"]))
            st.info(f"**解説** {q.explanation}")
    st.button("もう一度受ける", key="exam_again", on_click=reset, icon=":material/refresh:")


# ---------------------------------------------------------------------------
if st.session_state.pop(ui.state.EXAM_ENDED_KEY, False):
    st.info("この模擬試験は別のタブで提出されたため、このタブでは終わりました。結果はホームの"
            "「模擬試験の記録」に入っています。", icon=":material/tab:")
over = bool(st.session_state.get(EXAM)) and ex.is_over(st.session_state[EXAM], time.time())
if st.session_state.get(EXAM):
    ui.state.saw_exam(st.session_state[EXAM], over)
if over and ui.state.may_auto_submit(st.session_state[EXAM]["run"]):
    finish(auto=True)  # the server's clock decides, on every run, in a tab the learner worked in

if st.session_state.get(EXAM) and over:
    overdue_screen(st.session_state[EXAM])
elif st.session_state.get(EXAM):
    question_screen(st.session_state[EXAM])
elif st.session_state.get(RESULT):
    result_screen(st.session_state[RESULT])
else:
    setup_screen()
ui.state.flush()  # a paper auto-submitted above at its deadline is saved now, not at the next click
