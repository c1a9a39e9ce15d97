"""Numbers written into a hand calculation: the LaTeX (and prose) pieces that ⓪-1 and ⓪-2 build
their worked steps from (⓪-2's LSTM and GRU gates too). Every number goes through ui.validate's formatters (tutor.numfmt,
四捨五入): whole numbers without decimals, others to 3 places."""
from __future__ import annotations

from tutor import numfmt

from .validate import format_number, format_tiny


def fmt(x) -> str:
    """A number as the page prints it: whole numbers without decimals, others to 3 places."""
    x = float(x)
    return format_number(x, 0) if x.is_integer() else format_number(x, 3)


def length(x) -> str:
    """A length that may be tiny or huge: 3 places, 9.5×10⁻⁷ below 0.001, thousands separated."""
    x = float(x)
    return format_tiny(x, 3) if x < 1000 else numfmt.grouped(x)


def par(x) -> str:
    """A factor inside a product: negatives in parentheses."""
    text = fmt(x)
    return f"({text})" if text.startswith("-") else text


def col(xs) -> str:
    """A column vector in LaTeX."""
    return r"\begin{pmatrix} " + r" \\ ".join(fmt(x) for x in xs) + r" \end{pmatrix}"


def row(xs) -> str:
    """A row vector (a, b, …) in LaTeX."""
    return "(" + ",\\ ".join(fmt(x) for x in xs) + ")"


def mat(m) -> str:
    """A matrix in LaTeX (pmatrix)."""
    return r"\begin{pmatrix} " + r" \\ ".join(" & ".join(fmt(x) for x in r) for r in m) + r" \end{pmatrix}"


def text_row(xs) -> str:
    """(0.487, 0.760) for prose."""
    return "(" + ", ".join(fmt(x) for x in xs) + ")"


def products(a, b) -> str:
    """(a₁ × b₁, a₂ × b₂) in LaTeX, negatives in parentheses."""
    return "(" + ",\\ ".join(f"{par(x)} \\times {par(y)}" for x, y in zip(a, b)) + ")"


def dot_terms(a, b) -> str:
    """a₁ × b₁ + a₂ × b₂ + … in LaTeX (the products of a dot product written out)."""
    return " + ".join(f"{par(x)} \\times {par(y)}" for x, y in zip(a, b))


def matvec(name: str, vec_name: str, m, x, result) -> str:
    """W s = (each row's products) = result: the products written out, the result from the engine."""
    rows = [dot_terms(r, x) for r in m]
    return f"{name}\\,{vec_name} = " + r"\begin{pmatrix} " + r" \\ ".join(rows) + r" \end{pmatrix} = " + col(result)


def gate_lines(name: str, act: str, g, uh_name: str) -> str:
    """a = W x + U h + b = (…) + (…) + (…) = (…), then the gate = σ(a) ≈ (…), as one aligned block."""
    return (r"\begin{aligned}" + f"a_{name} &= W_{name} x_t + U_{name} {uh_name} + b_{name}" + r" \\ "
            + f"&= {row(g.wx)} + {row(g.uh)} + {row(g.b)} = {row(g.pre)}" + r" \\ "
            + f"{name} &= {act}(a_{name}) \\approx {row(g.value)}" + r"\end{aligned}")
