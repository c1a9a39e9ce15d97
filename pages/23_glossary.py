"""用語集: every exam term the learning pages teach, with a one-line definition, a link to the
section that teaches it and a link to a question that tests it; searchable by name, reading
(kana) and definition. The terms and the search: quizzes.glossary (quizzes/data/glossary.json)."""
import streamlit as st

import ui
from quizzes import glossary
from quizzes.core import GENERATOR_INFO
from ui.quiz import question_link
from ui.sections import label as tab_label
from ui.state import plain

ui.page("glossary")

QUERY_K = "glossary__query"
_KANJI = range(0x4E00, 0xA000)


def _shown_aliases(t: glossary.Term) -> list[str]:
    """The other names worth showing: not the ones the term's own name already contains."""
    own = glossary.normalize(t.term)
    return [a for a in t.aliases if glossary.normalize(a) not in own]


def _practice_link(t: glossary.Term) -> str:
    qid = glossary.practice_id(t)
    if qid is None:
        return ""
    topic = GENERATOR_INFO[qid.partition("#")[0]][0]
    info = ui.PAGE_BY_KEY[topic]
    if not info.exists:
        return ""
    where = "" if topic == t.page else f"（{info.label.split()[0]} の確認クイズ）"
    return f"[問題を解く{where}]({info.url}{question_link(qid)})"


def term_item(t: glossary.Term) -> str:
    """One Markdown list item of three lines: the name (reading, other names), the definition, the links."""
    head = f"**{plain(t.term)}**"
    if t.reading and any(ord(ch) in _KANJI for ch in t.term):
        head += f"（{plain(t.reading)}）"
    others = _shown_aliases(t)
    if others:
        head += "　別名：" + "、".join(plain(a) for a in others)
    links = [f"[「{tab_label(t.section)}」で学ぶ]({ui.section_url(t.page, t.section)})"]
    practice = _practice_link(t)
    if practice:
        links.append(practice)
    return f"- {head}  \n  {plain(t.definition)}  \n  " + "　・　".join(links)


def linked_page() -> str | None:
    """The learning page a link from a page's ねらい・解説 names (``?page=<key>``, ui.sections);
    used only if it is a learning page's key, never echoed."""
    key = st.query_params.get("page")
    return key if key in ui.LEARNING_KEYS else None


def results(query: str, page: str | None = None) -> None:
    """The terms that match ``query``, under the label of the page that teaches them; with no
    query and a ``page``, that page's terms only."""
    every = glossary.terms()
    found = glossary.search(query, every)
    if glossary.query_is_blank(query):
        if query.strip():
            st.info("記号だけでは探せません。用語の一部を文字で入れてください（例：クエリ、softmax、せいきか）。",
                    icon=":material/info:")
        if page is not None:
            found = [t for t in found if t.page == page]
            st.caption(f"「{ui.PAGE_BY_KEY[page].label}」で学ぶ {len(found)} 語です。")
            st.page_link("pages/23_glossary.py", label=f"全 {len(every)} 語を見る", icon=":material/list:")
        else:
            st.caption(f"全 {len(every)} 語を、学ぶページの順に並べています。")
    elif not found:
        st.info(f"「{plain(query[:glossary.MAX_QUERY])}」に当てはまる用語は見つかりませんでした。"
                "短くする、ひらがなやカタカナで書く、英語の略称（LSTM、BPE など）で書く、などを試してください。",
                icon=":material/search_off:")
        return
    else:
        st.caption(f"「{plain(query[:glossary.MAX_QUERY])}」：全 {len(every)} 語のうち {len(found)} 語"
                   "（名前が当てはまる用語が先、定義だけが当てはまる用語が後）。")
    for key, terms in glossary.in_course_order(found):
        st.subheader(ui.PAGE_BY_KEY[key].label)
        st.markdown("\n".join(term_item(t) for t in terms))


@st.fragment
def glossary_section() -> None:
    """The search box and the list it filters (a fragment: typing reruns only this part)."""
    query = st.text_input("用語を探す", key=QUERY_K, max_chars=glossary.MAX_QUERY, type="search",
                          placeholder="例：クエリ、softmax、せいきか", live="400ms", persist_state="session")
    results(query or "", linked_page())


st.markdown("このアプリの学習ページで教えている用語を、1 行の説明と一緒に並べました。"
            "「○○で学ぶ」はその用語を説明している節を、「問題を解く」はその用語を問う問題を開きます"
            "（どちらも新しいタブで開きます）。名前・読み（ひらがなでも可）・説明の言葉で探せます。")
glossary_section()
