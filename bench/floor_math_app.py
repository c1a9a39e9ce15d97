"""The floor app with one formula: what Streamlit's math (KaTeX, fetched and set up on first use)
adds to a cold open. `python -m bench --only phone` opens it beside the floor app, so the learning
pages' ratio can be read as Streamlit's math + this app's own cost.
"""
import streamlit as st

st.title("floor")
value = st.slider("値", 0, 100, 50, key="floor_slider")
st.markdown(f"結果: **{value * 2}**（$y = 2x$）")
st.latex(r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right) V")
