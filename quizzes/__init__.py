"""quizzes: G検定-style questions whose answers and distractors the engine computes.

Never imports streamlit. Every module ``quizzes/gen_*.py`` registers its calculation
generators on import; ``quizzes/data/*.json`` holds the team's knowledge questions
(loaded by ``quizzes.knowledge``).
"""
import importlib
import pkgutil

from .core import *  # noqa: F401,F403
from .core import GENERATORS, by_topic, from_id  # noqa: F401  (explicit for readers)

for _mod in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if _mod.startswith("gen_"):
        importlib.import_module(f"{__name__}.{_mod}")

from . import knowledge  # noqa: E402,F401  (registers the knowledge bank)
