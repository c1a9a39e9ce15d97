"""Word vectors: one-hot vs dense embeddings, cosine similarity, the analogy a − b + c, the
embedding table's size, a co-occurrence table (the distributional idea), and static vs
contextual vectors — with the named mistakes next to the formulas they distort.

    cos(a, b) = a · b / (‖a‖ ‖b‖)
    analogy:  a : b = c : ?   →   t = e_b − e_a + e_c,  ? = argmax_{w ∉ {a, b, c}} cos(t, e_w)
    one-hot:  onehot(i) E = E[i]          (V,) · (V, d) → (d,)
    sizes:    embedding table V × d;  word2vec learns two (input and output): 2 V d
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import as_matrix, attention, positive_int

# ---------------------------------------------------------------------------
# worked examples (invented values, not a trained model: each column says what it stands for)
# ---------------------------------------------------------------------------
EMB_WORDS = ("猫", "犬", "魚", "走る")
EMB_DIMS = ("動物", "食べ物", "動き")   # how much a word is an animal, a food, a movement
EMB_VECTORS = np.array([[2.0, 1.0, 0.0],         # (V, d) = (4, 3)
                        [2.0, 1.0, 1.0],
                        [1.0, 2.0, 0.0],
                        [0.0, 0.0, 2.0]])

# the analogy 男 : 王 = 女 : ?  (2-D so that it can be drawn; 城 is long: a dot product prefers it)
ANALOGY_WORDS = ("男", "女", "王", "女王", "城", "少女")
ANALOGY_DIMS = ("王族らしさ", "女性らしさ")        # the 2nd axis: + for 女性, − for 男性
ANALOGY_VECTORS = np.array([[1.0, -2.0],          # (V, d) = (6, 2)
                            [1.0, 2.0],
                            [5.0, -2.0],
                            [5.0, 3.0],
                            [9.0, 0.0],
                            [0.0, 3.0]])
ANALOGY_QUERY = (0, 2, 1)                         # 男 : 王 = 女 : ?  → 王 − 男 + 女

# static vs contextual: はし is 橋 (bridge) in one sentence and 箸 (chopsticks) in the other
CTX_WORDS = ("はし", "川", "渡る", "ご飯", "食べる")
CTX_DIMS = ("食事", "移動", "水辺")
CTX_VECTORS = np.array([[1.0, 1.0, 0.0],         # (5, 3): はし is half food, half movement
                        [0.0, 1.0, 2.0],
                        [0.0, 2.0, 1.0],
                        [2.0, 0.0, 0.0],
                        [2.0, 0.0, 1.0]])
CTX_SENTENCES = ((1, 0, 2), (3, 0, 4))           # 川・はし・渡る / ご飯・はし・食べる (word indices)

# the distributional idea: 猫 and 犬 never meet, but stand in the same places (and so do 魚 and 肉)
DIST_CORPUS = (("かわいい", "猫", "を", "飼う"), ("かわいい", "犬", "を", "飼う"),
               ("おいしい", "魚", "を", "焼く"), ("おいしい", "肉", "を", "焼く"),
               ("猫", "が", "鳴く"), ("犬", "が", "鳴く"))
DIST_WORDS = ("猫", "犬", "魚", "肉")

# sizes of a realistic table (the hand calculation of the parameter count)
PARAM_EXAMPLE = {"vocab": 10_000, "dim": 300}
for _a in (EMB_VECTORS, ANALOGY_VECTORS, CTX_VECTORS):
    _a.flags.writeable = False
MAX_COUNT = 10 ** 9                               # vocabulary sizes and widths the page accepts


def _vector(x, name: str) -> np.ndarray:
    return as_matrix(x, name, ndim=1)


def _norm(v: np.ndarray) -> float:
    """‖v‖ without overflow for huge entries (scaled by the largest |entry|)."""
    m = float(np.max(np.abs(v)))
    return 0.0 if m == 0.0 else m * float(np.sqrt(np.sum((v / m) ** 2)))


def _pair(a, b) -> tuple[np.ndarray, np.ndarray]:
    a, b = _vector(a, "ベクトル a"), _vector(b, "ベクトル b")
    if a.shape != b.shape:
        raise ValueError(f"2 つのベクトルの長さが違います（{a.shape[0]} と {b.shape[0]}）。")
    return a, b


# ---------------------------------------------------------------------------
# one-hot and the embedding table
# ---------------------------------------------------------------------------
def one_hot_vector(index, size) -> np.ndarray:
    """The one-hot vector of word ``index`` in a vocabulary of ``size`` words: (size,)."""
    size = positive_int(size, "語彙数")
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)) or not 0 <= index < size:
        raise ValueError(f"単語の番号は 0 以上 {size - 1} 以下の整数が必要です（{index!r}）。")
    out = np.zeros(size)
    out[int(index)] = 1.0
    return out


def embedding_lookup(e, index) -> tuple[np.ndarray, np.ndarray]:
    """(onehot(index), onehot(index) E): the product only picks row ``index`` of E (V, d) → (d,)."""
    e = as_matrix(e, "埋め込み", ndim=2)
    x = one_hot_vector(index, e.shape[0])          # (V,)
    return x, x @ e                                # (V,), (d,)


def _sizes(vocab, dim) -> tuple[int, int]:
    v, d = positive_int(vocab, "語彙数 V"), positive_int(dim, "次元 d")
    if v > MAX_COUNT or d > MAX_COUNT:
        raise ValueError(f"語彙数と次元は {MAX_COUNT:,} 以下にしてください（V = {v:,}、d = {d:,}）。")
    return v, d


def embedding_params(vocab, dim) -> int:
    """Numbers in an embedding table: V rows of d numbers."""
    v, d = _sizes(vocab, dim)
    return v * d


def word2vec_params(vocab, dim) -> int:
    """word2vec learns two tables of V × d (the input vectors, kept as the word vectors, and the
    output vectors used only while training): 2 V d."""
    v, d = _sizes(vocab, dim)
    return 2 * v * d


def embedding_params_one_hot(vocab, dim) -> int:
    """Mistake: the length V of one one-hot vector taken for the table's size."""
    return _sizes(vocab, dim)[0]


