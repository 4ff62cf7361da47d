// "Step through the tiles", on the editor and the real-model view: the selected row computed
// as FlashAttention computes it, key block by key block, with the online softmax's running
// maximum m, sum ℓ and output O written out with their numbers, and the tile outlined in the
// heatmap (draw/heatmaptile.js, through the page's ``show``). "Next tile" and "Previous tile"
// (or → and ← inside the panel) move through the tiles, then to z = O/ℓ. The page asks for
// the trace (editor/running/tiles.js, model/tiles.js: POST /api/tiles, /api/model/tiles); as
// "Generate step by step", only once started, and again after an edit while open.

import { el } from "../lib/dom.js";
import { formatNumber, texNumber, vectorText } from "../lib/format.js";
import { morph } from "../lib/morph.js";
import { count as counted } from "../lib/words.js";
import { createStepper } from "../lib/stepper.js";
import { math, prose, typeset, typesetWhenNear } from "./tex.js";

export const DEFAULT_BLOCK = 2;  // B_r = B_c = 2: a few tiles in every preset, each small enough to read

const INF = "−∞";  // null in the API
const num = (x) => (x === null ? INF : formatNumber(x));
const vector = vectorText;  // a real model's 64 numbers written short
// The panel's lines are prose with their maths as $TeX$ (tex.js's prose), typeset by KaTeX
// as the working's; a vector stays words, since a real model's is written short in words.
const RESCALE = "\\mathrm{rescale} = e^{m_\\mathrm{before} - m_\\mathrm{after}}";
const tex = (x) => (x === null ? "-\\infty" : texNumber(x));
/** Keys or queries [start, stop) in the page's 1-based words: "3", "3–4". */
export const span = ([a, b]) => (b - a === 1 ? `${a + 1}` : `${a + 1}–${b}`);
/** "key 3", "keys 3–4". */
export const keysText = (keys) => `${keys[1] - keys[0] === 1 ? "key" : "keys"} ${span(keys)}`;

/** The line under the heatmap while a tile is outlined in it ({rows, keys, skipped}). Pure. */
export function tileNote({ rows, keys, skipped }) {
  const queries = `${rows[1] - rows[0] === 1 ? "query" : "queries"} ${span(rows)}`;
  return `Boxed: the tile followed in “Step through the tiles” below, ${queries} with ${keysText(keys)}` +
    `${skipped ? " (dashed: skipped, nothing in it is computed)" : ""}.`;
}

/** What ``tile`` (one of POST /api/tiles' tiles) did to the running m, ℓ and O: {status,
 *  rescale}: the status line, in words, and the rescale's line, as prose with $TeX$. Pure. */
export function tileWords(tile, k, total) {
  const where = `Tile ${k + 1} of ${total}: ${keysText(tile.keys)}`;
  if (tile.skipped) return { status: `${where}, skipped: every score in it is masked, so it is never computed`, rescale: "" };
  if (tile.scores.every((s) => s === null)) {
    return { status: `${where}: this row may read none of its keys, so m, ℓ and O pass unchanged`,
      rescale: "$\\mathrm{rescale} = 1$: nothing was added" };
  }
  if (tile.m_before === null) {
    return { status: `${where}: the row's first keys; m starts at ${num(tile.m_after)}`,
      rescale: `$${RESCALE} = e^{-\\infty} = 0$: $\\ell$ and $O$ were still empty` };
  }
  if (tile.m_after === tile.m_before) {
    return { status: `${where}: the maximum stays ${num(tile.m_after)}, nothing is rescaled`,
      rescale: `$${RESCALE} = e^{${tex(tile.m_before)} - ${tex(tile.m_after)}} = 1$: the maximum did not grow` };
  }
  return { status: `${where}: the maximum grew from ${num(tile.m_before)} to ${num(tile.m_after)}, so ℓ and O are multiplied by ${formatNumber(tile.rescale)}`,
    rescale: `$${RESCALE} = e^{${tex(tile.m_before)} - ${tex(tile.m_after)}} = ${tex(tile.rescale)}$` };
}

/** The memory line: one tile's scores at a time, against the whole matrix's. Pure. */
export const heldText = ({ held, whole }) => `Held at once: one tile's scores, at most ${held}, never all ${whole} of the whole matrix.`;

/** The last step, after every tile: the status line (words), what z and the log-sum-exp
 *  are (prose with $TeX$), and the memory. ``whole`` is the row's z from the page's own
 *  (whole-matrix) answer, or null. Pure. */
