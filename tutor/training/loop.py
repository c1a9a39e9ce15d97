"""Training ⑧'s model and the page's three experiments (two runs that differ in one switch)."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .model import Evaluation, Params, TrainConfig, evaluate, forward, init_params, loss_and_grads
from .optim import Adam, sgd_step
from .task import make_dataset, probe_sentence, readonly


# ---------------------------------------------------------------------------
# training loop
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Progress:
    """What the per-step callback receives."""
    step: int          # updates done so far (1 … total)
    total: int
    loss: float        # batch loss of this step
    accuracy: float    # batch accuracy of this step
    run: int = 0       # which run of an experiment (0 or 1)
    elapsed: float = 0.0  # wall seconds since train() (run_experiment: the first run) started

    @property
    def fraction(self) -> float:
        """step / total, for a progress bar."""
        return self.step / self.total

    @property
    def seconds_left(self) -> float:
        """Remaining wall time if the remaining updates take as long as the past ones did:
        elapsed · (total − step) / step (calibrated by this run itself, so it follows the load)."""
        return self.elapsed * (self.total - self.step) / self.step


@dataclass(frozen=True)
class TrainHistory:
    config: TrainConfig
    loss: np.ndarray               # (steps,) batch loss at step t, BEFORE update t+1
    accuracy: np.ndarray           # (steps,) training accuracy of that batch
    grad_norm: np.ndarray          # (steps, 7) ‖∂L/∂θ‖ per group, in Params.names() order
    checkpoints: tuple[int, ...]   # updates done when the probe was recorded (0 = before training)
    probe_words: tuple[str, ...]   # the probe sentence (the textbook sentence)
    probe_sore_pos: int
    probe_b_pos: int
    probe_weights: np.ndarray      # (C, h, n_probe) the それ row of attention at each checkpoint
    checkpoint_accuracy: np.ndarray  # (C,) held-out accuracy at each checkpoint
    checkpoint_b_weight: np.ndarray  # (C,) held-out mean それ→B weight (best head) at each checkpoint
    initial: Evaluation            # held-out, before training
    heldout: Evaluation            # held-out, after training
    params: Params                 # final parameters (for the learned heatmap)
    test_example: tuple[str, ...]  # first held-out sentence (for the heatmap)

    @property
    def heldout_accuracy(self) -> float:
        return self.heldout.accuracy

    @property
    def heldout_b_weight(self) -> float:
        return self.heldout.b_weight

    @property
    def steps(self) -> np.ndarray:  # (steps,)
        return np.arange(len(self.loss))

    def steps_to(self, accuracy: float = 0.95) -> int | None:
        """First step whose training accuracy reaches ``accuracy`` (None if never)."""
        hit = np.flatnonzero(self.accuracy >= accuracy)
        return int(hit[0]) if hit.size else None

    def grad_norm_of(self, name: str) -> np.ndarray:
        """(steps,) gradient norm of one parameter group, e.g. "W_Q"."""
        return self.grad_norm[:, Params.names().index(name)]


try:  # small matrices: BLAS threads only cost time (measured ×2–×4 on a busy 2-core machine)
    from threadpoolctl import threadpool_limits as _threadpool_limits
except ImportError:  # pragma: no cover - optional
    _threadpool_limits = None


def train(config: TrainConfig = TrainConfig(), rng: np.random.Generator | None = None,
          callback: Callable[["Progress"], None] | None = None, callback_every: int = 1, *,
          clock: Callable[[], float] = time.perf_counter) -> TrainHistory:
    """Train the model of this module; deterministic for a given ``rng`` seed.

    rng draws, in this order: training set, held-out set, initial parameters, and (only
    with batch_size > 0) the mini-batch order. ``callback(Progress(step, total, loss,
    accuracy, elapsed=…))`` is called after every ``callback_every``-th update and after the
    last one (e.g. to move ``st.progress`` and redraw a live chart); ``elapsed`` is read from
    ``clock`` and only reaches the callback, never the result (same seed ⇒ same history,
    with or without a callback). A run whose loss or parameters stop being finite raises
    ValueError (Japanese: lower the learning rate).
    """
    config.validate()
    if rng is None:
        raise ValueError("乱数生成器 rng を渡してください（例: np.random.default_rng(0)）。")
    every = int(callback_every)
    if every < 1:
        raise ValueError(f"callback_every は 1 以上が必要です（{callback_every}）。")
    if _threadpool_limits is None:
        return _train(config, rng, callback, every, clock)
    with _threadpool_limits(limits=1):
        return _train(config, rng, callback, every, clock)


def _diverged(step: int, config: TrainConfig) -> ValueError:
    return ValueError(
        f"学習が発散しました（ステップ {step}、学習率 lr = {config.lr}）。"
        "損失や重みが無限大になりました。学習率を小さくしてください。"
    )


def _train(config: TrainConfig, rng: np.random.Generator, callback, every: int, clock) -> TrainHistory:
    start = clock()
    train_set = make_dataset(config.n_train, rng, config.variant)
    test_set = make_dataset(config.n_test, rng, config.variant)
    params = init_params(config, rng)
    probe = probe_sentence(config.variant)
    n_probe = int(probe.lengths[0])
    opt = Adam(params, config.lr) if config.optimizer == "adam" else None
    ckpts = config.checkpoint_steps

    losses = np.zeros(config.steps)                                   # (steps,)
    accs = np.zeros(config.steps)                                     # (steps,)
    gnorms = np.zeros((config.steps, len(Params.names())))            # (steps, 7)
    probe_w, ck_acc, ck_bw = [], [], []
    initial = evaluate(params, test_set, config)

    def record_checkpoint(p: Params) -> None:
        fp = forward(p, probe.tokens[:, :n_probe], probe.sore_pos, probe.lengths, config)
        probe_w.append(fp.weights[0])                                 # (h, n_probe)
        ev = evaluate(p, test_set, config)
        ck_acc.append(ev.accuracy)
        ck_bw.append(ev.b_weight)

    n, bs = config.n_train, (config.batch_size or config.n_train)
    order = np.arange(n)                                              # (n_train,)
    cursor = n  # forces a shuffle at the first mini-batch step
    for t in range(config.steps):
        if t in ckpts:
            record_checkpoint(params)
        if bs >= n:
            idx = order                                               # (n_train,) full batch
        else:
            if cursor + bs > n:
                order, cursor = rng.permutation(n), 0
            idx = order[cursor: cursor + bs]                          # (batch,)
            cursor += bs
        try:
            with np.errstate(over="raise", invalid="raise", divide="raise"):
                loss, grads, f = loss_and_grads(params, train_set.tokens[idx], train_set.sore_pos[idx],
                                                train_set.lengths[idx], train_set.target[idx], config)
                gnorms[t] = [np.linalg.norm(g) for g in grads.as_dict().values()]
        except (FloatingPointError, ValueError):
            raise _diverged(t, config) from None
        losses[t] = loss
        accs[t] = np.mean(np.argmax(f.probs, axis=-1) == train_set.target[idx])
        if opt is not None:
            params = opt.step(params, grads)
        else:
            params = Params(**{k: sgd_step(w, getattr(grads, k), config.lr)
                               for k, w in params.as_dict().items()})
        if not all(np.all(np.isfinite(w)) for w in params.as_dict().values()):
            raise _diverged(t + 1, config)
        if callback is not None and ((t + 1) % every == 0 or t + 1 == config.steps):
            callback(Progress(t + 1, config.steps, loss, float(accs[t]), elapsed=clock() - start))
    record_checkpoint(params)                                         # after the last update

    return TrainHistory(
        config=config,
        loss=readonly(losses),
        accuracy=readonly(accs),
        grad_norm=readonly(gnorms),
        checkpoints=ckpts,
        probe_words=probe.sentence(0),
        probe_sore_pos=int(probe.sore_pos[0]),
        probe_b_pos=int(probe.b_pos[0]),
        probe_weights=readonly(np.stack(probe_w)),                         # (C, h, n_probe)
        checkpoint_accuracy=readonly(ck_acc),
        checkpoint_b_weight=readonly(ck_bw),
        initial=initial,
        heldout=evaluate(params, test_set, config),
        params=params,
        test_example=test_set.sentence(0),
    )


# ---------------------------------------------------------------------------
# how long a run takes: the estimate the page shows before a run
# ---------------------------------------------------------------------------
# Measured with `taskset -c 0` (one core) on the 2-core development machine, BLAS held to one
# thread: an update of the default TrainConfig takes ≈ 3 ms, an update with width h·d_k costs
# about (17 + h·d_k) / 25 of it (2.4 ms at h·d_k = 2, 2.7 at 8, 19 at 128), and making the
# datasets plus the checkpoint evaluations costs about 15 default updates.
DEFAULT_UPDATE_SECONDS = 0.003
SETUP_UPDATES = 15.0


def update_cost(config: TrainConfig) -> float:
    """Work of one update relative to one update of the default ``TrainConfig()`` (= 1.0).

    cost ≈ (batch / 512) · (17 + h·d_k) / 25: the projections K = X W_K, V = X W_V and their
    gradients grow with the width h·d_k, the rest (embeddings, output layer, the interpreter's
    fixed price per NumPy call) does not.
    """
    batch = config.batch_size or config.n_train
    return batch / 512 * (17 + config.n_heads * config.d_k) / 25


def run_cost(*configs: TrainConfig) -> float:
    """Work of training each of ``configs`` once, in default updates: Σ (SETUP_UPDATES + steps · update_cost)."""
    return sum(SETUP_UPDATES * c.n_train / 512 + c.steps * update_cost(c) for c in configs)


def estimate_seconds(*configs: TrainConfig, update_seconds: float = DEFAULT_UPDATE_SECONDS) -> float:
    """Expected wall time of training ``configs``: run_cost × seconds per default update.

    ``update_seconds``: the pace of this machine now — e.g. :func:`measured_update_seconds` of the last
    finished run — or the development machine's one-core value.
    """
    if not (np.isfinite(update_seconds) and update_seconds > 0):
        raise ValueError(f"1 ステップの秒数は正の数が必要です（{update_seconds}）。")
    return run_cost(*configs) * float(update_seconds)


def measured_update_seconds(elapsed: float, *configs: TrainConfig) -> float:
    """The pace a finished run measured: its wall time divided by its run_cost (seconds per default update)."""
    return float(elapsed) / run_cost(*configs)


def whole_seconds(seconds: float) -> int:
    """Seconds rounded half up to a whole number (四捨五入), for the estimate's text."""
    return int(math.floor(float(seconds) + 0.5))


