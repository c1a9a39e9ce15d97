"""ホーム: what this tutor is, the learning path with per-page status, where to go next."""
import streamlit as st

import ui
from practice.progress import topic_stats

ui.page("home")

st.title("アテンション・チューター")
st.markdown(
    "Transformer の心臓部である **Attention（注意機構）** を、小さな数値例を自分の手で"
    "計算しながら理解し、G検定の関連問題を解けるようになるための教材です。"
    "画面の数字はすべて、その場で NumPy の計算エンジンが出したものです。"
    "入力を変えれば結果も変わるので、納得がいくまで試してください。"
)

progress = ui.state.get_progress()
stats = topic_stats(progress)
learning = [p for p in ui.available_pages() if p.section == "学習"]

st.header("学習の道すじ", divider="gray")
st.caption("各ページは「ねらい → 解説 → 手計算 → 可視化 → 試してみよう → 確認クイズ」の順に進みます。")
for p in learning:
    s = stats.get(p.key)
    if s is None:
        status = "訪問済み・未解答" if progress["visited"].get(p.key) else "未学習"
    else:
        status = f"{s['correct']}/{s['answered']} 問正解" + ("・習得 ✓" if s["mastered"] else "")
    c1, c2 = st.columns([3, 2])
    with c1:
        st.page_link(p.path, label=p.label)
    with c2:
        st.caption(status)

st.header("次にやること", divider="gray")
todo = next((p for p in learning if not stats.get(p.key, {}).get("mastered")), None)
if todo is None and learning:
    st.success("すべてのページを習得しました。模擬試験で仕上げましょう。")
elif todo is not None:
    st.page_link(todo.path, label=f"{todo.label} に進む", icon="➡️")
for key in ("exam", "review"):
    info = ui.PAGE_BY_KEY[key]
    if info.exists:
        st.page_link(info.path, label=info.label, icon=info.icon)
