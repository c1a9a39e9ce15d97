"""The floor of a cell edit: one st.data_editor (text cells, like ui.matrix_editor) and one number.

`python -m bench --only felt` edits a cell here too. st.data_editor itself waits ~170 ms after
Enter before the edit reaches the server (measured on the development machine: a one-editor app
needs ~250 ms from Enter to the new number painted, the slider floor ~75 ms), so a cell edit is
compared with this floor as well as with the slider's.
"""
import pandas as pd
import streamlit as st

st.title("floor: editor")
cells = pd.DataFrame([["1", "0", "1", "0"], ["0", "1", "0", "1"], ["1", "1", "0", "0"]],
                     index=["猫", "魚", "それ"], columns=["次元1", "次元2", "次元3", "次元4"], dtype="string")
edited = st.data_editor(cells, key="floor_editor", num_rows="fixed", width="content")
st.metric("それ → 猫", str(sum(float(v or 0) for v in edited.to_numpy().ravel())))
