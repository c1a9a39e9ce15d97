"""Session state: one place that creates and hands out the learner's progress."""
from __future__ import annotations

import streamlit as st

from practice.progress import new_progress

PROGRESS_KEY = "progress"


def init() -> None:
    if PROGRESS_KEY not in st.session_state:
        st.session_state[PROGRESS_KEY] = new_progress()


def get_progress() -> dict:
    init()
    return st.session_state[PROGRESS_KEY]


def set_progress(progress: dict) -> None:
    """Swap in a new progress dict (the practice functions never mutate the old one)."""
    st.session_state[PROGRESS_KEY] = progress
