"""tutor: the NumPy engine behind every number the app shows.

Pure functions of float64 arrays: no streamlit, no pandas, no global state, inputs never
mutated, randomness only from a passed ``np.random.Generator``.
"""
from . import textbook
from .core import *  # noqa: F401,F403
from .position import *  # noqa
from .sampling import *  # noqa
from .layers import *  # noqa
from .multihead import *  # noqa
from .masking import *  # noqa
from .models import *  # noqa
from .cost import *  # noqa
from .tiled import *  # noqa
from .transformer_demos import *  # noqa
from .quizmath import *  # noqa
from .steps import *  # noqa
from .lessons import *  # noqa
from .transformer_mistakes import *  # noqa
from .training import *  # noqa
from .fast import *  # noqa
