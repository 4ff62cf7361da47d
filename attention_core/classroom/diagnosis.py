"""Checking a student's numbers for an exercise (exercises.py), and saying where a wrong one
went wrong.

A number is correct within one unit in the last place the page shows for its step: 3
decimals for q, k, v, dot products, scaled scores, weights, z and positions (so 0.001), 4
significant figures for the exponentials and their sum (0.01 for 16.92). One unit, not
half: a student who rounds on the way (16.92 / 90.62) lands within it.

A wrong number is compared with what the usual mistakes would have given, computed from
the exercise's numbers and from the student's own earlier answers: no scaling, scaling by
d_k instead of √d_k, no exponential, the wrong sum, a sign slipped in one product, another
key, weights that do not add to 1, z from e^s instead of the weights, a masked key given
weight, a key the query reads given none, e^s with the row's maximum subtracted (the stable
softmax's), and a number that follows from the student's own wrong earlier one. The hint
names the step, quotes the student's number and says what the number is built from; it
never gives the number asked for.

A 0 for a key the query reads is taken for "a small weight is none" before it is taken for
rounding: the hint says first that e^s > 0 for every score, and adds the rounding only when
the number rounds to 0 at 1 or 2 decimals. A number with decimals other than 0 (0.05 for
0.045) is rounding, and said to be.

>>> from attention_core.classroom.exercises import exercise
>>> e = exercise(4, "scaled")
>>> w = rows_of(e)[0]
>>> blank = e.blanks[0]                        # working.scaled[0]
>>> r = check(e, {blank: float(w.dots[0])})[blank]  # q·k, not divided by √d_k
>>> r.correct, r.tolerance
(False, 0.001)
>>> r.hint.split(":")[0]
'Your −1.000 is q·k₁ itself'
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import counted
from ..positions import sinusoidal
from ..prose import MINUS, page_number, plain, tex, words
from ..working import RowWorking
from .exercises import Blank, Exercise, parse_path, rows_of, solve
from .hintmaths import (
    ES,
    EXP_MASKED,
    EXP_MINUS_S,
    EXP_QK,
    EXP_QK_D_K,
    EXP_SHIFTED,
    MINUS_INFINITY,
    POSITIVE,
    QK,
    QK_D_K,
    RATIO,
    ROOT_D_K,
    SIGMA,
    SUM_ES,
    V_J,
    d_k_equals,
    e_to,
    es,
    k_of,
    matrix,
    product,
    qk,
    qkc,
    qv,
    shifted,
    sinusoid,
    weight,
    x_times,
    z_sum,
)

SIGNIFICANT = ("exp", "exp_sum")  # steps shown to 4 significant figures; the rest 3 decimals


@dataclass(frozen=True)
class Result:
    """One blank checked: ``correct`` within ``tolerance``; for a wrong one, ``hint_tex``,
    the hint in prose markup (its maths as $TeX$, for the page to typeset), and ``hint``,
    its plain text (prose.py)."""

    correct: bool
    tolerance: float
    hint_tex: str | None = None

    @property
    def hint(self) -> str | None:
        return None if self.hint_tex is None else plain(self.hint_tex)


def tolerance(step: str, value: float) -> float:
    """One unit in the last place the page shows for ``step``: 0.001 for 3 decimals; for 4
    significant figures, 0.01 at 16.92, 0.001 at 4.113, 0.0005 for an e^s of 0."""
    if step in SIGNIFICANT:
        if value == 0:
            return 0.0005
        return 10.0 ** (math.floor(math.log10(abs(value))) - 3)
    return 0.001


def shown(x: float, step: str = "") -> str:
    """``x`` as the page writes it for ``step``, with a true minus sign: 3 decimals
    (formatNumber), or for e^s and their sum 4 significant figures (workingtex.js's sigText:
    16.92, 1925, 0 for 0); from 100000 on scientific, "1.235×10²⁰"; −∞ and ∞."""
    return page_number(x, figures=step in SIGNIFICANT)


def check(e: Exercise, answers: dict[str, float]) -> dict[str, Result]:
    """Each answered blank checked; ``answers`` maps a blank's path to the student's number
    (unanswered blanks are left out, and every path must be one of ``e.blanks``)."""
    truth = solve(e)
    ctx = _Context(e, rows_of(e), answers, truth)
    results = {}
    for path, a in answers.items():
        b, t = parse_path(path), truth[path]
        tol = tolerance(b.step, t)
        ok = abs(a - t) <= tol + 1e-12
        results[path] = Result(ok, tol, None if ok else ctx.hint(b, float(a)))
    return results


@dataclass
class _Context:
    e: Exercise
    rows: list[RowWorking]
    answers: dict[str, float]
    truth: dict[str, float]

    def own(self, b: Blank, step: str, *index: int) -> float | None:
        """The student's answer for ``step`` at ``index`` in the same head, if given."""
        prefix = f"heads[{b.head}]." if self.e.W_O is not None else ""
        path = f"{prefix}working.{step}" + "".join(f"[{i}]" for i in index)
        return self.answers.get(path)

    def mine(self, b: Blank, step: str, true: np.ndarray) -> tuple[np.ndarray, bool]:
        """The vector ``step`` of b's head with the student's answers in place of the true
        numbers where given, and whether any of those differs (off by more than its step's
        tolerance)."""
        v = np.array(true, float)
        off = False
        for j in range(len(v)):
            a = self.own(b, step, j)
            if a is not None and math.isfinite(v[j]):
                off |= abs(a - v[j]) > tolerance(step, v[j])
                v[j] = a
        return v, off

    def hint(self, b: Blank, a: float) -> str:
        head = f"Head {b.head + 1}: " if self.e.W_O is not None else ""
        t = self.truth[b.path]
        if b.step in ("exp", "weights"):
            first = _masked(self, b, a) or _none(self, b, a, t)
            if first:
                return head + first
        candidates, otherwise = STEPS[b.step](self, b, a, t)
        return head + (_first(a, t, b.step, candidates) or _rounded(a, t, b.step) or otherwise)


