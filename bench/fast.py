"""Fast attention: the same numbers as ``tutor.attention(...).output``, without the intermediates.

    Attention(Q, K, V) = softmax(Q Kᵀ / √d_k [+ M_causal]) V

``tutor.attention`` keeps scores, scaled scores, masked scores and weights so that a page can
show every step (four n × n arrays per head). For long sequences only the output matters, so
this path does the same arithmetic with far fewer passes over memory:

1. Q is multiplied by 1/√d_k once (n·d_k products instead of n² divisions);
2. the n × n score matrix is never formed: the scores of one block of query rows go into one
   block buffer (rows × n_k ≈ 1 MiB, so it stays in the CPU cache) and max, subtraction and exp
   are done in place in it;
3. the row sums come out of the same matrix product as the output: P · [V | 1] gives
   Σ_j p_ij v_j and Σ_j p_ij together, and the output is divided by the sum once per row
   (n·d_v divisions instead of n² for normalising the weights);
4. with ``causal=True`` a block of query rows a … b−1 only multiplies keys 0 … b−1: every
   (row block × key block) tile above the diagonal is skipped, only the diagonal square is
   masked with −∞;
5. blocks are shared out over ``n_threads`` threads (NumPy releases the GIL inside BLAS
   and ufuncs). Each thread runs whole blocks (QKᵀ, exp, P·[V | 1]) with OpenBLAS held to
   one thread meanwhile — OpenBLAS threads busy-wait, and two levels of threads on the same
   cores slow everything down (measured with ``python -m bench``: 4× slower under load).
   Holding OpenBLAS needs the small ``threadpoolctl`` package; without it the matrix
   products stay on the calling thread (OpenBLAS uses every core there) and only the
   element-wise part (max, subtract, exp — one core in NumPy) is split over the threads.

Only the order of floating-point operations differs from ``tutor.attention``: the outputs
agree to about 1e-15 (tests check 1e-12).
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from tutor.core import checked_qkv, finite_scores

__all__ = ["fast_attention", "fast_attention_block_rows"]

# One score block is kept near this many float64 elements (≈ 1 MiB: fits in L2/L3 cache).
_BLOCK_ELEMENTS = 1 << 17
# Below this many score elements in a block, threads cost more than they save.
_MIN_THREADED_ELEMENTS = 1 << 14
_MAX_THREADS = 8

_pools: dict[int, ThreadPoolExecutor] = {}
_pools_lock = threading.Lock()


def _pool(n_threads: int) -> ThreadPoolExecutor:
    """One shared executor per thread count (threads are started once, not per call)."""
    with _pools_lock:
        pool = _pools.get(n_threads)
        if pool is None:
            pool = ThreadPoolExecutor(max_workers=n_threads, thread_name_prefix="tutor-fast")
            _pools[n_threads] = pool
        return pool


def _default_threads() -> int:
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(cores, _MAX_THREADS))


def _threads(n_threads) -> int:
    if n_threads is None:
        return _default_threads()
    if isinstance(n_threads, (bool, np.bool_)):
        raise ValueError(f"スレッド数 n_threads は 1 以上の整数が必要です（{n_threads!r}）。")
    try:
        as_int = int(n_threads)
    except (TypeError, ValueError):
        raise ValueError(f"スレッド数 n_threads は 1 以上の整数が必要です（{n_threads!r}）。") from None
    if as_int != n_threads or as_int < 1:
        raise ValueError(f"スレッド数 n_threads は 1 以上の整数が必要です（{n_threads!r}）。")
    return min(as_int, 64)


def fast_attention_block_rows(n_q: int, n_k: int) -> tuple[int, int]:
    """(heads per block, query rows per block) so that one score block holds ≈ 2^17 elements.

    Long sequences take a slice of rows of one head; short ones take whole heads together
    (fewer Python-level steps).
    """
    rows = max(16, _BLOCK_ELEMENTS // max(n_k, 1))
    if rows >= n_q:
        return max(1, _BLOCK_ELEMENTS // max(n_q * n_k, 1)), n_q
    return 1, rows


def _exp_shifted(s: np.ndarray) -> None:
    """In place: s ← exp(s − max of its row). Masked −∞ entries become exact zeros."""
    m = s.max(axis=-1, keepdims=True)                 # (..., r, 1)
    np.subtract(s, m, out=s)
    np.exp(s, out=s)


class _BlasOneThread:
    """While held (by any number of callers at once), OpenBLAS runs on one thread.

    Reference-counted: the first caller saves the thread counts and sets 1, the last one
    restores them, so overlapping calls from several threads never leave BLAS at 1 thread.
    ``available`` is False when threadpoolctl is not installed (then nothing is changed).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._holders = 0
        self._saved: list[tuple[object, int]] = []
        self._libs = None

    def _blas_libs(self) -> list:
        if self._libs is None:
            try:
                from threadpoolctl import ThreadpoolController
                self._libs = list(ThreadpoolController().select(user_api="blas").lib_controllers)
            except Exception:  # not installed, or no BLAS found: run without holding
                self._libs = []
        return self._libs

    @property
    def available(self) -> bool:
        return bool(self._blas_libs())

    def __enter__(self):
        with self._lock:
            if self._holders == 0:
                self._saved = [(lib, lib.num_threads) for lib in self._blas_libs()]
                for lib, _ in self._saved:
                    lib.set_num_threads(1)
            self._holders += 1
        return self

    def __exit__(self, *exc) -> None:
        with self._lock:
            self._holders -= 1
            if self._holders == 0:
                for lib, n in self._saved:
                    lib.set_num_threads(n)
                self._saved = []


_blas_one_thread = _BlasOneThread()