def embedding_params_added(vocab, dim) -> int:
    """Mistake: V + d (added instead of multiplied)."""
    v, d = _sizes(vocab, dim)
    return v + d


# ---------------------------------------------------------------------------
# cosine similarity and its mistakes
# ---------------------------------------------------------------------------
def vector_norm(a) -> float:
    """‖a‖ = √(a · a), the length of a vector."""
    return _norm(_vector(a, "ベクトル"))


def cosine_similarity(a, b) -> float:
    """cos(a, b) = a · b / (‖a‖ ‖b‖); ValueError for a zero vector (no direction)."""
    a, b = _pair(a, b)
    na, nb = _norm(a), _norm(b)
    if na == 0.0 or nb == 0.0:
        raise ValueError("長さ 0 のベクトルには向きがないので、コサイン類似度を計算できません。")
    return float(np.clip((a / na) @ (b / nb), -1.0, 1.0))


def cosine_without_norm(a, b) -> float:
    """Mistake: the dot product a · b taken for the cosine (not divided by the lengths)."""
    a, b = _pair(a, b)
    return float(a @ b)


def cosine_one_norm(a, b) -> float:
    """Mistake: divided by ‖a‖ only."""
    a, b = _pair(a, b)
    na = _norm(a)
    if na == 0.0:
        raise ValueError("長さ 0 のベクトルでは割れません。")
    return float(a @ b) / na


def euclidean_distance(a, b) -> float:
    """‖a − b‖: a distance (small = near), not a similarity (large = near)."""
    a, b = _pair(a, b)
    return _norm(a - b)


def similarity_matrix(e) -> np.ndarray:
    """Cosine similarity of every pair of rows of e (V, d) → (V, V); ValueError for a zero row."""
    e = as_matrix(e, "埋め込み", ndim=2)
    norms = np.array([_norm(r) for r in e])                 # (V,)
    if np.any(norms == 0.0):
        rows = [str(i + 1) for i in np.flatnonzero(norms == 0.0)]
        raise ValueError(f"{', '.join(rows)} 行目がすべて 0 です。長さ 0 のベクトルには向きがありません。")
    unit = e / norms[:, None]                               # (V, d)
    return np.clip(unit @ unit.T, -1.0, 1.0)                # (V, V)


# ---------------------------------------------------------------------------
# the analogy a : b = c : ?
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class AnalogyResult:
    target: np.ndarray       # (d,) e_b − e_a + e_c
    cosines: np.ndarray      # (V,) cos(target, e_w) for every word
    dots: np.ndarray         # (V,) target · e_w (what a forgotten normalisation compares)
    allowed: np.ndarray      # (V,) bool: the candidates (every word but a, b, c)
    best: int                # argmax of the cosine over the candidates

    @property
    def best_by_dot(self) -> int:
        """The word a dot-product ranking picks (the mistake 「正規化しない」)."""
        return int(np.flatnonzero(self.allowed)[np.argmax(self.dots[self.allowed])])

    @property
    def best_with_inputs(self) -> int:
        """The word the cosine picks when a, b, c are not left out."""
        return int(np.argmax(self.cosines))


def _analogy_inputs(e, a, b, c) -> tuple[np.ndarray, tuple[int, int, int]]:
    e = as_matrix(e, "埋め込み", ndim=2)
    v = e.shape[0]
    idx = []
    for name, w in (("a", a), ("b", b), ("c", c)):
        if isinstance(w, (bool, np.bool_)) or not isinstance(w, (int, np.integer)) or not 0 <= w < v:
            raise ValueError(f"類推の語 {name} の番号は 0〜{v - 1} の整数が必要です（{w!r}）。")
        idx.append(int(w))
    if len(set(idx)) < 3:
        raise ValueError("類推の 3 つの語 a, b, c は別々の語にしてください。")
    if v < 4:
        raise ValueError(f"類推には、a, b, c のほかに少なくとも 1 語が必要です（いまは {v} 語）。")
    return e, (idx[0], idx[1], idx[2])


