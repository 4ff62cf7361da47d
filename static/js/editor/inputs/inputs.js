// Draw the editable inputs: token labels, X, W_Q, W_K, W_V (each with its bias row under it
// when biases are on), and the messages of invalid cells.
// Inputs are rebuilt only when a shape or the page of a large matrix changes; otherwise
// only values and marks are updated, so typing, focus and the caret are never disturbed.
// A matrix beyond SHOWN rows or columns shows one page of SHOWN × SHOWN inputs at a time,
// with buttons to turn it (pages.js); every input keeps its real row and column.

import { el, keyed, symbols } from "../../lib/dom.js";
import { compactOf } from "../modelhead/source.js";
import { SHOWN } from "../../draw/matrix.js";
import { pageText, windowOf } from "./pages.js";
import { grouped, matricesOf } from "../state.js";
import { roleLine } from "./roles.js";
import { cellPrefix, fieldId, fieldName, sharedKv, split } from "./fieldnames.js";

const CAPTIONS = {
  X: ["X", "token embeddings", "n × d_model"],
  W_Q: ["W_Q", "query weights", "d_model × d_k"],
  W_K: ["W_K", "key weights", "d_model × d_k"],
  W_V: ["W_V", "value weights", "d_model × d_v"],
  W_O: ["W_O", "output weights: Z = Concat(Z_1, …, Z_h)·W_O", "h·d_v × d_model"],
  X_kv: ["X_kv", "the sequence keys and values come from", "m × d_model"],
};

/** Whether the browser may leave a matrix's inputs undrawn while they are off screen
 *  (app.css): those of the other heads and W_O, below the first screen, and any page of
 *  more than SKIPPABLE_CELLS inputs. Not the default example's few: content-visibility
 *  draws a block only in the frame after its first layout, and making up for that
 *  (reveal.js) cost a phone's first load a forced layout. */
const SKIPPABLE_CELLS = 64;
const isSkippable = (name, cells) => split(name).head !== null || name === "W_O" || cells > SKIPPABLE_CELLS;

// The labels beside a matrix's rows: X has the query tokens', X_kv the key tokens'.
const LABELS = {
  X: { key: "tokens", name: (i) => `Token ${i + 1} label`, data: "data-label" },
  X_kv: { key: "tokens_kv", name: (i) => `Key token ${i + 1} label`, data: "data-label-kv" },
};

/** The bias row drawn under a matrix: b_Q under W_Q, b_K_2 under W_K_2; null without biases. */
const biasOf = (state, name) => (state.biases && /^W_[QKV]/.test(name) ? name.replace(/^W/, "b") : null);

/** Draw the inputs of ``state`` in ``host``, marking the fields of ``errors``.
 *  ``pages``: a Map from a matrix's name to the page of it shown ({row, col}, see pages.js;
 *  none: its first).
 *  ``later``: names of matrices whose inputs, when not built yet, may wait for a later
 *  call (the page builds those of other heads and W_O after its first paint); their
 *  figure already has its caption and takes its place. Returns whether any waits. */
export function renderInputs(host, state, errors, { later = null, pages = null } = {}) {
  const names = matricesOf(state);
  const kv = grouped(state);
  let waiting = false;
  for (const figure of host.querySelectorAll(":scope > [data-key]")) {
    if (!names.includes(figure.dataset.key)) figure.remove();  // a removed head, X_kv off
  }
  for (const name of names) {
    const figure = keyed(host, name, () => el("figure", { class: "matrix editable" }));
    const m = state[name];
    const bias = biasOf(state, name);
    const w = windowOf(pages?.get(name), m.length, m[0].length, SHOWN);
    const rows = w.r1 - w.r0;
    figure.classList.toggle("skippable", isSkippable(name, rows * (w.c1 - w.c0)));
    // Its names change with the sharing of key/value heads, and a bias row comes and goes.
    const size = `${rows}×${w.c1 - w.c0} at ${w.r0},${w.c0}${sharedKv(name, kv) ? ", shared" : ""}${bias ? ", biased" : ""}`;
    const wait = figure.dataset.size !== size && Boolean(later?.has(name));
    const want = wait ? "later" : size;
    if (figure.dataset.size !== want) {
      build(figure, { name, bias, kv }, wait ? { ...w, r1: w.r0 } : w, rows);
      figure.dataset.size = want;
    }
    const paged = `${want} of ${m.length}×${m[0].length}`;
    if (figure.dataset.paged !== paged) {
      figure.dataset.paged = paged;
      drawPager(figure, w, m.length, m[0].length);
    }
    waiting ||= wait;
    drawCaption(figure, name, state);
    if (!wait) drawCells(figure, { name, bias, m, state, w }, errors);  // else no inputs yet to write into
  }
  return waiting;
}

/** "shared by heads 3 and 4", "shared by heads 1–4": the query heads of key/value head g. */
function sharedBy(g, state) {
  const per = state.heads / state.kvHeads;
  const [first, last] = [(g - 1) * per + 1, g * per];
  return `shared by heads ${first}${per === 2 ? " and " : "–"}${last}`;
}

