"""XLNet's permutation language modelling: n! factorization orders, the attention mask of one
order, and the named mistakes about who sees whom (tutor.bertfamily re-exports every name)."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from ..core import positive_int

XLNET_DEMO_TOKENS = ("猫", "が", "魚", "食べた")
XLNET_DEMO_ORDER = (2, 0, 3, 1)          # 3 → 1 → 4 → 2 for the learner
MAX_ORDER = 8           # an order is drawn as a heatmap: at most 8 positions
MAX_FACTORIAL_N = 20    # n! stays an exact int64-sized count


# ---------------------------------------------------------------------------
# XLNet: permutation language modelling
# ---------------------------------------------------------------------------
def factorization_orders(n: int) -> int:
    """n! ways to order the prediction of n tokens."""
    n = positive_int(n, "トークン数 n")
    if n > MAX_FACTORIAL_N:
        raise ValueError(f"トークン数は {MAX_FACTORIAL_N} までにしてください（{n}）。")
    return math.factorial(n)


def orders_with_first(n: int) -> int:
    """Orders in which one given position is predicted first: the other n − 1 in any order, (n − 1)!."""
    return factorization_orders(positive_int(n, "トークン数 n") - 1) if n > 1 else 1


def orders_with_before(n: int) -> int:
    """Orders in which position i is predicted before position j (i ≠ j): half of them, n!/2."""
    n = positive_int(n, "トークン数 n")
    if n < 2:
        raise ValueError("2 つの位置の前後を比べるには、トークンが 2 つ以上必要です。")
    return factorization_orders(n) // 2


def orders_condition_ignored(n: int) -> int:
    """MISTAKE: the condition overlooked, every order counted: n!."""
    return factorization_orders(n)


def orders_before_as_first(n: int) -> int:
    """MISTAKE: 「i before j」 read as 「i first」: (n − 1)!."""
    return orders_with_first(n)


def orders_both_fixed(n: int) -> int:
    """MISTAKE: i and j both pinned (i first, j second), the rest in any order: (n − 2)!."""
    n = positive_int(n, "トークン数 n")
    if n < 2:
        raise ValueError("2 つの位置の前後を比べるには、トークンが 2 つ以上必要です。")
    return math.factorial(n - 2)


def orders_as_pairs(n: int) -> int:
    """MISTAKE: counted the (i, j) pairs, n²."""
    return positive_int(n, "トークン数 n") ** 2


def orders_as_subsets(n: int) -> int:
    """MISTAKE: counted which tokens to hide (subsets), 2ⁿ."""
    return 2 ** positive_int(n, "トークン数 n")


def orders_as_sum(n: int) -> int:
    """MISTAKE: 1 + 2 + … + n instead of 1 × 2 × … × n."""
    n = positive_int(n, "トークン数 n")
    return n * (n + 1) // 2


@dataclass(frozen=True)
class PermutationMask:
    order: tuple[int, ...]   # (n,) positions in the order they are predicted
    rank: tuple[int, ...]    # (n,) rank[i] = when position i is predicted (0 = first)
    mask: np.ndarray         # (n, n) bool: mask[i, j] = True when position i may see position j

    def visible(self, i: int) -> tuple[int, ...]:
        """The positions that position i sees when it is predicted (ascending)."""
        return tuple(int(j) for j in np.flatnonzero(self.mask[i]))


def _check_order(order) -> tuple[int, ...]:
    out = tuple(int(x) for x in order)
    n = len(out)
    if n == 0:
        raise ValueError("順序が空です。位置を 1 つ以上並べてください。")
    if n > MAX_ORDER:
        raise ValueError(f"位置は {MAX_ORDER} 個までにしてください（いま {n} 個）。")
    if sorted(out) != list(range(n)):
        raise ValueError(f"順序は 1〜{n} をちょうど 1 回ずつ並べてください（いま {[x + 1 for x in out]}）。")
    return out


def permutation_mask(order) -> PermutationMask:
    """The attention mask of one factorization order (0-based positions).

        mask[i, j] = rank[j] < rank[i]     (i sees j when j is predicted before i)

    The sequence keeps its positions (and position encodings); only who-sees-whom changes.
    The first position of the order sees nothing, the last sees all the others."""
    order = _check_order(order)
    n = len(order)
    rank = [0] * n
    for t, pos in enumerate(order):
        rank[pos] = t
    r = np.array(rank)
    return PermutationMask(order, tuple(rank), r[None, :] < r[:, None])     # (n, n)


def visible_left_to_right(order, i: int) -> tuple[int, ...]:
    """MISTAKE: the positions left of i (GPT's causal mask), whatever the order."""
    return tuple(range(_position(order, i)))


def visible_with_self(order, i: int) -> tuple[int, ...]:
    """MISTAKE: position i counted as seeing its own word too (the word it must predict)."""
    return tuple(sorted(permutation_mask(order).visible(_position(order, i)) + (i,)))


def visible_all_others(order, i: int) -> tuple[int, ...]:
    """MISTAKE: every other position (BERT's bidirectional view), whatever the order."""
    n = len(_check_order(order))
    return tuple(j for j in range(n) if j != _position(order, i))


def visible_after(order, i: int) -> tuple[int, ...]:
    """MISTAKE: the positions predicted AFTER i in the order (the direction reversed)."""
    m = permutation_mask(order)
    return tuple(int(j) for j in np.flatnonzero(m.mask[:, _position(order, i)]))


def _position(order, i: int) -> int:
    n = len(_check_order(order))
    i = int(i)
    if not 0 <= i < n:
        raise ValueError(f"位置は 1〜{n} で選んでください（{i + 1}）。")
    return i


def parse_order(text: str) -> tuple[int, ...]:
    """'3 1 4 2' or '3,1,4,2' (1-based, as the learner types it) → (2, 0, 3, 1)."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("順序が空です。位置の番号を空白かカンマで区切って入れてください（例：3 1 4 2）。")
    parts = [p for p in re.split(r"[\s,、，]+", text.strip()) if p]
    if not all(p.isdecimal() and len(p) <= 2 for p in parts):
        bad = next(p for p in parts if not (p.isdecimal() and len(p) <= 2))
        raise ValueError(f"「{bad[:6]}」は位置の番号として読めません。1 からの整数を並べてください。")
    return _check_order(int(p) - 1 for p in parts)
