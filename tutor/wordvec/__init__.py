"""Words as numbers, before Seq2Seq: counts and their weighting, the distributional idea, word2vec's
two forms and how they are trained, subword vectors, static vs contextual vectors.

Every number the ⓪-1 page and its quizzes show comes from here:

- ``counts``: Bag-of-Words, TF-IDF (tf = count / length, idf = log₂(N / df): a word in every
  document gets idf 0), N-grams (L − N + 1 of them) and a bigram language model;
- ``vectors``: one-hot vs dense vectors, cosine similarity, the analogy a : b = c : ? (e_b − e_a + e_c,
  nearest by cosine, a, b, c left out), the embedding table's size V × d (word2vec: 2 V d), a
  co-occurrence table, static vs contextual vectors (the two はし);
- ``word2vec``: skip-gram's (centre, context) pairs and CBOW's examples for a window of c words on
  each side, their number, the skip-gram softmax and the negative-sampling objective;
- ``subword``: fastText's character n-grams with < and >, the word itself as one more unit, the
  vector as their sum.

Each named misconception (the dot product for the cosine, idf without the log, the window counted
on one side, < > forgotten, …) is a function next to the formula it distorts; its Japanese label
lives in quizzes/gen_wordvec.py.

Conventions: float64, inputs never mutated, no randomness, bad input → ValueError with a Japanese
message. Only ``tutor.core`` is imported. Every name is re-exported here (``tutor.wordvec.X``).
"""
from __future__ import annotations

from .counts import (  # noqa: F401
    CORPUS, WORD_ORDER_PAIR, IDF_BASE, MAX_DOCS, MAX_WORDS, split_text, split_corpus, BagOfWords, bag_of_words,
    idf_value, idf_without_log, idf_inverted, tf_value, tfidf_value, tfidf_without_log, tfidf_raw_count,
    tfidf_inverted, TfIdf, tfidf, ngrams, ngram_count, Bigram, bigram_model, bigram_probability,
)
from .vectors import (  # noqa: F401
    EMB_WORDS, EMB_DIMS, EMB_VECTORS, ANALOGY_WORDS, ANALOGY_DIMS, ANALOGY_VECTORS, ANALOGY_QUERY,
    CTX_WORDS, CTX_DIMS, CTX_VECTORS, CTX_SENTENCES, PARAM_EXAMPLE, one_hot_vector, embedding_lookup,
    embedding_params, word2vec_params, embedding_params_one_hot, embedding_params_added, vector_norm, cosine_similarity,
    cosine_without_norm, cosine_one_norm, euclidean_distance, similarity_matrix, AnalogyResult, analogy,
    analogy_sign_slip, Cooccurrence, cooccurrence, DIST_CORPUS, DIST_WORDS, ContextVectors, context_vectors,
    ContextualResult, contextual_embeddings,
)
from .word2vec import (  # noqa: F401
    SENTENCE, WINDOW, SOFTMAX_WORDS, SOFTMAX_CENTER, SOFTMAX_OUT, NEG_POSITIVE, NEG_SAMPLES, context_positions,
    skipgram_pairs, cbow_examples, skipgram_pair_count, pair_count_terms, cbow_example_count, pair_count_one_sided,
    pair_count_no_edges, middle_context_count, SkipgramSoftmax, skipgram_softmax, sigmoid, NegativeSampling,
    negative_sampling, dot_products_per_pair,
)
from .subword import (  # noqa: F401
    N_MIN, N_MAX, DEMO_WORD, SUM_WORD, SUM_UNITS, SUM_VECTORS, SIMILAR_PAIRS, Subwords, char_ngrams, unit_count,
    unit_count_no_boundary, unit_count_one_boundary, unit_count_no_word, subword_vector, SubwordOverlap,
    subword_overlap,
)