/** A matrix's caption (its words name its head, or the key/value head and the query heads
 *  sharing it) and its shape, written only when they change: this runs on every keystroke. */
function drawCaption(figure, name, state) {
  const { base, head } = split(name);
  const own = state.heads > 1 && base.startsWith("W_") && base !== "W_O";
  const which = !own ? "" : sharedKv(name, grouped(state))
    ? `, key/value head ${head ?? 1}, ${sharedBy(head ?? 1, state)}` : `, head ${head ?? 1}`;
  const words = ` ${CAPTIONS[base][1]}${which}`;
  if (figure.dataset.words !== words) {
    figure.dataset.words = words;
    figure.querySelector(".formula").replaceChildren(...symbols(words));
  }
  const m = state[name];
  const [, , dims] = CAPTIONS[base];
  const [a, b] = dims.split(" × ");
  const bias = biasOf(state, name);
  const shape = `${m.length} × ${m[0].length}  (${a} × ${b})${bias ? `, ${split(bias).base} 1 × ${m[0].length}` : ""}`;
  if (figure.dataset.shape !== shape) {
    figure.dataset.shape = shape;
    figure.querySelector(".shape").replaceChildren(...symbols(shape));
  }
}

/** Write the texts and marks into a figure's inputs: the window ``w`` of matrix ``name``
 *  (``m``) and of its bias row, when it has one. */
function drawCells(figure, { name, bias, m, state, w }, errors) {
  // A keystroke makes a new array for the row it changed and keeps every other (see
  // state.js): with no error on the page now or at the last drawing, a row that is the
  // same array is the same text, and is skipped. At 256 tokens with 4 heads this spares
  // ~3,000 inputs per keystroke.
  const { cells, labelInputs, biasCells } = builtCells.get(figure);
  const labels = LABELS[name] ? state[LABELS[name].key] : null;
  const biasRow = bias ? state[bias][0] : null;
  const last = drawn.get(figure);
  const clean = errors.size === 0 && last !== undefined && !last.errors;
  for (let i = w.r0; i < w.r1; i++) {
    if (clean && last.m[i] === m[i] && (!labels || last.labels[i] === labels[i])) continue;
    for (let j = w.c0; j < w.c1; j++) {
      const field = `${name}[${i}][${j}]`;
      const input = cells[i - w.r0][j - w.c0];
      sync(input, m[i][j], errors.get(field), field);
      if (state.source || input.parentElement.dataset.compact !== undefined) showCompact(input, compactOf(state, name, i, j, m[i][j]));
    }
    if (labels) {
      const field = `${LABELS[name].key}[${i}]`;
      sync(labelInputs[i - w.r0], labels[i], errors.get(field), field);
    }
  }
  if (biasRow && !(clean && last.biasRow === biasRow)) {
    for (let j = w.c0; j < w.c1; j++) {
      const field = `${bias}[0][${j}]`;
      const input = biasCells[j - w.c0];
      sync(input, biasRow[j], errors.get(field), field);
      if (state.source || input.parentElement.dataset.compact !== undefined) showCompact(input, compactOf(state, bias, 0, j, biasRow[j]));
    }
  }
  if (labels && !(clean && last.labels === labels)) fitLabels(figure, labelInputs);
  drawn.set(figure, { m, labels, biasRow, errors: errors.size > 0 });
}

/** Each label's length in characters, and the longest, for app.css: the labels' column
 *  as wide as its longest label (a real model's "␣teacher" whole), up to a cap, and a
 *  label longer still whole while it is focused or under the pointer. */
function fitLabels(figure, inputs) {
  let longest = 0;
  for (const input of inputs) {
    const chars = [...input.value].length;
    if (input.style.getPropertyValue("--chars") !== String(chars)) input.style.setProperty("--chars", String(chars));
    longest = Math.max(longest, chars);
  }
  if (figure.style.getPropertyValue("--label-chars") !== String(longest)) figure.style.setProperty("--label-chars", String(longest));
}

const builtCells = new WeakMap();  // figure → {cells: inputs by [i][j], labelInputs by [i], biasCells by [j]}
const drawn = new WeakMap();  // figure → {m, labels, biasRow, errors}: what its inputs last showed

function sync(input, text, error, field) {
  if (input.value !== text) input.value = text;
  const invalid = error !== undefined;
  if (invalid !== (input.getAttribute("aria-invalid") === "true")) {
    input.setAttribute("aria-invalid", String(invalid));
    if (invalid) input.setAttribute("aria-describedby", "err-" + fieldId(field));
    else input.removeAttribute("aria-describedby");
  }
}

/** A real model's number (source.js compactOf) shown with 3 decimals, as derived values
 *  are, over its input while it is not focused (app.css): the input itself holds the whole
 *  text, which focus shows and a screen reader reads; ``short`` null: the input as typed. */
function showCompact(input, short) {
  const td = input.parentElement;
  if ((td.dataset.compact ?? null) === short) return;
  if (short === null) {
    delete td.dataset.compact;
    td.querySelector(".compact")?.remove();
    return;
  }
  td.dataset.compact = short;
  const shown = td.querySelector(".compact") ?? td.appendChild(el("span", { class: "compact", "aria-hidden": "true" }));
  shown.textContent = short;
}