def close(a: float, x: float, step: str) -> bool:
    """Whether ``a`` is ``x`` as a student might write it: within 1.5 of the step's units,
    or 0.5% (a student rounding the steps before)."""
    return math.isfinite(x) and abs(a - x) <= max(1.5 * tolerance(step, x), 0.005 * abs(x))


def _first(a: float, t: float, step: str, candidates) -> str | None:
    """The message of the first (value, message) whose value ``a`` is, and ``t`` is not."""
    for value, message in candidates:
        if close(a, value, step) and not close(t, value, step):
            return message
    return None


def _rounded(a: float, t: float, step: str) -> str | None:
    """A number right but written with fewer digits than the step shows."""
    for places in (1, 2):
        if a == round(t, places) and round(t, places) != round(t, 3):
            wanted = "4 significant figures" if step in SIGNIFICANT else "3 decimals"
            return (f"Your {shown(a)} is this number rounded to {places} decimal"
                    f"{'' if places == 1 else 's'}; this step is written to {wanted}.")
    return None


def _sub(n: int) -> str:
    """``n`` in subscript digits, as the page writes k₂."""
    return str(n).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def _vector(v) -> str:
    return "(" + ", ".join(shown(x) for x in v) + ")"


def _typed(v) -> str:
    """An input's vector (x, a column of W) as typed: whole numbers short, "(0, −1)"."""
    return "(" + ", ".join(f"{x:g}".replace("-", MINUS) for x in v) + ")"


def _key(e: Exercise, j: int) -> str:
    return f"key {j + 1} (“{words(e.tokens[j])}”)"


def _why_masked(e: Exercise, j: int) -> str:
    if e.causal:
        return f"it comes after query {e.row + 1}, and the causal mask hides later keys"
    return f"the mask hides it from query {e.row + 1}"


def _masked(ctx: _Context, b: Blank, a: float) -> str | None:
    """A masked key given an e^s or a weight other than 0."""
    j = b.index[0]
    w = ctx.rows[b.head]
    if w.allowed[j] or a == 0:
        return None
    what = f"an {ES}" if b.step == "exp" else "weight"
    return (f"Your {shown(a, b.step)} gives {_key(ctx.e, j)} {what}, but it is masked: "
            f"{_why_masked(ctx.e, j)}. Its score is {MINUS_INFINITY} and {EXP_MASKED}, so a "
            f"masked key gets no weight.")


