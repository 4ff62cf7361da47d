// Draw the editable inputs: token labels, X, W_Q, W_K, W_V, and the messages of invalid cells.
// Inputs are rebuilt only when a shape or the page of a large matrix changes; otherwise
// only values and marks are updated, so typing, focus and the caret are never disturbed.
// A matrix beyond SHOWN rows or columns shows one page of SHOWN × SHOWN inputs at a time,
// with buttons to turn it (pages.js); every input keeps its real row and column.

import { el, keyed, symbols } from "./dom.js";
import { SHOWN } from "./matrix.js";
import { pageText, windowOf } from "./pages.js";
import { matricesOf } from "./state.js";

const CAPTIONS = {
  X: ["X", "token embeddings", "n × d_model"],
  W_Q: ["W_Q", "query weights", "d_model × d_k"],
  W_K: ["W_K", "key weights", "d_model × d_k"],
  W_V: ["W_V", "value weights", "d_model × d_v"],
  W_O: ["W_O", "output weights: Z = Concat(Z_1, …, Z_h)·W_O", "h·d_v × d_model"],
  X_kv: ["X_kv", "the sequence keys and values come from", "m × d_model"],
};

/** "W_Q_2" → {base: "W_Q", head: 2}; other names have head null. */
function split(name) {
  const m = /^(W_[QKV])_(\d+)$/.exec(name);
  return m ? { base: m[1], head: Number(m[2]) } : { base: name, head: null };
}

/** Whether the browser may leave a matrix's inputs undrawn while they are off screen
 *  (app.css): those of the other heads and W_O, below the first screen, and any page of
 *  more than SKIPPABLE_CELLS inputs. Not the default example's few: content-visibility
 *  draws a block only in the frame after its first layout, and making up for that
 *  (reveal.js) cost a phone's first load a forced layout. */
const SKIPPABLE_CELLS = 64;
const isSkippable = (name, cells) => split(name).head !== null || name === "W_O" || cells > SKIPPABLE_CELLS;

/** The words before "row i column j" in a cell's accessible name: "W_Q", "W_Q head 2". */
const cellPrefix = (name) => {
  const { base, head } = split(name);
  return head === null ? base : `${base} head ${head}`;
};

// The labels beside a matrix's rows: X has the query tokens', X_kv the key tokens'.
const LABELS = {
  X: { key: "tokens", name: (i) => `Token ${i + 1} label`, data: "data-label" },
  X_kv: { key: "tokens_kv", name: (i) => `Key token ${i + 1} label`, data: "data-label-kv" },
};

/** The accessible name of a field as the API names it: "X[2][0]" → "X row 3 column 1". */
export function fieldName(field) {
  let m = /^(X|W_[QKV](?:_\d+)?|W_O|X_kv)\[(\d+)\]\[(\d+)\]$/.exec(field);
  if (m) return `${cellPrefix(m[1])} row ${Number(m[2]) + 1} column ${Number(m[3]) + 1}`;
  m = /^tokens\[(\d+)\]$/.exec(field);
  if (m) return `Token ${Number(m[1]) + 1} label`;
  m = /^tokens_kv\[(\d+)\]$/.exec(field);
  if (m) return `Key token ${Number(m[1]) + 1} label`;
  if (field === "scale") return "Scale";
  return null;
}

export const fieldId = (field) => "in-" + field.replace(/[[\]]+/g, "-").replace(/-$/, "");

/** Draw the inputs of ``state`` in ``host``, marking the fields of ``errors``.
 *  ``pages``: a Map from a matrix's name to the page of it shown ({row, col}, see pages.js;
 *  none: its first).
 *  ``later``: names of matrices whose inputs, when not built yet, may wait for a later
 *  call (the page builds those of other heads and W_O after its first paint); their
 *  figure already has its caption and takes its place. Returns whether any waits. */
