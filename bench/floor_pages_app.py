"""The floor of a page switch: two pages of one slider and one number each, linked from the
sidebar with st.page_link (as app.py's pages are).

`python -m bench --only felt` switches pages here too: what Streamlit itself needs from a click
on a sidebar link to the other page drawn (a new script run that replaces the whole page), so a
page switch of this app is compared with this floor as well as with the slider's.
"""
import streamlit as st


def _page(n: int):
    def draw() -> None:
        st.title(f"floor: page {n}")
        value = st.slider("値", 0, 100, 50, key=f"floor_pages_{n}")
        st.markdown(f"結果: **{value * 2}**")
    draw.__name__ = f"page_{n}"
    return draw


PAGES = [st.Page(_page(1), title="ページ 1", url_path="one", default=True),
         st.Page(_page(2), title="ページ 2", url_path="two")]
current = st.navigation(PAGES, position="hidden")
with st.sidebar:
    for p in PAGES:
        st.page_link(p)
current.run()