def _none(ctx: _Context, b: Blank, a: float, t: float) -> str | None:
    """A 0 for a key the query reads: a small weight taken for none (see the module's
    docstring for when rounding is said as well)."""
    j = b.index[0]
    if a != 0 or not ctx.rows[b.head].allowed[j]:
        return None
    what = "no weight" if b.step == "weights" else f"an {ES} of 0"
    then = f", so {weight(j, ' > 0')}" if b.step == "weights" else ""
    wanted = "4 significant figures" if b.step in SIGNIFICANT else "3 decimals"
    rounded = (f" Rounded to the {wanted} this step is written to, it is not 0 either."
               if 0 in (round(t, 1), round(t, 2)) else "")
    return (f"Your {shown(a, b.step)} gives {_key(ctx.e, j)} {what}, but every key the query "
            f"may read gets a weight above zero: {POSITIVE} for every score s, however "
            f"negative{then}.{rounded}")


def _unshifted(it: str, what: str) -> str:
    """The end of a hint on e^(s − max s): what the shift keeps, and what the blank asks."""
    return (f"as a stable softmax computes {it}: it gives the same weights, since the shift "
            f"cancels in {RATIO}, but this blank asks for {what} itself, "
            f"unshifted.")



def _shift(w: RowWorking) -> float:
    """The row's largest scaled score among the keys it reads: what a stable softmax
    subtracts before the exponentials (none, NaN, for a row that reads no key)."""
    return float(w.scaled[w.allowed].max()) if w.allowed.any() else math.nan


def _projection(ctx: _Context, b: Blank, a: float, t: float) -> tuple[list, str]:
    """q[c], k[j][c] or v[j][c] of the row level: x times a column of W."""
    e, name = ctx.e, {"q": "W_Q", "k": "W_K", "v": "W_V"}[b.step]
    X = e.X
    j, c = (e.row, b.index[0]) if b.step == "q" else b.index
    W = e.heads[b.head][name]
    candidates = []
    if W.shape[0] == W.shape[1]:
        candidates.append((X[j] @ W[c], f"Your {shown(a)} is x times row {c + 1} of "
                           f"{matrix(name)}; entry {c + 1} of {x_times(name)} takes its column "
                           f"{c + 1}."))
    for other in ("W_Q", "W_K", "W_V"):
        if other != name and c < e.heads[b.head][other].shape[1]:
            candidates.append((X[j] @ e.heads[b.head][other][:, c],
                               f"Your {shown(a)} is built with {matrix(other)}; {b.step} uses "
                               f"{matrix(name)}."))
    for jj in range(len(X)):
        if jj != j:
            candidates.append((X[jj] @ W[:, c], f"Your {shown(a)} is built from x of token "
                               f"{jj + 1} (“{words(e.tokens[jj])}”); this one is token {j + 1}'s."))
    return candidates, (
        f"Your {shown(a)} is not entry {c + 1} of {b.step} for token {j + 1}: that is x = "
        f"{_typed(X[j])} times column {c + 1} of {matrix(name)}, {_typed(W[:, c])}, multiplied "
        f"entry by entry and added.")


def _dots(ctx: _Context, b: Blank, a: float, t: float) -> tuple[list, str]:
    e, w, j = ctx.e, ctx.rows[b.head], b.index[0]
    q, off_q = ctx.mine(b, "q", w.q)
    k = np.array([ctx.own(b, "k", j, c) if ctx.own(b, "k", j, c) is not None else w.k[j, c]
                  for c in range(len(w.q))])
    off_k = any(abs(k[c] - w.k[j, c]) > 0.001 for c in range(len(k)))
    candidates = []
    if off_q or off_k:
        candidates.append((float(q @ k), f"Your {shown(a)} is the dot product of your own q "
                           f"and {k_of(j)}, and one of them is off: check that blank first."))
    for c, p in enumerate(w.q * w.k[j]):
        if p != 0:
            candidates.append((t - 2 * p, f"Your {shown(a)} looks like a sign slip in one "
                               f"product: check "
                               f"{product(c, shown(w.q[c]), shown(w.k[j, c]))}."))
    for jj in range(len(w.k)):
        if jj != j:
            candidates.append((float(w.q @ w.k[jj]), f"Your {shown(a)} is {QK} with "
                               f"{_key(e, jj)}; this blank is {_key(e, j)}."))
    if w.v.shape[1] == len(w.q):
        candidates.append((float(w.q @ w.v[j]), f"Your {shown(a)} is {qv(j)}: the score "
                           f"takes the key, {k_of(j)}, not the value."))
    return candidates, (
        f"Your {shown(a)} is not {qk(j)}: that adds {qkc(j)} over the "
        f"{counted(len(w.q), 'component')}, q = {_vector(w.q)} and {k_of(j)} = "
        f"{_vector(w.k[j])}.")


