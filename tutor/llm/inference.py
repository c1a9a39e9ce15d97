"""Inference and input: the KV cache (2 · L · n_kv · d_head · T · bytes · B), how much
multi-query / grouped-query attention save, and byte-pair encoding (BPE) on a tiny corpus — with the
named mistakes next to them."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .models import _count

MIB, GIB = 2 ** 20, 2 ** 30


def in_kib(nbytes: int) -> float:
    """Bytes in KiB (2¹⁰ bytes): 524,288 → 512."""
    return _count(nbytes, "バイト数", zero=True) / 1024


def in_mib(nbytes: int) -> float:
    """Bytes in MiB (2²⁰ bytes): 536,870,912 → 512."""
    return _count(nbytes, "バイト数", zero=True) / MIB


def in_gib(nbytes: int) -> float:
    """Bytes in GiB (2³⁰ bytes): 2,147,483,648 → 2."""
    return _count(nbytes, "バイト数", zero=True) / GIB

# ---------------------------------------------------------------------------
# inference: the KV cache, MQA / GQA
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class KvCache:
    layers: int
    kv_heads: int
    d_head: int
    context: int
    bytes_per_value: int
    batch: int

    @property
    def per_token(self) -> int:
        """K and V of one token in every layer: 2·L·n_kv·d_head·bytes."""
        return 2 * self.layers * self.kv_heads * self.d_head * self.bytes_per_value

    @property
    def total(self) -> int:
        return self.per_token * self.context * self.batch


def kv_cache(layers: int, kv_heads: int, d_head: int, context: int, bytes_per_value: int = 2,
             batch: int = 1) -> KvCache:
    """The keys and values kept for every past token so that a new token's query needs only its
    own K and V computed: 2 (K and V) × L × n_kv × d_head × T × bytes × B. A 7B-size model
    (32 layers, 32 heads of 128, fp16) at T = 4,096: 2 GiB."""
    args = (_count(layers, "層数 L"), _count(kv_heads, "KV ヘッド数"), _count(d_head, "1 ヘッドの次元 d_head"),
            _count(context, "文脈の長さ T"), _count(bytes_per_value, "1 つの値のバイト数"), _count(batch, "バッチ"))
    if max(args) > 10 ** 7:
        raise ValueError("大きさは 10,000,000 以下にしてください。")
    return KvCache(*args)


def kv_cache_bytes(layers, kv_heads, d_head, context, bytes_per_value=2, batch=1) -> int:
    return kv_cache(layers, kv_heads, d_head, context, bytes_per_value, batch).total


def kv_cache_bytes_k_only(layers, kv_heads, d_head, context, bytes_per_value=2, batch=1) -> int:
    """MISTAKE: only the keys kept (the factor 2 for K and V forgotten)."""
    return kv_cache_bytes(layers, kv_heads, d_head, context, bytes_per_value, batch) // 2


def kv_cache_bytes_query_heads(layers, heads, kv_heads, d_head, context, bytes_per_value=2, batch=1) -> int:
    """MISTAKE: the number of query heads used for the KV heads (grouped-query attention ignored)."""
    kv_saving(heads, kv_heads)
    return kv_cache_bytes(layers, heads, d_head, context, bytes_per_value, batch)


def kv_cache_bytes_one_layer(layers, kv_heads, d_head, context, bytes_per_value=2, batch=1) -> int:
    """MISTAKE: one layer only (every layer keeps its own K and V)."""
    c = kv_cache(layers, kv_heads, d_head, context, bytes_per_value, batch)
    return c.total // c.layers


def kv_cache_bytes_no_batch(layers, kv_heads, d_head, context, bytes_per_value=2, batch=1) -> int:
    """MISTAKE: one sequence only (every sequence of the batch has its own cache)."""
    c = kv_cache(layers, kv_heads, d_head, context, bytes_per_value, batch)
    return c.total // c.batch


def kv_cache_curve(layers: int, heads: int, kv_heads, d_head: int, contexts, bytes_per_value: int = 2,
                   batch: int = 1) -> dict[int, tuple[int, ...]]:
    """{n_kv: the cache's bytes at each context length}: one line per number of KV heads, each of
    which must split the ``heads`` query heads into equal groups (for a plot)."""
    for g in kv_heads:
        kv_saving(heads, g)
    return {int(g): tuple(kv_cache_bytes(layers, g, d_head, t, bytes_per_value, batch) for t in contexts)
            for g in kv_heads}


def kv_saving(heads: int, kv_heads: int) -> int:
    """How many times smaller the cache is with n_kv KV heads shared by n_heads query heads:
    n_heads / n_kv (MHA: 1, GQA with 8 of 32: 4, MQA: n_heads)."""
    h, g = _count(heads, "クエリのヘッド数"), _count(kv_heads, "KV ヘッド数")
    if h % g:
        raise ValueError(f"クエリのヘッド数 {h} が KV ヘッド数 {g} で割り切れません（グループに等分できる数にしてください）。")
    return h // g


# ---------------------------------------------------------------------------
# subword tokenisation: byte-pair encoding (BPE)
# ---------------------------------------------------------------------------
BPE_DEMO_CORPUS = (("play", 8), ("plays", 3), ("played", 5), ("playing", 6), ("stay", 4), ("staying", 2),
                   ("sing", 3))
BPE_DEMO_NEW_WORDS = ("stayed", "singing", "pray")


@dataclass(frozen=True)
class BpeStep:
    pair: tuple[str, str]                  # the pair merged at this step
    count: int                             # how often it occurred (weighted by word counts)
    segments: tuple[tuple[str, ...], ...]  # every word after the merge
    vocabulary: tuple[str, ...]            # the symbols in use after the merge, sorted


@dataclass(frozen=True)
class BpeResult:
    words: tuple[str, ...]
    counts: tuple[int, ...]
    start: tuple[tuple[str, ...], ...]     # every word cut into characters
    steps: tuple[BpeStep, ...]

    @property
    def merges(self) -> tuple[tuple[str, str], ...]:
        return tuple(s.pair for s in self.steps)


def _letters(word: str, what: str) -> str:
    """A word of letters only (alphabet, kana, kanji …): BPE here merges letters, and a word with
    punctuation or symbols is refused with a Japanese message that quotes it."""
    if not word.isalpha():
        raise ValueError(f"{what}「{word[:24]}」に文字以外（記号・数字・空白など）が含まれています。"
                         "アルファベットや仮名・漢字だけの単語にしてください。")
    return word


def bpe_corpus(text: str) -> tuple[tuple[str, int], ...]:
    """Words separated by spaces (or new lines) → (word, count) in order of first appearance.
    Words are letters only (alphabet, kana, kanji)."""
    if not isinstance(text, str) or not text.split():
        raise ValueError("コーパスが空です。空白で区切った単語を 1 つ以上書いてください。")
    words = text.split()
    if len(words) > 300 or max(map(len, words)) > 24:
        raise ValueError("単語は 300 個まで、1 語は 24 文字までにしてください。")
    for w in words:
        _letters(w, "コーパスの単語")
    return tuple(Counter(words).items())


def _merge(word: tuple[str, ...], pair: tuple[str, str]) -> tuple[str, ...]:
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
            out.append(word[i] + word[i + 1])
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


def bpe_train(corpus, n_merges: int) -> BpeResult:
    """Start from characters; at each step count every adjacent pair over the corpus (each word
    weighted by its count), merge the most frequent pair everywhere (a tie: the pair met first when
    reading the corpus word by word, left to right), repeat ``n_merges`` times (fewer when every
    word is one symbol). Merges never cross a word boundary."""
    items = tuple(corpus.items()) if isinstance(corpus, dict) else tuple(corpus)
    if not items or any(not (isinstance(w, str) and w) for w, _ in items):
        raise ValueError("コーパスには 1 文字以上の単語を 1 つ以上入れてください。")
    n = _count(n_merges, "マージの回数", zero=True)
    if n > 200:
        raise ValueError("マージの回数は 200 以下にしてください。")
    words = tuple(w for w, _ in items)
    counts = tuple(_count(c, f"「{w}」の回数") for w, c in items)
    segs = [tuple(w) for w in words]
    start, steps = tuple(segs), []
    for _ in range(n):
        tally: dict[tuple[str, str], int] = {}                              # insertion order = reading order
        for seg, c in zip(segs, counts):
            for pair in zip(seg, seg[1:]):
                tally[pair] = tally.get(pair, 0) + c
        if not tally:
            break
        pair = max(tally, key=tally.get)                                    # first maximum in reading order
        segs = [_merge(s, pair) for s in segs]
        steps.append(BpeStep(pair, tally[pair], tuple(segs), tuple(sorted({t for s in segs for t in s}))))
    return BpeResult(words, counts, start, tuple(steps))


def bpe_tokenize(word: str, merges) -> tuple[str, ...]:
    """A (possibly unseen) word of letters cut into characters, then the learned merges applied in order."""
    if not isinstance(word, str) or not word or len(word) > 24:
        raise ValueError("区切る単語は 1 文字以上 24 文字以下で書いてください。")
    seg = tuple(_letters(word, "区切る単語"))
    for pair in merges:
        seg = _merge(seg, tuple(pair))
    return seg