def fast_attention(q, k, v, causal: bool = False, *, scale: bool = True, n_threads: int | None = None) -> np.ndarray:
    """softmax(Q Kᵀ / √d_k [+ M_causal]) V — output only, equal to ``tutor.attention(...).output``.

    q: (..., n_q, d_k), k: (..., n_k, d_k), v: (..., n_k, d_v), float64; the leading dims
    (batch, heads) must be the same for all three, e.g. (h, n, d) or (b, h, n, d).
    causal: query i sees keys j ≤ i (needs n_q = n_k); the same as passing
    ``tutor.causal_mask(n)`` to ``tutor.attention``. scale=False drops the 1/√d_k.
    n_threads: threads to share the blocks over (default: the CPU cores, at most 8; 1 = run
    everything, OpenBLAS included, on the calling thread).
    Returns the (..., n_q, d_v) output. Inputs are never modified.
    """
    q, k, v = checked_qkv(q, k, v)
    *lead, n_q, d_k = q.shape
    n_k, d_v = v.shape[-2:]
    causal = bool(causal)
    if causal and n_q != n_k:
        raise ValueError(f"因果マスクにはクエリとキーの数が同じ必要があります（n_q = {n_q}, n_k = {n_k}）。")
    threads = _threads(n_threads)

    # 1. 1/√d_k を Q に一度だけ掛ける（新しい配列: 入力は書き換えない）
    inv_scale = 1.0 / np.sqrt(d_k) if scale else 1.0
    q3 = (q * inv_scale).reshape(-1, n_q, d_k)                    # (H, n_q, d_k)  H = batch·heads
    k_t = np.swapaxes(k.reshape(-1, n_k, d_k), -1, -2)            # (H, d_k, n_k)  view
    n_h = q3.shape[0]
    # 3. [V | 1]: one product gives Σ p·v and Σ p (the softmax denominator)
    v1 = np.empty((n_h, n_k, d_v + 1))                            # (H, n_k, d_v + 1)
    v1[..., :d_v] = v.reshape(n_h, n_k, d_v)
    v1[..., d_v] = 1.0
    out = np.empty((n_h, n_q, d_v))                               # (H, n_q, d_v)

    g, rows = fast_attention_block_rows(n_q, n_k)
    if threads > 1 and n_h * n_q * n_k >= _MIN_THREADED_ELEMENTS:  # enough blocks for every thread
        if rows == n_q and g * threads > n_h:
            g = max(1, -(-n_h // threads))
        if g == 1 and n_h * -(-n_q // rows) < threads:
            rows = max(1, -(-n_q // max(1, threads // n_h)))
    above = np.triu(np.ones((rows, rows), dtype=bool), 1) if causal else None  # (rows, rows) j > i
    # blocks: (first head, first row); causal blocks get larger with the row, so largest first
    blocks = [(h0, a) for h0 in range(0, n_h, g) for a in range(0, n_q, rows)]
    if causal:
        blocks.sort(key=lambda blk: -blk[1])

    def scores(h0: int, h1: int, a: int, b: int, s_out=None) -> np.ndarray:
        ke = b if causal else n_k                                 # 4. causal: keys after b−1 never touched
        with np.errstate(over="ignore"):                          # an overflow is reported by finite_scores
            s = finite_scores(np.matmul(q3[h0:h1, a:b], k_t[h0:h1, :, :ke], out=s_out))  # (g, r, ke)  scores / √d_k
        if causal:
            r = b - a
            np.copyto(s[..., a:b], -np.inf, where=above[:r, :r])  # diagonal square: j > i → −∞
        return s

    def finish(s: np.ndarray, h0: int, h1: int, a: int, b: int) -> None:
        o = np.matmul(s, v1[h0:h1, :s.shape[-1]])                 # (g, r, d_v + 1)  [Σ p·v | Σ p]
        np.divide(o[..., :d_v], o[..., d_v:], out=out[h0:h1, a:b])  # (g, r, d_v)

    def whole_block(blk: tuple[int, int]) -> None:
        h0, a = blk
        h1, b = min(h0 + g, n_h), min(a + rows, n_q)
        s = scores(h0, h1, a, b)                                  # (g, r, ke)
        _exp_shifted(s)
        finish(s, h0, h1, a, b)

    if threads == 1:
        with _blas_one_thread:                                    # one core: OpenBLAS too
            for blk in blocks:
                whole_block(blk)
    elif len(blocks) == 1 or n_h * n_q * n_k < _MIN_THREADED_ELEMENTS:
        for blk in blocks:                                        # too small to share out
            whole_block(blk)
    elif _blas_one_thread.available:
        # 5. each thread runs whole blocks, OpenBLAS held to one thread meanwhile
        with _blas_one_thread:
            for _ in _pool(threads).map(whole_block, blocks):
                pass
    else:
        # 5'. no threadpoolctl: products on this thread (OpenBLAS threads), exp split over threads
        pool = _pool(threads)
        buf = np.empty(g * rows * n_k)                            # the one reused score buffer
        for h0, a in blocks:
            h1, b = min(h0 + g, n_h), min(a + rows, n_q)
            ke = b if causal else n_k
            s = scores(h0, h1, a, b, buf[: (h1 - h0) * (b - a) * ke].reshape(h1 - h0, b - a, ke))
            r = b - a
            if s.size < _MIN_THREADED_ELEMENTS:
                _exp_shifted(s)
            else:
                if r >= threads:
                    step = -(-r // threads)
                    parts = [s[:, i:i + step] for i in range(0, r, step)]
                else:
                    step = -(-(h1 - h0) // threads)
                    parts = [s[i:i + step] for i in range(0, h1 - h0, step)]
                for _ in pool.map(_exp_shifted, parts):
                    pass
            finish(s, h0, h1, a, b)
    return out.reshape(*lead, n_q, d_v)                           # (..., n_q, d_v)
