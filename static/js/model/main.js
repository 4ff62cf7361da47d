// The "Real model" view (templates/model.html), on the editor's one path: an event makes a
// new state (model/state.js) and hands it to update(), which writes the URL's fragment
// (history.js: a history entry a change, which Back undoes), asks for what the kept answers
// lack (model/request.js) and draws (model/view.js). An answer is kept beside the state and
// drawn; it never writes back into the state.

import { createApi } from "../lib/api.js";
import { urls } from "../lib/config.js";
import { backToHeatmap, showWorking } from "../lib/dom.js";
import { cellAt, moveFocus } from "../draw/heatmap.js";
import { createHistory } from "../lib/history.js";
import { cellOf, gridMove } from "./grid.js";
import { decodeAnswer, keptFor, merged, nothingKept, requestFor, runKey } from "./request.js";
import { appended, fragmentOf, modelOf, parseFragment, rowOf, sameHead, withModel } from "./state.js";
import { drawModel, drawView } from "./view.js";
import { katexReady } from "../draw/tex.js";
import { wireSlide } from "./slides.js";
import { mountModelGenerate } from "./generate.js";
import { modelTrace } from "./tiles.js";
import { mountTiles, tileNote } from "../draw/tiles.js";
import { outlineTile } from "../draw/heatmaptile.js";

const $ = (id) => document.getElementById(id);
const { models } = JSON.parse($("models-data").textContent);

// A forward pass takes ~0.2 s: a pause this long in typing is taken as the end of a word.
const TYPING_MS = 350;

let state = parseFragment(location.hash, models);  // set by update() and restore() alone
let kept = nothingKept();  // the answers' parts, never written back into the state
const focus = { grid: { layer: state.layer, head: state.head }, map: { i: 0, j: 0 } };
let expanded = false;  // every term of the dot products
let opened = false;  // the working's folded steps, what the model adds to the chapter's
// KaTeX's build, loaded at once: the working is on the first screen, and is drawn once its
// maths can be typeset in the same frame (lines laid out untypeset first, then typeset,
// moved everything under them).
let maths = false;
katexReady().catch(() => {}).finally(() => {
  maths = true;
  draw();
});
let lost = false;

const info = () => modelOf(models, state.model);
const api = createApi({ url: urls.model_attention, decode: decodeAnswer, onConnection: (up) => {
  lost = !up;
  status(up ? "" : "The server cannot be reached just now; trying again on its own…");
} });
// The fragment is a few hundred characters: written in the change's own event.
const history = createHistory(() => state, { encode: (s) => `#${fragmentOf(s)}`, immediate: () => true });

function status(text) {
  $("status").textContent = text;
}

/** The token count of the state's text, once its run has come (else null). */
const tokenCount = () => (kept.run === runKey(state) ? kept.n : null);

function draw() {
  drawView({ state, n: tokenCount(), shown: kept.shown, info: info(), answer: kept.answer, focus, expanded, opened, maths, urls });
  drawTile();
}

let tileShown = null;  // the tile "Step through the tiles" is at, outlined in the heatmap; or null

/** Outline that tile while the heatmap shows the head and row it was traced for, and say
 *  under the heatmap what the box is. */
function drawTile() {
  const host = $("heatmap");
  const fits = tileShown !== null && host.dataset.mode !== undefined && sameHead(kept.shown ?? {}, state);
  outlineTile(host, fits ? tileShown : null);
  const shown = Boolean(host.querySelector(".tile-outline"));
  $("tile-note").hidden = !shown;
  $("tile-note").textContent = shown ? tileNote(tileShown) : "";
}

function textError(message) {
  const box = $("text-error");
  box.textContent = message ?? "";
  box.hidden = !message;
  $("text").setAttribute("aria-invalid", String(Boolean(message)));
}

// ---- the one path of every change ----

/** The state is ``next``: its URL is written (``history`` "push", an entry of its own,
 *  joined by the next changes of the same ``field``, or "replace"), then what it needs is
 *  asked for and drawn. */
function update(next, { history: kind = "push", field = null } = {}) {
  state = next;
  history.edited({ history: kind, field });
  refresh();
  generate.changed();
}

/** Back or Forward: the state of that entry, whose URL is already written. */
function restore(hash) {
  clearTimeout(typing);  // what was being typed gives way to the entry returned to
  state = parseFragment(hash, models);
  focus.grid = { layer: state.layer, head: state.head };
  showControls();
  refresh();
  generate.changed();
}

/** Ask for whatever the state needs and the kept answers lack; draw what comes. */
async function refresh() {
  kept = keptFor(kept, state);
  const request = requestFor(state, kept, info().kind === "decoder");
  const answer = request && api.compute(request);  // first, so it travels while the page draws
  draw();
  // Busy while the numbers on screen are not yet the state's (the browser tests wait on it).
  $("page").setAttribute("aria-busy", String(Boolean(request)));
  if (!request) {
    tiles.changed();  // the row it follows is known once the text's run has come
    return;
  }
  const slow = setTimeout(() => { if (!lost) status("Reading the model…"); }, 300);
  const result = await answer;
  clearTimeout(slow);
  if (result === null) return;  // a newer request has it
  const { status: code, body } = result;
  if (code !== 200) {
    const { message, field } = body.error ?? { message: `The server answered ${code}.` };
    if (field === "text") textError(message);
    else status(message);
    if (!lost && field === "text") status("");
    $("page").setAttribute("aria-busy", "false");
    return;
  }
  status("");
  textError(null);
  const fresh = kept.run !== runKey(request);
  kept = merged(kept, request, body);
  const n = body.tokens.length;
  // A new text's focus starts on the row shown; otherwise it stays, within the text.
  focus.map = fresh ? { i: rowOf(state, n), j: 0 }
    : { i: Math.min(focus.map.i, n - 1), j: Math.min(focus.map.j, n - 1) };
  refresh();
}

