"""The floor of any Streamlit app: one widget, one number (the `felt` section's reference).

`python -m bench --only felt` runs it side by side with app.py: what this app needs from an
input event to the changed number painted is what Streamlit itself costs.
"""
import streamlit as st

st.title("floor")
value = st.slider("値", 0, 100, 50, key="floor_slider")
st.markdown(f"結果: **{value * 2}**")