# ---------------------------------------------------------------------------
# the three experiments of the page (same seed ⇒ same data and same start for both runs)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Experiment:
    key: str
    title: str                          # 日本語の見出し
    labels: tuple[str, str]             # run A, run B
    configs: tuple[TrainConfig, TrainConfig]


EXPERIMENTS: dict[str, Experiment] = {
    "scaling": Experiment(
        "scaling", "√d_k で割る／割らない（d_k = 64）", ("√d_k で割る", "割らない"),
        (TrainConfig(d_k=64, scale=True), TrainConfig(d_k=64, scale=False))),
    "position": Experiment(
        "position", "位置エンコーディングあり／なし（語順で指す相手が決まる文）", ("位置エンコーディングあり", "なし"),
        (TrainConfig(variant="order", positional=True), TrainConfig(variant="order", positional=False))),
    "heads": Experiment(
        "heads", "1 ヘッド／2 ヘッド（h·d_k = 8 で同じ幅）", ("1 ヘッド（d_k = 8）", "2 ヘッド（d_k = 4）"),
        (TrainConfig(n_heads=1, d_k=8), TrainConfig(n_heads=2, d_k=4))),
}


def run_experiment(key: str, seed: int,
                   callback: Callable[["Progress"], None] | None = None, callback_every: int = 1, *,
                   clock: Callable[[], float] = time.perf_counter) -> tuple[TrainHistory, TrainHistory]:
    """Train both configurations of ``EXPERIMENTS[key]`` from ``np.random.default_rng(seed)``.

    Both runs see the same sentences and (when the shapes agree) the same starting
    weights, so the difference comes from the one switch. ``callback(Progress(...))``
    counts steps over both runs (``run`` = 0 for the first configuration, 1 for the second),
    its ``elapsed`` the seconds since the first run started.
    """
    if key not in EXPERIMENTS:
        raise ValueError(f"実験 {key!r} はありません。選べるのは {list(EXPERIMENTS)} です。")
    cfg_a, cfg_b = EXPERIMENTS[key].configs
    total = cfg_a.steps + cfg_b.steps
    start = clock()

    def shifted(offset: int):
        if callback is None:
            return None
        return lambda pr: callback(Progress(offset + pr.step, total, pr.loss, pr.accuracy, int(offset > 0),
                                            clock() - start))

    run_a = train(cfg_a, np.random.default_rng(int(seed)), shifted(0), callback_every, clock=clock)
    run_b = train(cfg_b, np.random.default_rng(int(seed)), shifted(cfg_a.steps), callback_every, clock=clock)
    return run_a, run_b




