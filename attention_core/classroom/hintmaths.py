"""The maths the hints of diagnosis.py write, as TeX in prose markup (prose.py makes it
plain: q·k₁, e^(q·k), √d_k). A key is numbered from 0 (``j``) and written from 1 (k₁)."""

from __future__ import annotations

from ..prose import tex

QK, QK_D_K, ES = tex(r"q \cdot k"), tex(r"q \cdot k / d_k"), tex("e^{s}")
SUM_ES, SIGMA, ROOT_D_K = tex(r"\Sigma e^{s}"), tex(r"\Sigma"), tex(r"\sqrt{d_k}")
EXP_QK, EXP_QK_D_K = tex(r"e^{q \cdot k}"), tex(r"e^{q \cdot k / d_k}")
EXP_SHIFTED, EXP_MINUS_S = tex(r"e^{s - \max s}"), tex("e^{-s}")
EXP_MASKED, MINUS_INFINITY = tex(r"e^{-\infty} = 0"), tex(r"-\infty")
POSITIVE, V_J, RATIO = tex("e^{s} > 0"), tex("v_j"), tex(r"e^{s} / \Sigma e^{s}")


def _number(shown: str) -> str:
    """A number as the page shows it, for TeX: its minus (U+2212) a hyphen, which TeX sets
    as a minus."""
    return shown.replace("\u2212", "-")


def qk(j: int) -> str:
    return tex(rf"q \cdot k_{{{j + 1}}}")


def qkc(j: int) -> str:
    return tex(rf"q[c] \cdot k_{{{j + 1}}}[c]")


def qv(j: int) -> str:
    return tex(rf"q \cdot v_{{{j + 1}}}")


def k_of(j: int) -> str:
    return tex(f"k_{{{j + 1}}}")


def es(j: int) -> str:
    return tex(f"e^{{s_{{{j + 1}}}}}")


def e_to(shown: str) -> str:
    """e raised to a number as shown."""
    return tex(f"e^{{{_number(shown)}}}")


def weight(j: int, then: str = "") -> str:
    """e^sⱼ / Σ e^s, and ``then`` (" > 0")."""
    return tex(rf"e^{{s_{{{j + 1}}}}} / \Sigma e^{{s}}{then}")


def shifted(j: int) -> str:
    return tex(rf"e^{{s_{{{j + 1}}} - \max s}}")


def d_k_equals(d_k: int) -> str:
    return tex(f"d_k = {d_k}")


def matrix(name: str) -> str:
    return tex(name)


def x_times(name: str) -> str:
    return tex(rf"x \cdot {name}")


def z_sum(c: int) -> str:
    return tex(rf"\sum_j a_j \cdot v_j[{c + 1}]")


def product(c: int, q: str, k: str) -> str:
    """q[c]·k[c] = (q)·(k), a product of the dot product's, its numbers as shown."""
    return tex(rf"q[{c + 1}] \cdot k[{c + 1}] = ({_number(q)}) \cdot ({_number(k)})")


def sinusoid(fn: str, i: int, two_c: int, d: int) -> str:
    """sin(i / 10000^(2c/d)), or cos."""
    return tex(rf"\{fn}({i} / 10000^{{{two_c}/{d}}})")
