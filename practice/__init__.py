"""practice: pure-Python study logic (progress, review schedule, mock exam). No streamlit."""
