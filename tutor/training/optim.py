"""The two optimisers of ⑧: plain gradient descent and Adam."""
from __future__ import annotations

import numpy as np

from .model import Params


# ---------------------------------------------------------------------------
# optimisers
# ---------------------------------------------------------------------------
def sgd_step(w, grad, lr: float) -> np.ndarray:
    """One plain gradient-descent step: w ← w − η·∂L/∂w (returns a new array)."""
    return np.asarray(w, dtype=np.float64) - float(lr) * np.asarray(grad, dtype=np.float64)


class Adam:
    """Adam (Kingma & Ba): m ← β1 m + (1−β1) g, v ← β2 v + (1−β2) g², w ← w − η m̂ / (√v̂ + ε)."""

    def __init__(self, params: Params, lr: float, beta1=0.9, beta2=0.999, eps=1e-8):
        self.lr, self.b1, self.b2, self.eps, self.t = lr, beta1, beta2, eps, 0
        self.m = {k: np.zeros_like(a) for k, a in params.as_dict().items()}
        self.v = {k: np.zeros_like(a) for k, a in params.as_dict().items()}

    def step(self, params: Params, grads: Params) -> Params:
        self.t += 1
        new = {}
        for k, w in params.as_dict().items():
            g = getattr(grads, k)
            self.m[k] = self.b1 * self.m[k] + (1 - self.b1) * g          # same shape as w
            self.v[k] = self.b2 * self.v[k] + (1 - self.b2) * g * g      # same shape as w
            m_hat = self.m[k] / (1 - self.b1 ** self.t)
            v_hat = self.v[k] / (1 - self.b2 ** self.t)
            new[k] = w - self.lr * m_hat / (np.sqrt(v_hat) + self.eps)
        return Params(**new)