/** One input of a matrix or a bias row: ``field`` names it, ``label`` is its accessible name. */
const cellInput = (field, label, data) => el("input", {
  id: fieldId(field), type: "text", inputmode: "decimal", autocomplete: "off", spellcheck: "false",
  "aria-label": label, ...data,
});

/** The figure of matrix ``name`` (with bias row ``bias``, or null; ``kv``: key/value heads
 *  are shared) with the inputs of window ``w`` ({r0, r1, c0, c1}; r1 = r0: none yet) and the
 *  place of ``space`` rows kept for it while it is off screen. */
function build(figure, { name, bias, kv }, w, space) {
  const [symbol] = CAPTIONS[split(name).base];
  // The caption's words, the shape and the pager are written again after a rebuild.
  for (const key of ["words", "shape", "paged"]) delete figure.dataset[key];
  const tbody = el("tbody");
  const cells = [];
  for (let i = w.r0; i < w.r1; i++) {
    const tr = el("tr");
    cells.push([]);
    for (let j = w.c0; j < w.c1; j++) {
      const input = cellInput(`${name}[${i}][${j}]`, `${cellPrefix(name, kv)} row ${i + 1} column ${j + 1}`,
        { "data-matrix": name, "data-i": i, "data-j": j });
      cells[i - w.r0].push(input);
      tr.append(el("td", {}, input));
    }
    tbody.append(tr);
  }
  const labels = LABELS[name];
  const labelInputs = labels ? Array.from({ length: w.r1 - w.r0 }, (_, k) => w.r0 + k).map((i) => el("input", {
    id: fieldId(`${labels.key}[${i}]`), class: "label-input", type: "text", autocomplete: "off",
    spellcheck: "false", "aria-label": labels.name(i), [labels.data]: i,
  })) : [];
  const side = labels ? el("div", { class: "row-labels input-labels" }, ...labelInputs) : null;
  // The bias row: one input a column, under the matrix's columns, added to every row.
  const biasCells = bias && w.r1 > w.r0 ? Array.from({ length: w.c1 - w.c0 }, (_, k) => cellInput(
    `${bias}[0][${w.c0 + k}]`, `${cellPrefix(bias, kv)} column ${w.c0 + k + 1}`,
    { "data-matrix": bias, "data-i": 0, "data-j": w.c0 + k })) : [];
  builtCells.set(figure, { cells, labelInputs, biasCells });
  // What its inputs' width is made from (app.css): its columns, its labels, its bias row.
  figure.style.setProperty("--cols", String(w.c1 - w.c0));
  figure.classList.toggle("labelled", Boolean(labels));
  figure.classList.toggle("biased", biasCells.length > 0);
  // The space an off-screen matrix keeps until it is drawn (see app.css): about a row of
  // inputs each, plus its caption; once drawn, the browser remembers its real size.
  figure.style.containIntrinsicSize = `auto ${Math.round(16 * 5 + 2.2 * 16 * (space + (bias ? 1.4 : 0)))}px`;
  drawn.delete(figure);  // new inputs are empty: every row is written
  const role = roleLine(split(name).base);
  figure.replaceChildren(
    el("figcaption", {}, el("span", { class: "name" }, ...symbols(symbol)),
      el("span", { class: "formula" })),
    ...(role ? [el("p", { class: "role", text: role })] : []),
    el("div", { class: "scroll" },
      el("div", { class: "grid-wrap" }, side, el("div", { class: "brackets" }, el("table", { class: "cells" }, tbody))),
      biasCells.length ? biasLine(bias, biasCells) : null),
    el("div", { class: "shape" }),
    el("div", { class: "pager" }, pagerAxis(name, "rows", kv), pagerAxis(name, "cols", kv)),
  );
}

/** "[ … ] b_Q": a bias row under its matrix, its columns under the matrix's. */
function biasLine(bias, inputs) {
  return el("div", { class: "grid-wrap bias-row" },
    el("div", { class: "brackets" }, el("table", { class: "cells" }, el("tbody", {},
      el("tr", {}, ...inputs.map((input) => el("td", {}, input)))))),
    el("span", { class: "bias-name", "aria-hidden": "true" }, ...symbols(split(bias).base)));
}

/** One axis of a large matrix's pager: "Rows 17–32 of 40", Previous and Next. */
function pagerAxis(name, axis, kv) {
  const of = `${axis === "rows" ? "rows" : "columns"} of ${cellPrefix(name, kv)}`;
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
 *  its input's aria-describedby points at; ``kv``: key/value heads are shared (their
 *  inputs' names say so). */
export function renderInputErrors(host, errors, kv = false) {
  if (!errors.size && !host.childElementCount) return;  // the usual case: nothing to redraw
  host.replaceChildren(...[...errors].map(([field, message]) => el("p", {
    class: "field-error", id: "err-" + fieldId(field),
    text: `${fieldName(field, kv) ?? field}: ${message}`,
  })));
}