export function finalWords(answer, whole) {
  const last = answer.tiles.at(-1);
  const skipped = answer.tiles.filter((t) => t.skipped).length;
  const z = vector(answer.final.z);
  // "The same" when every number agrees as written, all of them: a long z is shown short.
  const digits = (xs) => xs.map((x) => formatNumber(x)).join();
  const same = whole === null ? "" : digits(whole) === digits(answer.final.z)
    ? `; the whole computation's z, in the working above, is the same${answer.final.z.length > 8 ? ", every one of its numbers" : `: ${vector(whole)}`}`
    : `; the whole computation's z, in the working above, is ${vector(whole)}`;
  return {
    status: `After ${counted(answer.tiles.length, "tile")}${skipped ? ` (${skipped} skipped)` : ""}: z = O/ℓ = ${z}`,
    z: last.l_after === 0 ? `$z$ = ${z}: this row may read no key, so $\\ell = 0$ and $z$ is 0${same}.`
      : `$z = O / \\ell$ = ${vector(last.O_after)} / ${formatNumber(last.l_after)} = ${z}${same}.`,
    logsumexp: answer.final.logsumexp === null ? "log-sum-exp: $-\\infty$ (no key to read)."
      : `log-sum-exp $= m + \\ln \\ell = ${tex(last.m_after)} + \\ln ${tex(last.l_after)} = ${tex(answer.final.logsumexp)}$: the log of the softmax's denominator, which FlashAttention keeps for the backward pass.`,
    memory: heldText(answer.memory),
  };
}

/** The row's key blocks in a line: done, this one, skipped, still to come. */
function strip(answer, k) {
  return el("ol", { class: "tile-strip", "aria-label": "The row's key blocks" }, ...answer.tiles.map((t, c) => {
    const state = t.skipped ? "skipped" : c < k ? "done" : c === k ? "now" : "later";
    const words = { skipped: " (skipped)", done: " (done)", now: " (this tile)", later: "" }[state];
    return el("li", { class: `tile-${state}`, "aria-current": c === k ? "step" : null },
      keysText(t.keys), el("span", { class: "visually-hidden", text: words }));
  }));
}

/** The tile's scores: its keys across, s_j under each (−∞ where masked). */
function scoresTable(tile, tokens) {
  const keys = Array.from({ length: tile.keys[1] - tile.keys[0] }, (_, c) => tile.keys[0] + c);
  return el("table", { class: "tile-scores", "aria-label": `Scores of ${keysText(tile.keys)}` },
    el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "key j" }),
      ...keys.map((j) => el("th", { scope: "col", text: `${j + 1} ${tokens[j]}` })))),
    el("tbody", {}, el("tr", {}, el("th", { scope: "row" }, "score ", math("s_j")),  // words too: a header of maths alone has no text for axe
      ...tile.scores.map((s) => el("td", { class: s === null ? "tile-masked" : "", text: s === null ? INF : formatNumber(s) })))));
}

/** A line of the panel: prose, its maths as $TeX$. */
function line(text) {
  return el("p", { class: "tile-line" }, ...prose(text));
}

/** ``view``'s children become ``parts``, and their new maths is typeset. Through morph: a
 *  line whose TeX is the same as the last step's (m's, ℓ's and O's formulas) keeps its
 *  typeset nodes, so KaTeX typesets only what changed (bench_browser.py --steppers: typesetting
 *  every line anew doubled a step's median, 8 → 22 ms at 8 tokens). */
function paint(view, parts) {
  morph(view, parts);
  typeset(view);
}

/** Draw step ``k`` of ``answer`` into ``view``: tile k, or (k = the number of tiles) z.
 *  Returns the status line's words. */
function drawStep(view, answer, k, tokens, whole) {
  const total = answer.tiles.length;
  if (k === total) {
    const words = finalWords(answer, whole);
    paint(view, [strip(answer, k), line(words.z), line(words.logsumexp),
      el("p", { class: "tile-memory", text: words.memory })]);
    return words.status;
  }
  const t = answer.tiles[k];
  const words = tileWords(t, k, total);
  const parts = [strip(answer, k)];
  if (t.skipped) {
    parts.push(line(`Every score of ${answer.rows[1] - answer.rows[0] === 1 ? "query" : "queries"} ${span(answer.rows)} with ${keysText(t.keys)} is masked: the tile is skipped, and $m = ${tex(t.m_after)}$, $\\ell = ${tex(t.l_after)}$ and $O$ = ${vector(t.O_after)} pass it unchanged.`));
  } else {
    parts.push(scoresTable(t, tokens),
      line(`$m = \\max(m, s_j)$: ${num(t.m_before)} → ${num(t.m_after)}`),
      line(words.rescale),
      line(`$\\ell = \\ell \\cdot \\mathrm{rescale} + \\sum_j e^{s_j - m}$: ${formatNumber(t.l_before)} → ${formatNumber(t.l_after)}`),
      line(`$O = O \\cdot \\mathrm{rescale} + \\sum_j e^{s_j - m}\\, v_j$: ${vector(t.O_before)} → ${vector(t.O_after)}`));
  }
  parts.push(el("p", { class: "tile-memory", text: heldText(answer.memory) }));
  paint(view, parts);
  return words.status;
}