// ---- the controls ----

function showControls() {
  $("model").value = state.model;
  if ($("text").value !== state.text) $("text").value = state.text;
  $("causal").checked = state.causal;
  drawModel(info());
}

$("model").addEventListener("change", () => {
  const next = withModel(state, models, $("model").value);
  focus.grid = { layer: next.layer, head: next.head };
  update(next);
  showControls();  // the model's own mask and sizes
});

let typing = null;
$("text").addEventListener("input", () => {
  clearTimeout(typing);
  typing = setTimeout(() => {
    const text = $("text").value;
    if (text === state.text) return;
    update({ ...state, text, row: null }, { field: "text" });  // one entry while typing goes on
  }, TYPING_MS);
});

$("causal").addEventListener("change", () => update({ ...state, causal: $("causal").checked }));

$("next-tokens").addEventListener("click", (e) => {
  const refused = e.target.closest("button[data-reason]");
  if (refused) {
    status(`“${refused.querySelector(".token").textContent}” cannot be appended: ${refused.dataset.reason}.`);
    return;
  }
  const button = e.target.closest("button[data-text]");
  if (!button) return;
  clearTimeout(typing);
  const text = appended(state.text, button.dataset.text);
  $("text").value = text;
  update({ ...state, text, row: null });
});

for (const [id, what] of [["heatmap-slide", "heatmap"], ["working-slide", "working"]]) {
  wireSlide($(id), what, urls.model_slide, () => ({ state, n: tokenCount() }), status);
}

$("dot-terms").addEventListener("click", () => {
  expanded = !expanded;
  draw();
});

// Opened or closed, the folded steps stay so for the next row and head ("toggle" does not
// bubble: it is heard on its way down).
$("working").addEventListener("toggle", (e) => {
  if (!e.target.matches?.("details.beyond") || e.target.open === opened) return;
  opened = e.target.open;
  draw();
}, true);

// ---- the grid of heads ----

function openHead(layer, head) {
  focus.grid = { layer, head };
  if (layer !== state.layer || head !== state.head) update({ ...state, layer, head });
}

$("grid").addEventListener("click", (e) => {
  const cell = e.target.closest("[data-layer]");
  if (cell) openHead(Number(cell.dataset.layer), Number(cell.dataset.head));
});

$("grid").addEventListener("keydown", (e) => {
  const cell = e.target.closest("[data-layer]");
  if (!cell) return;
  if (e.key === "Enter" || e.key === " ") {
    e.preventDefault();
    openHead(Number(cell.dataset.layer), Number(cell.dataset.head));
    return;
  }
  const to = gridMove(focus.grid, e.key, info().layers, info().heads, e.ctrlKey || e.metaKey);
  if (!to) return;
  e.preventDefault();
  focus.grid = to;
  draw();
  cellOf($("grid"), to)?.focus();
});

// ---- the head's heatmap ----

/** A row chosen joins its head's history entry, as in the editor. */
function selectRow(i) {
  if (i !== state.row) update({ ...state, row: i }, { history: "replace" });
}

$("heatmap").addEventListener("click", (e) => {
  const target = e.target.closest("[data-i]");
  if (!target) return;
  const i = Number(target.dataset.i);
  focus.map = { i, j: Number(target.dataset.j ?? focus.map.j) };
  selectRow(i);
  showWorking($("working-block"));  // as the editor does
});

$("back-to-heatmap").addEventListener("click", () => backToHeatmap($("head-block"), cellAt($("heatmap"), focus.map)));

$("heatmap").addEventListener("keydown", (e) => {
  if (!e.target.closest('[role="gridcell"]') || !kept.answer.tokens) return;
  const n = kept.answer.tokens.length;
  if (e.key === "Enter" || e.key === " ") {
    e.preventDefault();
    selectRow(focus.map.i);
    return;
  }
  const to = moveFocus(focus.map, e.key, n, e.ctrlKey || e.metaKey, n);
  if (!to) return;
  e.preventDefault();
  focus.map = to;
  if (to.i !== rowOf(state, n)) selectRow(to.i);
  else draw();
  cellAt($("heatmap"), to)?.focus();
});

// The skip links move the focus and leave the fragment, which holds the view, alone.
document.querySelector('.skip-links a[href="#grid-start"]').addEventListener("click", (e) => {
  e.preventDefault();
  cellOf($("grid"), focus.grid)?.focus();
});
document.querySelector('.skip-links a[href="#working-block"]').addEventListener("click", (e) => {
  e.preventDefault();
  $("working-block").focus();
});

const generate = mountModelGenerate($("generate-panel"), { get: () => ({ state, info: info() }) });
/** The row's z as the kept answer has it, while that answer is the state's head's and row's. */
function shownZ() {
  const n = tokenCount();
  const { working } = kept.answer;
  return n !== null && kept.shown && sameHead(kept.shown, state) && working?.row === rowOf(state, n) ? working.z : null;
}

const tiles = mountTiles($("tiles-panel"), { trace: modelTrace(() => ({ state, n: tokenCount() })), z: shownZ,
  show: (tile) => { tileShown = tile; drawTile(); } });

history.listen(restore);
history.edited({ history: "replace" });  // the URL in its normal form, in the entry opened
showControls();
refresh();
