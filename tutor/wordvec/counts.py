"""Counting words: Bag-of-Words, TF-IDF, N-grams and a bigram language model on a tiny corpus —
with the named mistakes next to the formulas they distort.

The TF-IDF variant used here (several exist; the exam asks the idea, not one variant):

    tf(t, d)  = (times t occurs in d) / (words in d)
    idf(t)    = log_base(N / df(t))          N: documents, df(t): documents that contain t
    tfidf     = tf · idf

A word that occurs in every document has df = N, so idf = log 1 = 0: it gets no weight, however
often it occurs. The base (2 here, so that the hand calculation stays whole; e and 10 are common
too) only multiplies every idf by the same constant.

Bigram language model (maximum likelihood):  P(w | v) = C(v w) / Σ_u C(v u).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from ..core import positive_int

# the worked corpus: four short documents, already split into words (a morphological analyser
# does this for Japanese). が and を occur in every document: idf = 0.
CORPUS = (("猫", "が", "魚", "を", "食べる"),
          ("犬", "が", "肉", "を", "食べる"),
          ("猫", "が", "犬", "を", "追う"),
          ("鳥", "が", "空", "を", "飛ぶ"))
WORD_ORDER_PAIR = (("猫", "が", "犬", "を", "追う"), ("犬", "が", "猫", "を", "追う"))   # same BoW, other meaning
IDF_BASE = 2
MAX_DOCS, MAX_WORDS = 8, 30            # what the page's text boxes accept
MAX_WORD_CHARS = 20
WORD = re.compile(r"[^\W_]+")         # letters and digits of any script (kana, kanji, ー, 々, a–z …); no symbols


# ---------------------------------------------------------------------------
# text → words
# ---------------------------------------------------------------------------
def split_text(text: str, *, what: str = "文") -> tuple[str, ...]:
    """Words separated by spaces (full-width spaces too). Japanese has no spaces between words:
    in practice a morphological analyser splits it; here the learner does."""
    if not isinstance(text, str):
        raise ValueError(f"{what}は文字列で入れてください。")
    words = tuple(text.replace("\u3000", " ").split())
    if not words:
        raise ValueError(f"{what}が空です。語を空白で区切って入れてください。")
    if len(words) > MAX_WORDS:
        raise ValueError(f"{what}は {MAX_WORDS} 語までにしてください（いまは {len(words)} 語）。")
    bad = next((w for w in words if len(w) > MAX_WORD_CHARS or not WORD.fullmatch(w)), None)
    if bad is not None:
        raise ValueError(f"語「{bad[:MAX_WORD_CHARS]}」は使えません。1 語は {MAX_WORD_CHARS} 文字までの文字・数字にしてください"
                         "（記号は使えません）。")
    return words


def split_corpus(lines) -> tuple[tuple[str, ...], ...]:
    """One document per non-empty line."""
    docs = [ln for ln in (str(x) for x in lines) if ln.strip()]
    if not docs:
        raise ValueError("文書が 1 つもありません。1 行に 1 文書を書いてください。")
    if len(docs) > MAX_DOCS:
        raise ValueError(f"文書は {MAX_DOCS} 件までにしてください（いまは {len(docs)} 件）。")
    return tuple(split_text(d, what=f"{k + 1} 行目の文書") for k, d in enumerate(docs))


def _docs(docs) -> tuple[tuple[str, ...], ...]:
    out = tuple(tuple(str(t) for t in d) for d in docs)
    if not out or any(not d for d in out):
        raise ValueError("空の文書があります。どの文書にも少なくとも 1 語が必要です。")
    return out


# ---------------------------------------------------------------------------
# Bag-of-Words
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class BagOfWords:
    vocab: tuple[str, ...]     # in order of first appearance
    counts: np.ndarray         # (D, V) how often each word occurs in each document


def bag_of_words(docs) -> BagOfWords:
    """Each document as the count of every vocabulary word: the order of the words is lost."""
    docs = _docs(docs)
    vocab = tuple(dict.fromkeys(t for d in docs for t in d))
    index = {w: j for j, w in enumerate(vocab)}
    counts = np.zeros((len(docs), len(vocab)))               # (D, V)
    for i, d in enumerate(docs):
        for t in d:
            counts[i, index[t]] += 1
    return BagOfWords(vocab, counts)


# ---------------------------------------------------------------------------
# TF-IDF
# ---------------------------------------------------------------------------
def _log(x: float, base) -> float:
    if base not in (2, 10, "e"):
        raise ValueError(f"対数の底は 2、10、e のどれかにしてください（{base!r}）。")
    return math.log2(x) if base == 2 else math.log10(x) if base == 10 else math.log(x)


def _idf_inputs(n_docs, df) -> tuple[int, int]:
    n, f = positive_int(n_docs, "文書の数 N"), positive_int(df, "その語を含む文書の数 df")
    if f > n:
        raise ValueError(f"語を含む文書の数 df（{f}）は、文書の数 N（{n}）以下です。")
    return n, f


def _tf_inputs(count, length) -> tuple[int, int]:
    k, m = positive_int(count, "出現回数"), positive_int(length, "文書の語数")
    if k > m:
        raise ValueError(f"出現回数（{k}）は文書の語数（{m}）以下です。")
    return k, m


def idf_value(n_docs, df, base=IDF_BASE) -> float:
    """idf = log(N / df): 0 for a word in every document, largest for a word in one document."""
    n, f = _idf_inputs(n_docs, df)
    return _log(n / f, base)


def idf_without_log(n_docs, df, base=IDF_BASE) -> float:
    """Mistake: N / df (the log forgotten): a word in every document would still weigh 1."""
    n, f = _idf_inputs(n_docs, df)
    return n / f


def idf_inverted(n_docs, df, base=IDF_BASE) -> float:
    """Mistake: log(df / N) (the fraction upside down): ≤ 0 for every word."""
    n, f = _idf_inputs(n_docs, df)
    return _log(f / n, base)


def tf_value(count, length) -> float:
    """tf = count / length (the share of the document's words)."""
    k, m = _tf_inputs(count, length)
    return k / m


def tfidf_value(count, length, n_docs, df, base=IDF_BASE) -> float:
    """tf · idf of one word in one document."""
    return tf_value(count, length) * idf_value(n_docs, df, base)


def tfidf_without_log(count, length, n_docs, df, base=IDF_BASE) -> float:
    """Mistake: tf · N/df."""
    return tf_value(count, length) * idf_without_log(n_docs, df, base)


def tfidf_raw_count(count, length, n_docs, df, base=IDF_BASE) -> float:
    """Mistake: the raw count instead of tf (not divided by the document's length)."""
    k, _ = _tf_inputs(count, length)
    return k * idf_value(n_docs, df, base)


def tfidf_inverted(count, length, n_docs, df, base=IDF_BASE) -> float:
    """Mistake: tf · log(df / N)."""
    return tf_value(count, length) * idf_inverted(n_docs, df, base)


@dataclass(frozen=True)
class TfIdf:
    vocab: tuple[str, ...]
    counts: np.ndarray         # (D, V)
    lengths: np.ndarray        # (D,) words per document
    tf: np.ndarray             # (D, V) counts / lengths
    df: np.ndarray             # (V,) documents containing each word
    idf: np.ndarray            # (V,) log(N / df)
    weights: np.ndarray        # (D, V) tf · idf
    base: object = IDF_BASE

    @property
    def everywhere(self) -> tuple[str, ...]:
        """The words in every document (idf 0)."""
        return tuple(w for w, f in zip(self.vocab, self.df) if f == len(self.lengths))


def tfidf(docs, base=IDF_BASE) -> TfIdf:
    """TF-IDF of every word in every document (the variant in the module docstring)."""
    bow = bag_of_words(docs)
    counts = bow.counts                                       # (D, V)
    lengths = counts.sum(axis=1)                              # (D,)
    tf = counts / lengths[:, None]                            # (D, V)
    df = (counts > 0).sum(axis=0).astype(float)               # (V,)
    n = counts.shape[0]
    idf = np.array([_log(n / f, base) for f in df])           # (V,)
    return TfIdf(bow.vocab, counts, lengths, tf, df, idf, tf * idf[None, :], base)


# ---------------------------------------------------------------------------
# N-grams and a bigram language model
# ---------------------------------------------------------------------------
def ngrams(tokens, n) -> tuple[tuple[str, ...], ...]:
    """The runs of n consecutive tokens, in order (L − n + 1 of them; none when L < n)."""
    n = positive_int(n, "N")
    tokens = tuple(str(t) for t in tokens)
    return tuple(tokens[i:i + n] for i in range(len(tokens) - n + 1))


def ngram_count(length, n) -> int:
    """How many N-grams a sequence of ``length`` tokens has: L − N + 1 (0 when L < N)."""
    m, k = positive_int(length, "語数 L"), positive_int(n, "N")
    return max(m - k + 1, 0)


@dataclass(frozen=True)
class Bigram:
    vocab: tuple[str, ...]
    counts: np.ndarray         # (V, V) counts[i, j] = C(v_i v_j)
    probs: np.ndarray          # (V, V) P(v_j | v_i) = C(v_i v_j) / Σ_u C(v_i u); a row without successors is 0


def bigram_model(docs) -> Bigram:
    """The maximum-likelihood bigram language model of the documents (no smoothing)."""
    docs = _docs(docs)
    vocab = tuple(dict.fromkeys(t for d in docs for t in d))
    index = {w: j for j, w in enumerate(vocab)}
    counts = np.zeros((len(vocab), len(vocab)))               # (V, V)
    for d in docs:
        for a, b in zip(d, d[1:]):
            counts[index[a], index[b]] += 1
    rows = counts.sum(axis=1, keepdims=True)                  # (V, 1)
    probs = np.divide(counts, rows, out=np.zeros_like(counts), where=rows > 0)
    return Bigram(vocab, counts, probs)


def bigram_probability(docs, prev: str, word: str) -> float:
    """P(word | prev) of :func:`bigram_model`; ValueError when prev never has a next word."""
    m = bigram_model(docs)
    if prev not in m.vocab or word not in m.vocab:
        missing = prev if prev not in m.vocab else word
        raise ValueError(f"「{missing}」はコーパスにない語です。")
    i, j = m.vocab.index(prev), m.vocab.index(word)
    if m.counts[i].sum() == 0:
        raise ValueError(f"「{prev}」の次に来た語がコーパスにないので、確率を決められません。")
    return float(m.probs[i, j])
