"""Shared pytest setup.

AppTest adds only the script's folder to sys.path, so the project root is put there
explicitly: pages can then `import ui`, `import tutor`, `import quizzes`.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
