// Where q_i, k_j and v_j come from: the working's first line names q_i's formula as the
// view really computes it (x_i·W_Q, with positions (x_i + PE_i)·W_Q, with b_Q and RoPE),
// and a disclosure beside it writes the product out with its numbers, component by
// component, and each key's k_j (v_j beside z_i). working.js places them.

import { el, symbols } from "../lib/dom.js";
import { texNumber } from "../lib/format.js";
import { typeset } from "./tex.js";
import { joinTerms, keptIndices, line, texFactor, texVector, wordsLine } from "./workingtex.js";

const MATRIX_COLS = 5;  // a wider matrix is shortened to its first 3 columns, ⋯ and its last

/** The TeX of the row the projections multiply for token k (1-based): x_k, or (x_k +
 *  PE_k) with sinusoidal positions; a key's from X_kv in cross-attention. */
export function rowTex(k, { pe = false, cross = false } = {}) {
  const kv = cross ? "^{kv}" : "";
  return pe ? `(x${kv}_{${k}} + PE${kv}_{${k}})` : `x${kv}_{${k}}`;
}

/** The formula of q_i (``name`` q, k or v; W its matrix) as the view computes it: the row
 *  times W, plus the bias, turned by RoPE at position ``p`` when ``rotated``. */
export function formulaTex(row, W, { bias = false, rotated = false, p = 0 } = {}) {
  const made = `${row}${W}${bias ? ` + b_${W.at(-1)}` : ""}`;
  return rotated ? `\\operatorname{rot}_{p = ${p}}(${made})` : made;
}

/** Typed numbers (x_i, W): whole ones short, else every one with 3 decimals (texFactor). */
const typedTex = (values) => {
  const whole = values.every((x) => Number.isInteger(x) && Math.abs(x) < 1e6);
  return (x) => (whole ? (x < 0 ? `(${x})` : String(x)) : texFactor(x));
};

/** W as a bracketed matrix, its wide rows and columns shortened with ⋯ and ⋮. */
export function matrixTex(W) {
  const f = typedTex(W.flat());
  const cut = (count, long) => (count <= long ? [...Array(count).keys()] : [0, 1, 2, null, count - 1]);
  const rows = cut(W.length, MATRIX_COLS);
  const cols = cut(W[0].length, MATRIX_COLS);
  const cell = (r, c) => (r === null ? (c === null ? "\\ddots" : "\\vdots") : c === null ? "\\cdots" : f(W[r][c]).replace(/^\((.*)\)$/, "$1"));
  return `\\begin{bmatrix}${rows.map((r) => cols.map((c) => cell(r, c)).join(" & ")).join(" \\\\ ")}\\end{bmatrix}`;
}

/** The lines of q_i = x_i·W_Q written out: the row, W_Q, each component as the row's dot
 *  product with a column of W_Q, then the bias and the turn, as the view has them.
 *  ``x``: the row's numbers (null where not known); ``xw``: x·W_Q as the engine made it. */
function queryLines(w, i, made) {
  const { x, W_Q, pe } = made;
  const rowT = rowTex(i, { pe });
  const items = [];
  if (x) items.push(line(`${rowT} = ${texVector(x, typedTex(x))}`));
  items.push(line(`W_Q = ${matrixTex(W_Q)}`));
  const xw = w.q_unbiased ?? w.q_unrotated ?? w.q;
  if (x) {
    const fx = typedTex(x);
    const fw = typedTex(W_Q.flat());
    items.push(wordsLine(`Each number of q_${i} is the dot product of ${pe ? `x_${i} + PE_${i}` : `x_${i}`} (row ${i} of ${pe ? "X + PE" : "X"}) with one column of W_Q:`),
      ...keptIndices(xw.length).map((c) => (c === null ? line("\\vdots")
        : line(`q_{${i},${c + 1}} = ${joinTerms(x.map((v, r) => `${fx(v)}{\\cdot}${fw(W_Q[r][c])}`))} = ${texNumber(xw[c])}`))));
  } else {
    items.push(line(`q_{${i}} = ${rowT}W_Q = ${texVector(xw)}`));
  }
  if (w.b_Q) items.push(line(`q_{${i}} = ${rowT}W_Q + b_Q = ${texVector(xw)} + ${texVector(w.b_Q, typedTex(w.b_Q))} = ${texVector(w.q_unrotated ?? w.q)}`));
  if (w.q_unrotated) items.push(wordsLine(`Then RoPE turns q_${i} by its position p = ${w.position}: the step “Rotate” writes the turn.`));
  return items;
}