# ---------------------------------------------------------------------------
# reading an experiment's outcome (what the page's table and verdict show)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class RunSummary:
    """The numbers of one run that the page compares, read from its TrainHistory."""
    heldout_accuracy: float        # accuracy on unseen sentences after training
    b_weight: float                # mean それ→B weight on unseen sentences
    peak_weight: float             # mean largest weight of the それ row (1 = saturated)
    final_loss: float              # batch loss of the last step
    steps_to_95: int | None        # first step with training accuracy ≥ 95 % (None: never)
    first_grad_w_q: float          # ‖∂L/∂W_Q‖ at the first step
    last_grad_w_q: float           # ‖∂L/∂W_Q‖ at the last step

    @classmethod
    def of(cls, run: TrainHistory) -> "RunSummary":
        grad_w_q = run.grad_norm_of("W_Q")                            # (steps,)
        return cls(run.heldout_accuracy, run.heldout_b_weight, run.heldout.peak_weight, float(run.loss[-1]),
                   run.steps_to(0.95), float(grad_w_q[0]), float(grad_w_q[-1]))


@dataclass(frozen=True)
class ExperimentOutcome:
    """Both runs of one experiment, summarised: ``runs[0]`` has the switch on, ``runs[1]`` off."""
    experiment: Experiment
    runs: tuple[RunSummary, RunSummary]

    @property
    def switch_matters(self) -> bool:
        """The second run (without √d_k, without positional encoding, …) generalises worse."""
        return self.runs[1].heldout_accuracy < self.runs[0].heldout_accuracy


def experiment_outcome(key: str, run_a: TrainHistory, run_b: TrainHistory) -> ExperimentOutcome:
    """The outcome of ``run_experiment(key, seed)`` = (run_a, run_b), as the page reports it."""
    if key not in EXPERIMENTS:
        raise ValueError(f"実験 {key!r} はありません。選べるのは {list(EXPERIMENTS)} です。")
    return ExperimentOutcome(EXPERIMENTS[key], (RunSummary.of(run_a), RunSummary.of(run_b)))
