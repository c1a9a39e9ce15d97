"""BERT's encoder successors: ALBERT's factorized embedding and cross-layer sharing, RoBERTa's
static against dynamic masking, ELECTRA's replaced token detection — each with the named mistakes
next to it (tutor.bertfamily re-exports every name)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..core import check_rng, positive_int
from ..pretrain import MLM_RATE, mlm_pick_count

# published settings (Lan et al. 2019; Liu et al. 2019) and worked examples
ALBERT_BASE = {"vocab": 30_000, "embedding": 128, "hidden": 768, "layers": 12, "heads": 12}
ROBERTA_STATIC = {"copies": 10, "epochs": 40}      # BERT's static masking as RoBERTa §4.1 describes it
MASK_DEMO = {"tokens": 10, "epochs": 8, "copies": 2, "seed": 3}   # RoBERTa's 10 × 40 made small enough to draw
RTD_DEMO_TOKENS = ("猫", "は", "焼いた", "魚", "を", "残さず", "きれいに", "食べた", "。", "満足")
RTD_DEMO_CANDIDATES = ("犬", "肉", "生の", "骨", "飲んだ", "少し")   # what the stand-in generator may write
RTD_DEMO_SEED = 30            # a draw that replaces 焼いた → 生の and puts 猫 back unchanged


# ---------------------------------------------------------------------------
# ALBERT ①: the factorized embedding
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class EmbeddingParams:
    vocab: int        # V  word pieces
    embedding: int    # E  the small embedding width
    hidden: int       # H  the Transformer's width
    lookup: int       # V·E  the table (one row of E numbers per word piece)
    projection: int   # E·H  the matrix that lifts E to H
    untied: int       # V·H  BERT's table (E = H)

    @property
    def factorized(self) -> int:
        """V·E + E·H."""
        return self.lookup + self.projection

    @property
    def saved(self) -> int:
        """V·H − (V·E + E·H)."""
        return self.untied - self.factorized

    @property
    def ratio(self) -> float:
        """(V·E + E·H) / (V·H)."""
        return self.factorized / self.untied


def factorized_embedding(vocab: int, embedding: int, hidden: int) -> EmbeddingParams:
    """ALBERT's embedding: a V × E table, then an E × H projection.

        V·H  →  V·E + E·H      (a saving whenever E is much smaller than H)
    """
    v, e, h = positive_int(vocab, "語彙数 V"), positive_int(embedding, "埋め込みの幅 E"), positive_int(hidden, "隠れ層の幅 H")
    if e > h:
        raise ValueError(f"埋め込みの幅 E（{e:,}）が隠れ層の幅 H（{h:,}）より大きいと、分解しても減りません。"
                         "E は H 以下にしてください。")
    return EmbeddingParams(v, e, h, v * e, e * h, v * h)


def embedding_without_projection(vocab: int, embedding: int, hidden: int) -> int:
    """MISTAKE: only the V × E table counted, the E × H projection forgotten: V·E."""
    return factorized_embedding(vocab, embedding, hidden).lookup


def embedding_unfactorized(vocab: int, embedding: int, hidden: int) -> int:
    """MISTAKE: BERT's V × H table counted, as if nothing were factorized: V·H."""
    return factorized_embedding(vocab, embedding, hidden).untied


def embedding_projection_reversed(vocab: int, embedding: int, hidden: int) -> int:
    """MISTAKE: the words embedded at width H first and then projected down to E: V·H + H·E."""
    p = factorized_embedding(vocab, embedding, hidden)
    return p.untied + p.projection


# ---------------------------------------------------------------------------
# ALBERT ②: cross-layer parameter sharing (weight matrices only, as ⑨-1's encoder_weights)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class SharingParams:
    layers: int      # L
    hidden: int      # H
    attention: int   # 4H²   W_Q, W_K, W_V, W_O of one layer
    ffn: int         # 8H²   H × 4H and 4H × H of one layer

    @property
    def per_layer(self) -> int:
        """P = 12H²."""
        return self.attention + self.ffn

    @property
    def unshared(self) -> int:
        """L·P: every layer its own weights (BERT)."""
        return self.layers * self.per_layer

    @property
    def shared(self) -> int:
        """P: one set of weights used by all L layers (ALBERT's default: everything shared)."""
        return self.per_layer

    @property
    def attention_shared(self) -> int:
        """4H² + L·8H²: only the attention shared (one of the variants ALBERT compares)."""
        return self.attention + self.layers * self.ffn

    @property
    def saved(self) -> int:
        return self.unshared - self.shared


def layer_sharing(layers: int, hidden: int) -> SharingParams:
    """The weight matrices of L encoder layers without and with cross-layer sharing.

        per layer P = 4H² + 8H² = 12H²;   unshared L·P;   all shared P
    """
    l, h = positive_int(layers, "層数 L"), positive_int(hidden, "幅 H")
    return SharingParams(l, h, 4 * h * h, 8 * h * h)          # per_layer = ⑨-1's encoder_weights(1, H)