def _root(d_k: int, t: float) -> str:
    """√d_k and its value, but not the value when it is the answer ``t`` itself (a score
    q·k = d_k, scaled to √d_k), as maths."""
    root = shown(math.sqrt(d_k))
    maths = rf"\sqrt{{{d_k}}}" if root in (shown(t), shown(t, "exp")) else \
        rf"\sqrt{{{d_k}}} = {root}"
    return tex(maths)


def _scaled(ctx: _Context, b: Blank, a: float, t: float) -> tuple[list, str]:
    e, w, j = ctx.e, ctx.rows[b.head], b.index[0]
    d_k, dot = len(w.q), float(w.dots[j])
    mine = ctx.own(b, "dots", j)
    candidates = []
    if mine is not None and abs(mine - dot) > 0.001:
        candidates.append((mine * w.scale, f"Your {shown(a)} follows from your {qk(j)}, "
                           f"{shown(mine)}, which is off: check that blank first."))
    if e.scale == 1.0:
        candidates.append((dot / math.sqrt(d_k), f"Your {shown(a)} is {QK} divided by "
                           f"{_root(d_k, t)}, but this exercise does not scale (scale 1): the "
                           f"score is {QK} itself."))
    else:
        candidates += [
            (dot, f"Your {shown(a)} is {qk(j)} itself: the scaled score divides it by "
                  f"{ROOT_D_K}, {_root(d_k, t)}."),
            (dot / d_k, f"Your {shown(a)} divides {qk(j)} = {shown(dot)} by {d_k_equals(d_k)}; "
                        f"divide by its square root, {_root(d_k, t)}."),
            (dot * math.sqrt(d_k), f"Your {shown(a)} multiplies {qk(j)} by {ROOT_D_K}; divide "
                                   f"by it."),
        ]
    candidates.append((-t, f"Your {shown(a)} has the wrong sign: {qk(j)} = {shown(dot)}."))
    how = f"the score is {QK} itself (scale 1)" if e.scale == 1.0 else \
        f"it is {qk(j)} = {shown(dot)} divided by {_root(d_k, t)}"
    return candidates, f"Your {shown(a)} is not the scaled score: {how}."


def _exp(ctx: _Context, b: Blank, a: float, t: float) -> tuple[list, str]:
    w, j = ctx.rows[b.head], b.index[0]
    s, dot, d_k = float(w.scaled[j]), float(w.dots[j]), len(w.q)
    mine = ctx.own(b, "scaled", j)
    candidates = []
    if mine is not None and abs(mine - s) > 0.001:
        candidates.append((math.exp(mine), f"Your {shown(a, 'exp')} is e to your scaled "
                           f"score, {shown(mine)}, which is off: check that blank first."))
    candidates += [
        (s, f"Your {shown(a, 'exp')} is the scaled score itself: this step raises e to it, "
            f"{e_to(shown(s))}."),
        (math.exp(dot), f"Your {shown(a, 'exp')} is {EXP_QK} = {e_to(shown(dot))}, unscaled: "
                        f"raise e to the scaled score, {QK} / {_root(d_k, t)}."),
        (math.exp(dot / d_k), f"Your {shown(a, 'exp')} is {EXP_QK_D_K}: the score is "
                              f"divided by {_root(d_k, t)}, not by {d_k}."),
        (math.exp(-s), f"Your {shown(a, 'exp')} is {EXP_MINUS_S}: the exponent is the scaled score "
                       f"{shown(s)}, sign and all."),
        (math.exp(s - _shift(w)), f"Your {shown(a, 'exp')} is {shifted(j)}, the "
                                  f"exponential with the row's largest score subtracted, "
                                  + _unshifted("it", es(j))),
    ]
    return candidates, (
        f"Your {shown(a, 'exp')} is not {es(j)}: that is e (2.71828…) raised to the "
        f"scaled score, {e_to(shown(s))}.")