def analogy(e, a: int, b: int, c: int) -> AnalogyResult:
    """a : b = c : ?  — t = e_b − e_a + e_c, then the word (other than a, b, c) whose vector has the
    largest cosine with t (word2vec's word-analogy tool leaves the three out the same way)."""
    e, (a, b, c) = _analogy_inputs(e, a, b, c)
    target = e[b] - e[a] + e[c]                              # (d,)
    if _norm(target) == 0.0:
        raise ValueError("e_b − e_a + e_c が 0 ベクトルになり、向きがありません。別の語を選んでください。")
    norms = np.array([_norm(r) for r in e])                  # (V,)
    if np.any(norms == 0.0):
        raise ValueError("すべて 0 の行があります。長さ 0 のベクトルには向きがありません。")
    dots = e @ target                                        # (V,)
    cosines = np.clip(dots / (norms * _norm(target)), -1.0, 1.0)
    allowed = np.ones(e.shape[0], dtype=bool)
    allowed[[a, b, c]] = False
    best = int(np.flatnonzero(allowed)[np.argmax(cosines[allowed])])
    return AnalogyResult(target, cosines, dots, allowed, best)


def analogy_sign_slip(e, a: int, b: int, c: int) -> np.ndarray:
    """Mistake: e_a − e_b + e_c (the two words of the known pair swapped)."""
    e, (a, b, c) = _analogy_inputs(e, a, b, c)
    return e[a] - e[b] + e[c]


# ---------------------------------------------------------------------------
# the distributional idea: count the neighbours
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Cooccurrence:
    vocab: tuple[str, ...]   # words in order of first appearance
    counts: np.ndarray       # (V, V): counts[i, j] = how often word j stands within the window of word i


def cooccurrence(docs, window: int = 1) -> Cooccurrence:
    """How often each word has each other word within ``window`` positions of it (inside one
    document). Rows of words used in the same places come out alike (the distributional idea)."""
    c = positive_int(window, "窓の幅")
    docs = [tuple(str(t) for t in d) for d in docs]
    if not docs or not any(docs):
        raise ValueError("文書が空です。少なくとも 1 語が必要です。")
    vocab = tuple(dict.fromkeys(t for d in docs for t in d))
    index = {w: i for i, w in enumerate(vocab)}
    counts = np.zeros((len(vocab), len(vocab)))              # (V, V)
    for d in docs:
        for i, w in enumerate(d):
            for j in range(max(0, i - c), min(len(d), i + c + 1)):
                if j != i:
                    counts[index[w], index[d[j]]] += 1
    return Cooccurrence(vocab, counts)


@dataclass(frozen=True)
class ContextVectors:
    words: tuple[str, ...]      # the rows asked for
    contexts: tuple[str, ...]   # the neighbours any of them has (in order of first appearance)
    counts: np.ndarray          # (W, C) how often each context word stands in each word's window
    cosines: np.ndarray         # (W, W) cosine similarity of the rows


def context_vectors(docs, words, window: int = 1) -> ContextVectors:
    """Count-based word vectors: each word's row of :func:`cooccurrence`, restricted to the
    neighbours that occur, and how alike the rows are."""
    co = cooccurrence(docs, window)
    missing = [w for w in words if w not in co.vocab]
    if missing:
        raise ValueError(f"「{missing[0]}」は文書に出てこない語です。")
    rows = [co.vocab.index(w) for w in words]
    keep = [j for j in range(len(co.vocab)) if co.counts[rows, j].any()]
    counts = co.counts[np.ix_(rows, keep)]                   # (W, C)
    return ContextVectors(tuple(words), tuple(co.vocab[j] for j in keep), counts, similarity_matrix(counts))


# ---------------------------------------------------------------------------
# static vs contextual word vectors
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class ContextualResult:
    static: tuple[np.ndarray, ...]     # per sentence (n_k, d): the word vectors looked up (word2vec-like)
    weights: tuple[np.ndarray, ...]    # per sentence (n_k, n_k): softmax(E Eᵀ), rows sum to 1
    context: tuple[np.ndarray, ...]    # per sentence (n_k, d): softmax(E Eᵀ) E, the same word differs


def contextual_embeddings(e, sentences) -> ContextualResult:
    """Static vs contextual vectors. Static: row e[w] for word w, whatever the sentence. Contextual:
    each sentence's rows mixed by one naive self-attention layer (page ①), c = softmax(E Eᵀ) E —
    a stand-in for ELMo (a bidirectional LSTM) and BERT (many self-attention layers).

    e (V, d); sentences: sequences of word indices into e."""
    e = as_matrix(e, "埋め込み", ndim=2)
    static, weights, context = [], [], []
    for k, sent in enumerate(sentences):
        idx = [int(w) for w in sent]
        if not idx or any(w < 0 or w >= e.shape[0] for w in idx):
            raise ValueError(f"{k + 1} 文目の語の番号は 0〜{e.shape[0] - 1} が必要です（{list(sent)}）。")
        x = e[idx]                                           # (n_k, d)
        res = attention(x, x, x, scale=False)                # softmax(X Xᵀ) X
        static.append(x)
        weights.append(res.weights)
        context.append(res.output)
    return ContextualResult(tuple(static), tuple(weights), tuple(context))