@dataclass(frozen=True)
class AlbertCount:
    embedding: EmbeddingParams
    sharing: SharingParams

    @property
    def bert_total(self) -> int:
        """V·H + L·P: BERT's way (E = H, no sharing)."""
        return self.embedding.untied + self.sharing.unshared

    @property
    def albert_total(self) -> int:
        """V·E + E·H + P: factorized and shared."""
        return self.embedding.factorized + self.sharing.shared


def albert_count(vocab: int, embedding: int, hidden: int, layers: int) -> AlbertCount:
    """The token embedding and the encoder's weight matrices, BERT's way and ALBERT's way."""
    return AlbertCount(factorized_embedding(vocab, embedding, hidden), layer_sharing(layers, hidden))


def sharing_divided_by_heads(layers: int, hidden: int, heads: int) -> int:
    """MISTAKE: sharing taken as the heads sharing the weights: L·P / A."""
    s, a = layer_sharing(layers, hidden), positive_int(heads, "ヘッド数 A")
    if s.unshared % a:
        raise ValueError(f"L·P（{s.unshared:,}）がヘッド数 A（{a}）で割り切れません。")
    return s.unshared // a


def sharing_overlooked(layers: int, hidden: int) -> int:
    """MISTAKE: the sharing overlooked, every layer counted: L·P."""
    return layer_sharing(layers, hidden).unshared


def sharing_attention_only(layers: int, hidden: int) -> int:
    """MISTAKE: only the attention taken as shared (the FFN still per layer): 4H² + L·8H²."""
    return layer_sharing(layers, hidden).attention_shared


# ---------------------------------------------------------------------------
# RoBERTa: static masking (BERT) against dynamic masking
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class StaticMasking:
    epochs: int    # passes over the data
    copies: int    # the data duplicated this many times, each copy masked once in preprocessing

    @property
    def distinct(self) -> int:
        """Masks one sentence ever sees: one per copy."""
        return self.copies

    @property
    def repeats(self) -> int:
        """Times each of those masks is seen: epochs / copies."""
        return self.epochs // self.copies

    @property
    def dynamic_most(self) -> int:
        """Dynamic masking draws a new mask every epoch: up to ``epochs`` different masks."""
        return self.epochs


def static_masking(epochs: int, copies: int) -> StaticMasking:
    """BERT's masking as RoBERTa (Liu et al. 2019, §4.1) describes it: 10 copies over 40 epochs →
    10 masks per sentence, each seen 4 times."""
    e, c = positive_int(epochs, "エポック数"), positive_int(copies, "複製の数")
    if e % c:
        raise ValueError(f"エポック数 {e} が複製の数 {c} で割り切れません（各複製を同じ回数ずつ使う前提です）。")
    return StaticMasking(e, c)


def static_repeats_as_copies(epochs: int, copies: int) -> int:
    """MISTAKE: the number of copies read as how often each mask is seen."""
    return static_masking(epochs, copies).copies


def static_repeats_as_epochs(epochs: int, copies: int) -> int:
    """MISTAKE: the copies forgotten, one mask taken as seen in every epoch: ``epochs`` times."""
    return static_masking(epochs, copies).epochs


def static_repeats_dynamic(epochs: int, copies: int) -> int:
    """MISTAKE: dynamic masking's count, each mask seen once."""
    static_masking(epochs, copies)
    return 1


def static_as_dynamic(epochs: int, copies: int) -> int:
    """MISTAKE: static masking taken as a new mask every epoch: ``epochs`` masks."""
    return static_masking(epochs, copies).epochs


@dataclass(frozen=True)
class MaskSchedule:
    masks: np.ndarray     # (epochs, n) bool: row = the mask the sentence gets in that epoch
    kind: str             # "static" | "dynamic"

    @property
    def distinct(self) -> int:
        """Different masks among the rows."""
        return len({row.tobytes() for row in self.masks})


def _one_mask(n: int, rng: np.random.Generator, rate: float) -> np.ndarray:
    k = mlm_pick_count(n, rate)
    mask = np.zeros(n, dtype=bool)
    mask[rng.choice(n, size=k, replace=False)] = True
    return mask


def mask_schedule(n_tokens: int, epochs: int, rng: np.random.Generator, *, copies: int | None = None,
                  rate: float = MLM_RATE) -> MaskSchedule:
    """The masks one sentence of n tokens gets, epoch by epoch (``rate`` of them, rounded half up,
    at least 1). ``copies=None``: dynamic (a fresh draw every epoch); ``copies=c``: static (c masks
    drawn once, then used in turn: epoch t gets mask t mod c)."""
    n, e, rng = positive_int(n_tokens, "トークン数 n"), positive_int(epochs, "エポック数"), check_rng(rng)
    if copies is None:
        return MaskSchedule(np.stack([_one_mask(n, rng, rate) for _ in range(e)]), "dynamic")
    plan = static_masking(e, copies)
    drawn = [_one_mask(n, rng, rate) for _ in range(plan.copies)]
    return MaskSchedule(np.stack([drawn[t % plan.copies] for t in range(e)]), "static")