def _unmasked(w: RowWorking) -> np.ndarray:
    """e^s of every key, as if none were masked: (m,)."""
    scaled = w.dots * w.scale + (w.bias if w.bias is not None else 0)
    return np.exp(scaled)


def _exp_sum(ctx: _Context, b: Blank, a: float, t: float) -> tuple[list, str]:
    w = ctx.rows[b.head]
    exp, off = ctx.mine(b, "exp", w.exp)
    allowed, d_k = w.allowed, len(w.q)
    candidates = []
    if off:
        candidates.append((float(exp.sum()), f"Your {shown(a, 'exp_sum')} adds up your own "
                           f"{ES}, and one of them is off: check those blanks first."))
    if not allowed.all():
        candidates.append((float(_unmasked(w).sum()), f"Your {shown(a, 'exp_sum')} includes "
                           f"the masked keys' {ES}; a masked key's is {EXP_MASKED}."))
    candidates += [
        (float(w.scaled[allowed].sum()), f"Your {shown(a, 'exp_sum')} adds the scaled scores: "
                                         f"the sum is of their exponentials, {ES}."),
        (float(np.exp(w.dots[allowed]).sum()), f"Your {shown(a, 'exp_sum')} adds {EXP_QK}, "
                                               f"unscaled: divide each {QK} by {_root(d_k, t)} "
                                               f"first."),
        (float(np.exp(w.dots[allowed] / d_k).sum()), f"Your {shown(a, 'exp_sum')} adds "
                                                     f"{EXP_QK_D_K}: divide by {_root(d_k, t)}, "
                                                     f"not {d_k}."),
        (float(np.exp(w.scaled[allowed] - _shift(w)).sum()),
         f"Your {shown(a, 'exp_sum')} adds {EXP_SHIFTED}, the exponentials with the row's "
         f"largest score subtracted, " + _unshifted("them", SUM_ES)),
    ]
    for j in np.flatnonzero(allowed):
        candidates.append((t - float(w.exp[j]), f"Your {shown(a, 'exp_sum')} leaves out "
                           f"{_key(ctx.e, j)}: the sum takes every key the query may read."))
    return candidates, (
        f"Your {shown(a, 'exp_sum')} is not {SUM_ES}: that adds {ES} of the "
        f"{counted(int(allowed.sum()), 'key')} query {ctx.e.row + 1} may read.")


def _softmax(x: np.ndarray) -> np.ndarray:
    y = np.exp(x - x.max())
    return y / y.sum()


def _weights(ctx: _Context, b: Blank, a: float, t: float) -> tuple[list, str]:
    e, w, j = ctx.e, ctx.rows[b.head], b.index[0]
    allowed, d_k, ej, total = w.allowed, len(w.q), float(w.exp[j]), float(w.exp_sum)
    exp, off = ctx.mine(b, "exp", w.exp)
    mine_sum = ctx.own(b, "exp_sum")
    candidates = []
    if off or (mine_sum is not None and abs(mine_sum - total) > tolerance("exp_sum", total)):
        own_sum = mine_sum if mine_sum is not None else total
        candidates.append((float(exp[j]) / own_sum, f"Your {shown(a)} follows from your own "
                           f"{ES} and {SIGMA}, and one of them is off: check those blanks first."))
    if not allowed.all():
        u = _unmasked(w)
        candidates.append((float(u[j] / u.sum()), f"Your {shown(a)} divides by a sum that "
                           f"takes in the masked keys: a masked key gets no weight, so "
                           f"their {ES} are 0."))
    candidates += [
        (ej, f"Your {shown(a)} is {es(j)} itself: the weight divides it by the row's "
             f"sum, {SUM_ES}."),
        (float(w.scaled[j] / w.scaled[allowed].sum()) if w.scaled[allowed].sum() else math.nan,
         f"Your {shown(a)} divides the scaled score by the scores' sum: softmax divides "
         f"their exponentials, {es(j)} / {SUM_ES}."),
        (float(_softmax(np.where(allowed, w.dots, -np.inf))[j]),
         f"Your {shown(a)} is the softmax of the unscaled scores {QK}: divide each by "
         f"{_root(d_k, t)} first."),
        (float(_softmax(np.where(allowed, w.dots / d_k, -np.inf))[j]),
         f"Your {shown(a)} is the softmax of {QK_D_K}: divide by {_root(d_k, t)}, not {d_k}."),
    ]
    for jj in np.flatnonzero(allowed):
        if jj != j:
            candidates.append((ej / (total - float(w.exp[jj])), f"Your {shown(a)} divides "
                               f"by a sum that leaves out {_key(e, jj)}."))
    return candidates, _sum_to_one(ctx, b, a) or (
        f"Your {shown(a)} is not the weight of {_key(e, j)}: that is its {ES} over the row's "
        f"sum, {es(j)} / {SUM_ES}.")


