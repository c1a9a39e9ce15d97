"""Retrieval-augmented generation (RAG): find the documents closest to the question by cosine
similarity, keep the top k, and put them into the prompt — with the named mistakes next to them.

The vectors here are tiny hand-made embeddings (3 numbers whose meaning is written on the page);
a real system gets them from an embedding model and searches millions of them, but the ranking is
the same calculation: cos(q, d) = q·d / (‖q‖ ‖d‖), largest first."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import as_matrix, positive_int

# the page's knowledge base: what each of the 3 numbers means, and 4 documents
RAG_AXES = ("時期", "学習法", "規模")          # how recent / about training methods / about compute and size
RAG_DEMO_DOCS = (
    ("A", "LoRA は、重みの更新を小さな 2 つの行列 B と A の積で表し、元の重みは凍結したまま学習する。", (0.0, 4.0, 3.0)),
    ("B", "LoRA（2021 年）は、GPT-3 で学習するパラメータを約 1 万分の 1 に減らしたと報告した。", (2.0, 4.0, 4.0)),
    ("C", "Transformer の原論文は 2017 年に発表され、翻訳の学習にかかる計算を大きく減らした。", (4.0, 0.0, 3.0)),
    ("D", "GPT-3（2020 年）の論文の要約：1,750 億パラメータ、約 3,000 億トークンの学習、文脈内学習、"
          "学習に使った計算量、評価した課題の一覧……（長い文書）", (6.0, 3.0, 6.0)),
)
RAG_DEMO_QUESTION = "LoRA では、学習するパラメータはどれくらい減りますか？"
RAG_DEMO_QUERY = (1.0, 2.0, 2.0)                       # ‖q‖ = 3
RAG_DEMO_K = 2
RAG_DEMO_QUERIES = (                                   # 可視化's table: three questions against the four documents
    (RAG_DEMO_QUESTION, RAG_DEMO_QUERY),
    ("Transformer の原論文はいつ発表されましたか？", (4.0, 0.0, 3.0)),
    ("GPT-3 の学習にはどれくらいの計算を使いましたか？", (2.0, 1.0, 2.0)),
)


def _vectors(query, docs) -> tuple[np.ndarray, np.ndarray]:
    q = as_matrix(query, "質問のベクトル q", ndim=1)
    ds = as_matrix(docs, "文書のベクトル", ndim=2)
    if ds.shape[1] != q.shape[0]:
        raise ValueError(f"質問のベクトル（長さ {q.shape[0]}）と文書のベクトル（長さ {ds.shape[1]}）の長さがそろっていません。")
    if not np.any(q):
        raise ValueError("質問のベクトルがすべて 0 です。向きが決まらないので、コサイン類似度を計算できません。")
    zero = [i + 1 for i, row in enumerate(ds) if not np.any(row)]
    if zero:
        raise ValueError(f"{zero[0]} 番目の文書のベクトルがすべて 0 です。向きが決まらないので、コサイン類似度を計算できません。")
    return q, ds


def _top(scores: np.ndarray, k: int, *, largest: bool = True) -> tuple[int, ...]:
    """The indices of the k largest (or smallest) scores; a tie goes to the earlier document."""
    order = sorted(range(scores.size), key=lambda i: (-scores[i] if largest else scores[i], i))
    return tuple(order[:k])


def _k(k, n: int) -> int:
    k = positive_int(k, "取り出す件数 k")
    if k > n:
        raise ValueError(f"取り出す件数 k（{k}）が文書の数（{n}）より多くなっています。")
    return k


@dataclass(frozen=True)
class Retrieval:
    query: np.ndarray        # (d,)
    docs: np.ndarray         # (n, d)
    dots: np.ndarray         # (n,) q·dᵢ
    query_norm: float        # ‖q‖
    doc_norms: np.ndarray    # (n,) ‖dᵢ‖
    cosine: np.ndarray       # (n,) q·dᵢ / (‖q‖ ‖dᵢ‖), in [−1, 1]
    order: tuple[int, ...]   # every document, most similar first (a tie: the earlier one first)
    top: tuple[int, ...]     # the k documents put into the prompt


def similarity_table(queries, docs) -> tuple[np.ndarray, np.ndarray]:
    """(cosine, dot) of every question (rows) against every document (columns): (m, n) each."""
    rows = [retrieve(q, docs, 1) for q in queries]
    return np.array([r.cosine for r in rows]), np.array([r.dots for r in rows])


def retrieve(query, docs, k: int) -> Retrieval:
    """Cosine similarity of the question to every document, and the k most similar."""
    q, ds = _vectors(query, docs)
    k = _k(k, ds.shape[0])
    dots = ds @ q                                               # (n,)
    qn, dn = float(np.linalg.norm(q)), np.linalg.norm(ds, axis=1)   # (), (n,)
    cos = np.clip(dots / (qn * dn), -1.0, 1.0)                  # (n,)
    order = _top(cos, ds.shape[0])
    return Retrieval(q, ds, dots, qn, dn, cos, order, order[:k])


def cosine_similarity(a, b) -> float:
    """cos(a, b) = a·b / (‖a‖ ‖b‖)."""
    return float(retrieve(a, [b], 1).cosine[0])


def cosine_no_norm(a, b) -> float:
    """MISTAKE: the dot product a·b, not divided by the lengths."""
    return float(retrieve(a, [b], 1).dots[0])


def cosine_one_norm(a, b) -> float:
    """MISTAKE: divided by the document's length ‖b‖ only."""
    r = retrieve(a, [b], 1)
    return float(r.dots[0] / r.doc_norms[0])


def cosine_norms_added(a, b) -> float:
    """MISTAKE: divided by ‖a‖ + ‖b‖ instead of ‖a‖ ‖b‖."""
    r = retrieve(a, [b], 1)
    return float(r.dots[0] / (r.query_norm + r.doc_norms[0]))


def top_by_dot(query, docs, k: int) -> tuple[int, ...]:
    """MISTAKE: ranked by the dot product q·dᵢ: a long document (a large vector) wins for its length."""
    r = retrieve(query, docs, k)
    return _top(r.dots, len(r.top))


def bottom_by_cosine(query, docs, k: int) -> tuple[int, ...]:
    """MISTAKE: the k LEAST similar documents (the order read the wrong way round)."""
    r = retrieve(query, docs, k)
    return _top(r.cosine, len(r.top), largest=False)


def top_by_distance(query, docs, k: int) -> tuple[int, ...]:
    """MISTAKE: the k documents at the smallest Euclidean distance ‖q − dᵢ‖ of the raw vectors
    (without normalising, a short vector near the origin can come first)."""
    r = retrieve(query, docs, k)
    dist = np.linalg.norm(r.docs - r.query, axis=1)             # (n,)
    return _top(dist, len(r.top), largest=False)


def rag_prompt(question: str, passages) -> str:
    """The prompt a RAG system hands the language model: the retrieved passages, numbered, then
    the question, with the instruction to answer from them (and say so when they do not tell)."""
    q = str(question).strip()
    texts = [str(p).strip() for p in passages]
    if not q:
        raise ValueError("質問が空です。")
    if not texts or not all(texts):
        raise ValueError("プロンプトに入れる文書がありません。")
    lines = ["次の資料だけを根拠にして質問に答えてください。資料に書かれていないときは「資料からは分かりません」と答えてください。", ""]
    lines += [f"[資料 {i + 1}] {t}" for i, t in enumerate(texts)]
    lines += ["", f"質問：{q}"]
    return "\n".join(lines)