export function renderInputs(host, state, errors, { later = null, pages = null } = {}) {
  const names = matricesOf(state);
  let waiting = false;
  for (const figure of host.querySelectorAll(":scope > [data-key]")) {
    if (!names.includes(figure.dataset.key)) figure.remove();  // a removed head, X_kv off
  }
  for (const name of names) {
    const figure = keyed(host, name, () => el("figure", { class: "matrix editable" }));
    const m = state[name];
    const w = windowOf(pages?.get(name), m.length, m[0].length, SHOWN);
    const rows = w.r1 - w.r0;
    figure.classList.toggle("skippable", isSkippable(name, rows * (w.c1 - w.c0)));
    const size = `${rows}×${w.c1 - w.c0} at ${w.r0},${w.c0}`;
    const wait = figure.dataset.size !== size && Boolean(later?.has(name));
    const want = wait ? "later" : size;
    if (figure.dataset.size !== want) {
      build(figure, name, wait ? { ...w, r1: w.r0 } : w, rows);
      figure.dataset.size = want;
    }
    const paged = `${want} of ${m.length}×${m[0].length}`;
    if (figure.dataset.paged !== paged) {
      figure.dataset.paged = paged;
      drawPager(figure, w, m.length, m[0].length);
    }
    waiting ||= wait;
    const { base, head } = split(name);
    const words = ` ${CAPTIONS[base][1]}${head !== null ? `, head ${head}` : state.heads > 1 && base.startsWith("W_") && base !== "W_O" ? ", head 1" : ""}`;
    if (figure.dataset.words !== words) {
      figure.dataset.words = words;
      figure.querySelector(".formula").replaceChildren(...symbols(words));
    }
    const [, , dims] = CAPTIONS[base];
    const [a, b] = dims.split(" × ");
    const shape = `${m.length} × ${m[0].length}  (${a} × ${b})`;
    if (figure.dataset.shape !== shape) {  // only when it changes: this runs on every keystroke
      figure.dataset.shape = shape;
      figure.querySelector(".shape").replaceChildren(...symbols(shape));
    }
    if (wait) continue;  // no inputs yet to write into
    // A keystroke makes a new array for the row it changed and keeps every other (see
    // state.js): with no error on the page now or at the last drawing, a row that is the
    // same array is the same text, and is skipped. At 256 tokens with 4 heads this spares
    // ~3,000 inputs per keystroke.
    const { cells, labelInputs } = builtCells.get(figure);
    const labels = LABELS[name] ? state[LABELS[name].key] : null;
    const last = drawn.get(figure);
    const clean = errors.size === 0 && last !== undefined && !last.errors;
    for (let i = w.r0; i < w.r1; i++) {
      if (clean && last.m[i] === m[i] && (!labels || last.labels[i] === labels[i])) continue;
      for (let j = w.c0; j < w.c1; j++) {
        const field = `${name}[${i}][${j}]`;
        sync(cells[i - w.r0][j - w.c0], m[i][j], errors.get(field), field);
      }
      if (labels) {
        const field = `${LABELS[name].key}[${i}]`;
        sync(labelInputs[i - w.r0], labels[i], errors.get(field), field);
      }
    }
    drawn.set(figure, { m, labels, errors: errors.size > 0 });
  }
  return waiting;
}

const builtCells = new WeakMap();  // figure → {cells: inputs by [i][j], labelInputs by [i]}
const drawn = new WeakMap();  // figure → {m, labels, errors}: what its inputs last showed

function sync(input, text, error, field) {
  if (input.value !== text) input.value = text;
  const invalid = error !== undefined;
  if (invalid !== (input.getAttribute("aria-invalid") === "true")) {
    input.setAttribute("aria-invalid", String(invalid));
    if (invalid) input.setAttribute("aria-describedby", "err-" + fieldId(field));
    else input.removeAttribute("aria-describedby");
  }
}

/** The figure of a matrix with the inputs of window ``w`` ({r0, r1, c0, c1}; r1 = r0:
 *  none yet) and the place of ``space`` rows kept for it while it is off screen. */