# ---------------------------------------------------------------------------
# ELECTRA: replaced token detection against MLM
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class RtdCounts:
    n: int          # tokens in the input
    masked: int     # positions the generator fills in (15 % of n)
    restored: int   # of those, where the generator sampled the original word back

    @property
    def replaced(self) -> int:
        """Labelled 「置き換えられた」: masked − restored."""
        return self.masked - self.restored

    @property
    def original(self) -> int:
        """Labelled 「元のまま」: n − replaced (the restored ones included)."""
        return self.n - self.replaced

    @property
    def mlm_loss(self) -> int:
        """Positions with a loss under MLM: the masked ones only."""
        return self.masked

    @property
    def rtd_loss(self) -> int:
        """Positions with a loss under replaced token detection: every one."""
        return self.n

    @property
    def mlm_share(self) -> float:
        return self.masked / self.n

    @property
    def signal_ratio(self) -> float:
        """How many times more positions give a loss under replaced token detection: n / masked."""
        return self.n / self.masked


def rtd_counts(n: int, masked: int, restored: int = 0) -> RtdCounts:
    """ELECTRA's labels and losses for n tokens, ``masked`` of them filled by the generator,
    ``restored`` of those with the original word (Clark et al. 2020: such a token is 「元のまま」)."""
    n, masked = positive_int(n, "トークン数 n"), positive_int(masked, "マスクした数")
    restored = int(restored)
    if masked > n:
        raise ValueError(f"マスクした数 {masked} がトークン数 {n} を超えています。")
    if not 0 <= restored <= masked:
        raise ValueError(f"元の語に戻った数 {restored} は 0 以上、マスクした数 {masked} 以下にしてください。")
    return RtdCounts(n, masked, restored)


def rtd_loss_only_replaced(n: int, masked: int, restored: int = 0) -> int:
    """MISTAKE: only the replaced positions give the discriminator a signal."""
    return rtd_counts(n, masked, restored).replaced


def rtd_loss_only_masked(n: int, masked: int, restored: int = 0) -> int:
    """MISTAKE: ELECTRA taken to learn where MLM learns, at the masked positions only."""
    return rtd_counts(n, masked, restored).masked


def rtd_loss_only_original(n: int, masked: int, restored: int = 0) -> int:
    """MISTAKE: only the untouched positions counted (as if the replaced ones were left out)."""
    return rtd_counts(n, masked, restored).original


def rtd_restored_as_replaced(n: int, masked: int, restored: int = 0) -> int:
    """MISTAKE: every masked position labelled 「置き換えられた」, the restored ones too."""
    return rtd_counts(n, masked, restored).masked


@dataclass(frozen=True)
class RtdDraw:
    tokens: tuple[str, ...]      # (n,) the original
    corrupted: tuple[str, ...]   # (n,) what the discriminator reads
    masked: tuple[int, ...]      # positions the generator filled, ascending
    replaced: tuple[bool, ...]   # (n,) the discriminator's target: True = 置き換えられた

    @property
    def expected_masked(self) -> float:
        """0.15 · n before rounding (10 tokens → 1.5 → 2 masked)."""
        return MLM_RATE * len(self.tokens)

    @property
    def counts(self) -> RtdCounts:
        restored = sum(1 for i in self.masked if not self.replaced[i])
        return RtdCounts(len(self.tokens), len(self.masked), restored)


def rtd_draw(tokens: Sequence[str], candidates: Sequence[str], rng: np.random.Generator, *,
             rate: float = MLM_RATE, keep: float = 0.3) -> RtdDraw:
    """One corruption of ``tokens`` as ELECTRA's small generator would make it (a stand-in: the
    generator keeps the original word with probability ``keep``, else samples a different word of
    ``candidates``). The target of a position is 「置き換えられた」 exactly when its word changed."""
    tokens, pool, rng = tuple(tokens), tuple(dict.fromkeys(candidates)), check_rng(rng)
    if not tokens:
        raise ValueError("トークンが空です。少なくとも 1 つ必要です。")
    n = len(tokens)
    positions = sorted(rng.choice(n, size=mlm_pick_count(n, rate), replace=False).tolist())
    corrupted = list(tokens)
    for i in positions:
        others = [w for w in pool if w != tokens[i]]
        if others and rng.random() >= keep:
            corrupted[i] = others[int(rng.integers(len(others)))]
    return RtdDraw(tokens, tuple(corrupted), tuple(positions), tuple(a != b for a, b in zip(tokens, corrupted)))