/** k_j (``name`` "k") or v_j ("v") of each shown key: its row times W, plus the bias, as
 *  the engine made it (before RoPE turns k_j). */
function keyLines(name, w, shown, keys, made, values) {
  const W = name === "k" ? made.W_K : made.W_V;
  const Wn = name === "k" ? "W_K" : "W_V";
  const bias = name === "k" ? w.b_K : w.b_V;
  const f = typedTex(shown.flatMap((j) => made.xk(j) ?? []));
  const rowOf = (j) => (made.xk(j) ? texVector(made.xk(j), f) : rowTex(j + 1, made));
  return [
    wordsLine(`Each ${name}_j is its ${made.cross ? "row of X_kv" : "token's row"} times ${Wn}${bias ? `, plus b_${Wn.at(-1)}` : ""}${name === "k" && w.k_unrotated ? ", before RoPE turns it" : ""}:`),
    line(`${Wn} = ${matrixTex(W)}`),
    ...shown.map((j) => line(`${name}_{${j + 1}} = ${rowOf(j)}\\,${Wn}${bias ? ` + b_${Wn.at(-1)}` : ""} = ${texVector(values(j))}`, keys[j], null, j)),
  ];
}

/** A real model's words in place of numbers (``made`` = {d_model, layer}): the shapes
 *  of x, W and what their product gives, and what is added to it. */
function shapeLines(name, i, w, made, d) {
  const D = made.d_model;
  const { W, sub, bias, turned } = {
    q: { W: "W_Q", sub: `_${i}`, bias: w.b_Q, turned: w.q_unrotated },
    k: { W: "W_K", sub: "_j", bias: w.b_K, turned: w.k_unrotated },
    v: { W: "W_V", sub: "_j", bias: w.b_V, turned: null } }[name];
  const x = `x${sub}`;
  const first = name === "q"
    ? `${x} is this token's ${D} numbers as they enter layer ${made.layer + 1} (“What is X here?” says what they are); W_Q is this head's ${D} × ${d} matrix. So q${sub} has ${d} numbers, each the dot product of ${x} with one column of W_Q: ${D} products apiece.`
    : `each key's row x_j times ${W} (${D} × ${d}), in the same way.`;
  const after = [bias ? `The bias b_${W.at(-1)} is added` : null, turned ? "RoPE then turns it by its position (below)" : null].filter(Boolean);
  return [wordsLine(`${name}${sub} = ${x}·${W}${bias ? ` + b_${W.at(-1)}` : ""}: ${first}${after.length ? ` ${after.join("; ")}.` : ""}`)];
}

/** The lines that say how q_i and the shown keys' k_j are made. */
export function queryKeyLines(w, i, shown, keys, made, K) {
  if (!made.W_Q) return [...shapeLines("q", i, w, made, w.q.length), ...shapeLines("k", i, w, made, w.q.length)];
  return [...queryLines(w, i, made),
    ...keyLines("k", w, shown, keys, made, (j) => (w.k_unrotated ?? K)[j])];
}

/** The lines that say how the values v_j are made. */
export function valueLines(w, i, shown, keys, made, V) {
  if (!made.W_V) return shapeLines("v", i, w, made, w.z.length);
  return keyLines("v", w, shown, keys, made, (j) => V[j]);
}

/** A disclosure, ``summary`` its words, whose lines (``lines()``) are built and typeset
 *  only once it is opened: closed, it costs the working no maths. It carries the TeX of
 *  its lines as its data-tex, so a redraw keeps it while they stay the same and replaces
 *  it (open as it was) when they change (morph.js). */
export function disclosure(key, summary, lines, open) {
  const built = lines();
  const body = el("ol", { class: "made-body" }, ...(open ? built : []));
  const tex = built.flatMap((li) => [...li.querySelectorAll("[data-tex]")].map((s) => s.dataset.tex)).join("\n");
  const node = el("details", { class: "made", "data-made": key, "data-whole": `${summary}\n${tex}`, open },
    el("summary", {}, ...symbols(summary)), body);
  node.addEventListener("toggle", () => {
    if (node.open && !body.firstChild) {
      body.append(...built);
      typeset(body);
    }
  });
  return node;
}