def _sum_to_one(ctx: _Context, b: Blank, a: float) -> str | None:
    m = len(ctx.rows[b.head].weights)
    given = [ctx.own(b, "weights", j) for j in range(m)]
    if any(g is None for g in given) or abs(sum(given) - 1) <= 0.001 * m:
        return None
    return (f"Your weights add to {shown(sum(given))}; a row's weights always add to 1 "
            f"(each {ES} over their common sum), so at least one is off, this "
            f"{shown(a)} among them.")


def _z(ctx: _Context, b: Blank, a: float, t: float) -> tuple[list, str]:
    w, c = ctx.rows[b.head], b.index[0]
    weights, off = ctx.mine(b, "weights", w.weights)
    v = w.v[:, c]
    candidates = []
    if off:
        candidates.append((float(weights @ v), f"Your {shown(a)} follows from your own "
                           f"weights, and one of them is off: check those first."))
    if not w.allowed.all():
        u = _unmasked(w)
        candidates.append((float(u / u.sum() @ v), f"Your {shown(a)} gives weight to masked "
                           f"keys: their weights are 0, so their values add nothing."))
    candidates += [
        (float(w.exp @ v), f"Your {shown(a)} weighs the values by {ES}, not by the weights: "
                           f"divide each {ES} by their sum {SUM_ES} first."),
        (float(v[w.allowed].sum()), f"Your {shown(a)} adds the values' entries unweighted: "
                                    f"multiply each by its weight first."),
        (float(v[w.allowed].mean()), f"Your {shown(a)} averages the values' entries: each "
                                     f"counts by its weight, not equally."),
    ]
    for cc in range(w.v.shape[1]):
        if cc != c:
            candidates.append((float(w.weights @ w.v[:, cc]), f"Your {shown(a)} is entry "
                               f"{cc + 1} of z; this blank is entry {c + 1}."))
    if w.k.shape[1] > c:
        candidates.append((float(w.weights @ w.k[:, c]), f"Your {shown(a)} weighs the keys; "
                           f"z weighs the values {V_J}."))
    return candidates, (
        f"Your {shown(a)} is not entry {c + 1} of z: that is {z_sum(c)}, each "
        f"weight times entry {c + 1} of its value, {_vector(v)}, added up.")


def _position(ctx: _Context, b: Blank, a: float, t: float) -> tuple[list, str]:
    i, c = b.index
    d = ctx.e.X.shape[1]
    pair = c // 2
    angle = i / 10000 ** (2 * pair / d)
    swapped = math.cos(angle) if c % 2 == 0 else math.sin(angle)
    candidates = [
        (swapped, f"Your {shown(a)} swaps sine and cosine: the first entry of each pair takes "
                  f"sin, the second cos."),
        (float(sinusoidal(i + 2, d)[i + 1, c]), f"Your {shown(a)} is for position {i + 1}; "
                                                f"positions count from 0, so token {i + 1} is "
                                                f"at {i}."),
        ((math.sin if c % 2 == 0 else math.cos)(math.radians(angle)),
         f"Your {shown(a)} takes the angle in degrees; it is in radians."),
    ]
    fn = "sin" if c % 2 == 0 else "cos"
    return candidates, (
        f"Your {shown(a)} is not entry {c + 1} at position {i}: that is "
        f"{sinusoid(fn, i, 2 * pair, d)}, the angle in radians.")


STEPS = {"q": _projection, "k": _projection, "v": _projection, "dots": _dots,
         "scaled": _scaled, "exp": _exp, "exp_sum": _exp_sum, "weights": _weights, "z": _z,
         "positional_encoding": _position}
