"""The page registry (one source of truth for keys, files, labels) and the sidebar."""
from __future__ import annotations

import io
import math
import re
import tokenize
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import streamlit as st

from quizzes.core import TOPICS

from . import state

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class PageInfo:
    key: str       # page key = quiz topic for learning pages
    path: str      # script path relative to the project root
    label: str     # Japanese label in the sidebar
    section: str   # "" (home), "学習", "演習"
    icon: str = ""

    @property
    def exists(self) -> bool:
        return (ROOT / self.path).is_file()

    @property
    def url(self) -> str:
        """URL path Streamlit gives the page: "pages/2_qkv.py" → "/qkv"."""
        if self.path == "app.py":
            return "/"
        return "/" + Path(self.path).stem.split("_", 1)[1]


_LEARNING = [
    ("wordvec", "pages/15_wordvec.py"),
    ("seq2seq", "pages/0_seq2seq.py"),
    ("naive", "pages/1_naive.py"),
    ("qkv", "pages/2_qkv.py"),
    ("scaling", "pages/3_scaling.py"),
    ("formula", "pages/4_formula.py"),
    ("multihead", "pages/5_multihead.py"),
    ("mask", "pages/6_mask.py"),
    ("position", "pages/7_position.py"),
    ("block", "pages/8_block.py"),
    ("encdec", "pages/9_encdec.py"),
    ("output", "pages/10_output.py"),
    ("cost", "pages/11_cost.py"),
    ("paper", "pages/16_paper.py"),
    ("training", "pages/12_training.py"),
    ("pretrain", "pages/13_pretrain.py"),
    ("bertfamily", "pages/17_bertfamily.py"),
    ("llm", "pages/14_llm.py"),
    ("adapt", "pages/18_adapt.py"),
    ("efficient", "pages/19_efficient.py"),
    ("multimodal", "pages/24_multimodal.py"),
    ("generation", "pages/25_generation.py"),
]

PAGES: tuple[PageInfo, ...] = (
    PageInfo("home", "app.py", "ホーム", "", ":material/home:"),
    *(PageInfo(key, path, TOPICS[key], "学習") for key, path in _LEARNING),
    PageInfo("exam", "pages/20_exam.py", "模擬試験", "演習", ":material/timer:"),
    PageInfo("review", "pages/21_review.py", "復習と進捗", "演習", ":material/replay:"),
    PageInfo("drill", "pages/22_drill.py", "つまずき練習", "演習", ":material/target:"),
    PageInfo("glossary", "pages/23_glossary.py", "用語集", "演習", ":material/menu_book:"),
)
PAGE_BY_KEY = {p.key: p for p in PAGES}
LEARNING_KEYS = tuple(key for key, _ in _LEARNING)


# A page's time (the plan on home, practice.plan): its Japanese text read carefully, then its hand
# calculation, try-it and three quiz questions. Counted from the page's own text, so it follows the page.
READING_CHARS_PER_MIN = 400
PRACTICE_MIN = 10
_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uff00-\uffef]")


@lru_cache(maxsize=64)
def page_minutes(path: str) -> int:
    """About how many minutes a learning page takes, in whole 5 minutes: the characters of its Japanese
    text (every string of the page's source that has Japanese in it, folded topics included) at
    READING_CHARS_PER_MIN, plus PRACTICE_MIN.

    Read with tokenize, not ast.parse: CPython 3.11's ast.parse can fail with "AST constructor recursion
    depth mismatch" when threads build syntax trees at once (python/cpython#106905), and each session of
    the app runs in a thread of its own while Streamlit parses page scripts in others."""
    texts = _strings((ROOT / path).read_text(encoding="utf-8"))
    chars = sum(len(text) for text in texts if _JAPANESE.search(text))
    return 5 * math.ceil((chars / READING_CHARS_PER_MIN + PRACTICE_MIN) / 5)


_LITERAL = re.compile(r"([A-Za-z]*)('''|\"\"\"|'|\")(.*)\2", re.S)
_FIELD = re.compile(r"\{\{|\}\}|\{[^{}]*\}")   # an f-string's {expression} (its {{ and }} are braces)
_CUT = "\0"   # where an f-string's field stood: the text on either side is a string of its own (as in ast)
_BETWEEN = {tokenize.NL, tokenize.COMMENT}   # inside brackets: adjacent literals still join


def _strings(source: str) -> list[str]:
    """The value of every string in ``source``, adjacent literals joined as Python joins them; an
    f-string counts as the pieces of text between its replacement fields."""
    strings: list[str] = []
    joining = False
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.STRING:
            prefix, _, body = _LITERAL.fullmatch(tok.string).groups()
            part = _literal_text(body, prefix.lower())
        elif tok.type == getattr(tokenize, "FSTRING_MIDDLE", None):   # Python 3.12+: an f-string's text
            part = tok.string + _CUT
        elif tok.type in _BETWEEN or tok.type in (getattr(tokenize, "FSTRING_START", None),
                                                  getattr(tokenize, "FSTRING_END", None)):
            continue
        else:
            joining = False
            continue
        if joining:
            strings[-1] += part
        else:
            strings.append(part)
            joining = True
    return [piece for text in strings for piece in text.split(_CUT)]


def _literal_text(body: str, prefix: str) -> str:
    """The text a literal's body stands for (escapes resolved unless raw; f-string fields dropped)."""
    if "f" in prefix:
        body = _FIELD.sub(lambda m: m.group()[0] if m.group() in ("{{", "}}") else _CUT, body)
    if "r" in prefix:
        return body
    return body.encode("latin-1", "backslashreplace").decode("unicode_escape")


def learning_minutes() -> dict[str, int]:
    """{page key: page_minutes} for every learning page that exists."""
    return {p.key: page_minutes(p.path) for p in available_pages() if p.section == "学習"}


def available_pages() -> list[PageInfo]:
    """Pages whose script exists (the sidebar never links to a missing file)."""
    return [p for p in PAGES if p.exists]


def next_page(key: str) -> PageInfo | None:
    """The page after ``key`` on the learning path (None at the end)."""
    pages = [p for p in available_pages() if p.section == "学習"]
    keys = [p.key for p in pages]
    if key == "home":
        return pages[0] if pages else None
    if key in keys and keys.index(key) + 1 < len(pages):
        return pages[keys.index(key) + 1]
    return None


def sidebar(current: str) -> None:
    progress = state.get_progress()
    from practice.progress import MASTERY_CORRECT, MASTERY_WINDOW, topic_stats  # local: keeps ui import light

    stats = topic_stats(progress)
    with st.sidebar:
        st.markdown("### アテンション・チューター")
        section = None
        for page in available_pages():
            if page.section != section:
                section = page.section
                if section:
                    st.caption(section)
            mark = " ✓" if stats.get(page.key, {}).get("mastered") else ""
            # the current page is not disabled: Streamlit marks it as the current one already, and
            # disabled link text is 40 % opaque (2.3:1, below WCAG AA's 4.5:1)
            st.page_link(page.path, label=page.label + mark, icon=page.icon or None)
        # the rule behind ✓ (practice.progress), in one line under the links
        st.caption(f"✓ 習得：そのページの試験範囲の問題の直近 {MASTERY_WINDOW} 問で {MASTERY_CORRECT} 問以上正解")