/** A block size as typed: a number when it is one, else the text (the server's 422 names it). */
const typed = (text) => (/^\s*\d+\s*$/.test(text) ? Number(text) : text.trim());

const B = (sub) => el("span", {}, "B", el("sub", { text: sub }));  // B_r, B_c as the paper writes them

/** The panel's parts, appended to ``host``. */
function buildPanel(host) {
  const input = (id, text, sub) => [el("label", { for: id }, text, B(sub)),
    el("input", { id, class: "short-input", type: "text", inputmode: "numeric", autocomplete: "off",
      spellcheck: "false", size: 3, value: String(DEFAULT_BLOCK), "aria-describedby": "tiles-error" })];
  const [rowsLabel, rowsInput] = input("block-q", "Query rows a tile, ", "r");
  const [keysLabel, keysInput] = input("block-k", "Key columns a tile, ", "c");
  const parts = { rowsInput, keysInput,
    error: el("p", { class: "field-error", id: "tiles-error", hidden: true }),
    previous: el("button", { type: "button", text: "Previous tile", disabled: true }),
    next: el("button", { type: "button", text: "Next tile" }),
    // A live region of its own, as "Generate step by step"'s: the page's status line stays the page's.
    status: el("p", { class: "gen-status", "aria-live": "polite" }),
    view: el("div", { class: "tile-view" }) };
  const note = el("p", { class: "gen-note" }, ...prose("FlashAttention never holds the whole matrix of scores. It cuts " +
    "the queries into blocks of $B_r$ rows and the keys into blocks of $B_c$, and keeps for each query only a running " +
    "maximum $m$, a running sum $\\ell$ and a running output $O$; when a tile raises the maximum, what was summed is " +
    "multiplied by $e^{m_\\mathrm{before} - m_\\mathrm{after}}$. Follow the selected row through its tiles."));
  host.append(note,
  el("div", { class: "tile-controls" }, el("span", { class: "control" }, rowsLabel, rowsInput),
    el("span", { class: "control" }, keysLabel, keysInput), parts.previous, parts.next),
  parts.error, parts.status, parts.view);
  typesetWhenNear(note, 8);  // KaTeX loads only as the panel nears the screen
  return parts;
}

/** Build the panel in ``host``. ``page.trace(blocks)`` resolves to the row's pass through
 *  tiles of ``blocks`` ({block_q, block_k}, as typed: the server names a bad one), POST
 *  /api/tiles' or /api/model/tiles' answer with the head and the keys' tokens, or rejects
 *  with an Error saying why there is none (``field``: the block size to blame); ``page.z()``
 *  is the row's z as the page's answer has it, or null; ``page.show(tile)`` outlines a tile
 *  ({head, rows, keys, skipped}) in the heatmap, or none (null). Returns {changed}: the page
 *  calls it after every redraw. */
export function mountTiles(host, page) {
  const { rowsInput, keysInput, error, previous, next, status, view } = buildPanel(host);

  function mark(err) {
    const field = { block_q: rowsInput, block_k: keysInput }[err?.field];
    for (const box of [rowsInput, keysInput]) box.setAttribute("aria-invalid", String(box === field));
    [error.hidden, error.textContent] = [!field, field ? err.message : ""];
    return Boolean(field);
  }

  const load = () => page.trace({ block_q: typed(rowsInput.value), block_k: typed(keysInput.value) });
  const stepper = createStepper({ host, previous, next, load,
    count: (answer) => answer.tiles.length + 1,  // the tiles, then z
    draw: (answer, k) => {
      mark(null);
      status.textContent = drawStep(view, answer, k, answer.tokens, page.z());
      const tile = answer.tiles[k];
      page.show(tile ? { head: answer.head, rows: answer.rows, keys: tile.keys, skipped: tile.skipped } : null);
    },
    fail: (err) => {
      status.textContent = mark(err) ? "" : err.message;
      view.replaceChildren();
      page.show(null);
    } });
  for (const box of [rowsInput, keysInput]) {
    box.addEventListener("input", () => { if (stepper.started() || box.getAttribute("aria-invalid") === "true") stepper.go(0); });
  }
  // After an edit, a started trace follows the view (its step kept where it can be).
  return { changed: () => { if (stepper.started()) stepper.go(0); } };
}