function build(figure, name, w, space) {
  const [symbol] = CAPTIONS[split(name).base];
  // The caption's words, the shape and the pager are written again after a rebuild.
  for (const key of ["words", "shape", "paged"]) delete figure.dataset[key];
  const table = el("table", { class: "cells" });
  const tbody = el("tbody");
  const cells = [];
  for (let i = w.r0; i < w.r1; i++) {
    const tr = el("tr");
    cells.push([]);
    for (let j = w.c0; j < w.c1; j++) {
      const field = `${name}[${i}][${j}]`;
      const input = el("input", {
        id: fieldId(field), type: "text", inputmode: "decimal", autocomplete: "off",
        spellcheck: "false", "aria-label": `${cellPrefix(name)} row ${i + 1} column ${j + 1}`,
        "data-matrix": name, "data-i": i, "data-j": j,
      });
      cells[i - w.r0].push(input);
      tr.append(el("td", {}, input));
    }
    tbody.append(tr);
  }
  table.append(tbody);
  const labels = LABELS[name];
  const labelInputs = labels ? Array.from({ length: w.r1 - w.r0 }, (_, k) => w.r0 + k).map((i) => el("input", {
    id: fieldId(`${labels.key}[${i}]`), class: "label-input", type: "text", autocomplete: "off",
    spellcheck: "false", "aria-label": labels.name(i), [labels.data]: i,
  })) : [];
  const side = labels ? el("div", { class: "row-labels input-labels" }, ...labelInputs) : null;
  builtCells.set(figure, { cells, labelInputs });
  // The space an off-screen matrix keeps until it is drawn (see app.css): about a row of
  // inputs each, plus its caption; once drawn, the browser remembers its real size.
  figure.style.containIntrinsicSize = `auto ${Math.round(16 * 5 + 2.2 * 16 * space)}px`;
  drawn.delete(figure);  // new inputs are empty: every row is written
  figure.replaceChildren(
    el("figcaption", {}, el("span", { class: "name" }, ...symbols(symbol)),
      el("span", { class: "formula" })),
    el("div", { class: "scroll" }, el("div", { class: "grid-wrap" }, side, el("div", { class: "brackets" }, table))),
    el("div", { class: "shape" }),
    el("div", { class: "pager" }, pagerAxis(name, "rows"), pagerAxis(name, "cols")),
  );
}

/** One axis of a large matrix's pager: "Rows 17–32 of 40", Previous and Next. */
function pagerAxis(name, axis) {
  const of = `${axis === "rows" ? "rows" : "columns"} of ${cellPrefix(name)}`;
  return el("p", { class: "pager-axis", "data-axis": axis, hidden: true },
    el("span", { class: "pager-text" }),
    el("button", { type: "button", class: "turn", "data-turn": axis, "data-step": -1, "aria-label": `Previous ${of}` }, "Previous"),
    el("button", { type: "button", class: "turn", "data-turn": axis, "data-step": 1, "aria-label": `Next ${of}` }, "Next"));
}

function drawPager(figure, w, rows, cols) {
  for (const [axis, start, end, total] of [["rows", w.r0, w.r1, rows], ["cols", w.c0, w.c1, cols]]) {
    const p = figure.querySelector(`.pager-axis[data-axis="${axis}"]`);
    p.hidden = total <= SHOWN;
    p.querySelector(".pager-text").textContent = pageText(axis, start, end, total);
    const [previous, next] = p.querySelectorAll("button");
    previous.disabled = start === 0;
    next.disabled = end >= total;
  }
}

/** The list of messages under the inputs, one per invalid field, each with the id
 *  its input's aria-describedby points at. */
export function renderInputErrors(host, errors) {
  if (!errors.size && !host.childElementCount) return;  // the usual case: nothing to redraw
  host.replaceChildren(...[...errors].map(([field, message]) => el("p", {
    class: "field-error", id: "err-" + fieldId(field),
    text: `${fieldName(field) ?? field}: ${message}`,
  })));
}
