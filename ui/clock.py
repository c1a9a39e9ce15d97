"""The learner's clock: "today", due days and the times the progress keeps are the learner's.

The server's clock is not the learner's: Community Cloud runs in UTC, so a learner in Japan
(UTC+9) would see yesterday's date until 09:00 — reviews due today hidden all morning, the
exam countdown one day off, a mock exam at 23:00 listed at 14:00. The browser tells Streamlit
its UTC offset with every run (``st.context.timezone_offset``, minutes *behind* UTC, as
JavaScript's ``Date.getTimezoneOffset`` gives it: -540 in Japan); without it (AppTest, a
browser that says nothing) the server's own zone is used, which is the learner's when the app
runs on their machine.
"""
from __future__ import annotations

from datetime import date, datetime, timedelta, timezone, tzinfo

import streamlit as st

MAX_OFFSET_MIN = 18 * 60   # real zones lie within UTC-12 … UTC+14; anything else is not an offset


def zone(offset_min=None) -> tzinfo | None:
    """The learner's time zone from the browser's offset (None: the server's zone)."""
    if offset_min is None:
        try:
            offset_min = st.context.timezone_offset
        except Exception:  # noqa: BLE001 - no request behind this run
            return None
    if isinstance(offset_min, bool) or not isinstance(offset_min, (int, float)) or not abs(offset_min) <= MAX_OFFSET_MIN:
        return None
    return timezone(-timedelta(minutes=int(offset_min)))


def now() -> datetime:
    """The learner's wall-clock time, aware: in their zone, or in the server's own without one."""
    return datetime.now(zone_or_local())


def zone_or_local() -> tzinfo:
    """The learner's zone, or the server's own (which is the learner's when it runs on their machine)."""
    return zone() or datetime.now().astimezone().tzinfo


def today() -> date:
    """The learner's calendar day."""
    return now().date()
