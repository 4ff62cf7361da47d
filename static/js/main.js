// The wiring: every event makes a new state and hands it to update(), which sends its
// request first (so it travels while the page works), writes the URL (history.js) and
// redraws the inputs; the answer, when it comes, draws the results. The only module that
// knows about state, fetching and drawing at once.

import { createApi, postOnce } from "./api.js";
import { createBusy } from "./busy.js";
import { drawControls, wireControls } from "./controls.js";
import { setProp } from "./dom.js";
import { mountExport } from "./exportpanel.js";
import { mountLab } from "./lab.js";
import { cellAt, moveFocus, renderLegend, showCell, TABLE_MAX } from "./heatmap.js";
import { fieldName, renderInputErrors, renderInputs } from "./inputs.js";
import { createHistory, settledWithin } from "./history.js";
import { afterPaint, coalesced } from "./later.js";
import { renderLink } from "./link.js";
import { SHOWN } from "./matrix.js";
import { turned } from "./pages.js";
import { cellFromPoint, exactFields, readoutText } from "./readout.js";
import { drawAnswer, fieldsFor, shownHead } from "./results.js";
import { permutation, renderShuffle, shuffledRequest } from "./shuffle.js";
import * as S from "./state.js";
import { fromHash, toHash } from "./url.js";
import { renderWalk, STEPS, walkContext, walkPanel } from "./walk.js";

const $ = (id) => document.getElementById(id);
const STACKED = "(max-width: 1023px)";  // app.css: below this width the stage is one column
const presets = JSON.parse($("presets-data").textContent);

/** A preset as a state, with its last row selected so the working shows from the start. */
function presetState(preset, seed = 1) {
  const s = S.fromPreset(preset.request, seed);
  return { ...s, row: s.tokens.length - 1 };
}
const DEFAULT = presetState(presets[0]);

let state = DEFAULT;
const ui = {
  body: null,             // the last good answer of the API
  answered: null,         // the state whose inputs body answers
  serverErrors: new Map(),
  focus: { i: DEFAULT.row, j: 0 },
  statusTimer: 0,
  link: null,             // the weight {i, j} under the pointer or focus, for linked highlighting
  tapped: null,           // the weight last tapped, read out under a canvas map (touch has no hover)
  shuffles: 0,            // how many times "Shuffle tokens" was pressed; 0: the test is not shown
  walk: null,             // the step of the guided walk on screen, or null
  exportPanel: null,      // {changed()} of the export panel, told of every redraw
  offline: false,         // the server cannot be reached (api.js retries on its own)
  failure: null,          // the server's message for the newest request, when no input is to blame
  pages: new Map(),       // matrix name → the page of its inputs shown, {row, col} (pages.js)
};

const api = createApi({ onConnection: (up) => {
  ui.offline = !up;
  if (up) say("Connected again.", { clearAfter: 4000 });
  else {
    say("The server cannot be reached. Your edits are kept; retrying…", { warning: true });
    reveal();
  }
  markStale();
} });

// ---- the two entry points of every change ----

/** The state is ``next``: the request leaves, the URL is written, the inputs redrawn.
 *  ``history`` and ``field`` say which history entry the edit makes (history.js);
 *  ``urlNow`` writes the URL at once whatever the view's size (an import). */
function update(next, { history = "push", field = null, urlNow = false } = {}) {
  state = next;
  ui.serverErrors = new Map();
  ui.failure = null;
  const drawn = recompute();  // first, so the request travels while the inputs are redrawn
  urls.edited(drawn, { history, field, now: urlNow });
  drawInputs();
}
const urls = createHistory(() => state);
const busy = createBusy($("results"));  // aria-busy until the newest edit's answer is drawn

async function recompute() {
  const asked = state;
  const { request } = built(asked);
  busy.start();
  if (!request) {
    reveal();  // nothing to wait for: the marked inputs are what there is to see
    markStale();
    busy.done();
    return;
  }
  // base64: exact and half the bytes of printed digits; api.js gives back nested lists.
  const [n, m, multi] = [request.X.length, request.X_kv?.length ?? request.X.length, Boolean(request.heads)];
  // Beyond the table's size the shown head's weights come exactly too, while they are few
  // enough (readout.js): its picture and read-out then show the real numbers.
  const exact = Math.max(n, m) > TABLE_MAX ? exactFields(n, m, multi, asked.head) : [];
  const answer = await api.compute({ ...request, fields: [...fieldsFor(n, multi, asked.head, m), ...exact], encoding: "base64" });
  if (answer === null) return;  // superseded by a newer edit
  reveal();  // the first answer, good or bad, shows the page (see start)
  if (answer.status === 200 && !answer.unreadable) {
    ui.body = answer.body;
    ui.answered = asked;
    if ($("status").classList.contains("is-warning")) say("");
    drawResults();
    if (ui.shuffles) shuffleTest();
  } else {
    const { message, field } = answer.body.error ?? { message: `Error ${answer.status}`, field: null };
    const mine = S.uiField(field);  // "heads[1].W_Q[0][0]" is the page's "W_Q_2[0][0]"
    if (mine && fieldName(mine)) ui.serverErrors.set(mine, message);
    else {
      ui.failure = message;
      say(message, { warning: true });
    }
    drawInputs();
  }
  markStale();
  busy.done();
}

// The answer still describes the inputs when they are the very same arrays: every
// transition makes new arrays for what it changes, so identity is enough (and free).
function sameInputs(a, b) {
  return a !== null && ["tokens", "tokens_kv", "causal", "scale", "positional", "blocked", "heads", ...S.matricesOf(b)]
    .every((key) => a[key] === b[key]);
}

// ---- drawing ----

// buildRequest parses every cell; at 256 tokens that is worth doing once per state.
const builtCache = new WeakMap();
function built(s) {
  if (!builtCache.has(s)) builtCache.set(s, S.buildRequest(s));
  return builtCache.get(s);
}

function allErrors() {
  const errors = new Map(built(state).errors);
  for (const [f, m] of ui.serverErrors) errors.set(f, m);
  return errors;
}

function drawInputs({ later = null } = {}) {
  const errors = allErrors();
  const waiting = renderInputs($("inputs"), state, errors, { later, pages: ui.pages });
  renderInputErrors($("input-errors"), errors);
  drawControls(state, errors, presets.findIndex((p) => isPreset(p, state)));
  exportChanged.schedule();
  return waiting;
}

// The export panel follows every redraw, once things are quiet.
const exportChanged = coalesced(() => ui.exportPanel?.changed());

function markStale() {
  const { request } = built(state);
  const marked = request === null || ui.serverErrors.size > 0;
  const stale = ui.body !== null && (marked || ui.failure !== null || !sameInputs(ui.answered, state));
  $("results").classList.toggle("is-stale", stale);
  $("stale-note").hidden = !stale;
  // Say why, as it is: an input marked on the page, the server's own message, or no server.
  const why = marked ? "fix the marked input and these numbers update."
    : ui.failure !== null ? ui.failure
    : ui.offline ? "the server cannot be reached; your edits are kept and sent when it answers."
    : "these numbers are being recomputed.";
  setProp($("stale-note"), "textContent", `Out of date — ${why}`);
}

function isPreset(preset, s) {
  const p = presetState(preset, s.seed);
  if (JSON.stringify(S.shapes(p)) !== JSON.stringify(S.shapes(s))) return false;
  const strip = (x) => toHash({ ...x, row: null, seed: 0, present: false });
  return strip(p) === strip(s);
}

/** Draw the last answer for the current selection; the walk and the status follow. */
function drawResults({ now = false } = {}) {
  const { focus, warning } = drawAnswer(ui.body, { row: state.row, head: state.head, focus: ui.focus,
    link: ui.link, now, d_model: S.shapes(ui.answered).d_model, inputs: built(ui.answered).request,
    present: state.present });
  ui.focus = focus;
  // The working is typeset after the paint, and lights the link it was given; by then the
  // pointer or an arrow key may have moved it.
  afterPaint(drawLink);
  drawWalk();
  exportChanged.schedule();
  if (warning) say(warning, { warning: true });
}

/** Light the parts of the linked weight, and read it out under a canvas heatmap. */
function drawLink() {
  renderLink($("page"), ui.link);
  if (!ui.body) return;
  const body = shownHead(ui.body, state.head);
  const [n, m] = [body.tokens.length, (body.tokens_kv ?? body.tokens).length];
  const read = ui.link ?? ui.tapped;
  const cell = read && read.i < n && read.j < m ? read : null;
  for (const host of $("heatmap").querySelectorAll('.heatmap[data-mode="canvas"]')) {
    const mine = Number(host.closest("[data-head]").dataset.head) === (body.head ?? 0);
    showCell(host, mine ? cell : null, mine ? readoutText(body, cell) : "");
  }
}

function drawWalk() {
  const panel = $("walk-panel").firstChild;
  const context = ui.walk === null || !ui.body ? null
    : walkContext(shownHead(ui.body, state.head), state.row, built(ui.answered).request, Boolean(ui.body.heads));
  renderWalk($("page"), panel, ui.walk, context);
}

function walkTo(k) {
  ui.walk = k;
  drawWalk();
  if (k === null) $("walk").focus();
}

// The shuffle test: the inputs in their order and shuffled, without and with positions.
let shuffleTicket = 0;
async function shuffleTest() {
  const { request } = built(state);
  const n = state.tokens.length;
  if (!request || n < 2 || n > SHOWN || state.X_kv) {
    $("shuffle-result").replaceChildren();
    $("shuffle-order").textContent = state.X_kv ? "The shuffle test is for self-attention: turn cross-attention off."
      : n < 2 ? "Add a second token to shuffle." : n > SHOWN ? `Shown for up to ${SHOWN} tokens.` : "";
    return;
  }
  const ticket = ++shuffleTicket;
  const perm = permutation(n, state.seed + ui.shuffles);
  const identity = [...Array(n).keys()];
  const runs = await Promise.all([false, true].map(async (positional) => {
    const [a, b] = await Promise.all([identity, perm].map((p) => postOnce(shuffledRequest(request, p, positional))));
    if (a.status !== 200 || b.status !== 200 || a.unreadable || b.unreadable) throw new Error((a.body.error ?? b.body.error).message);
    return { title: positional ? "With sinusoidal positions" : "Without positions", Z: a.body.output, Zs: b.body.output };
  })).catch((err) => { say(err.message, { warning: true }); return null; });
  if (!runs || ticket !== shuffleTicket) return;  // a newer test is on its way
  $("shuffle-order").textContent = `Shuffled order: ${perm.map((k) => state.tokens[k]).join(", ")}`;
  renderShuffle($("shuffle-result"), { tokens: state.tokens, perm, runs });
}

// ---- the status line (an aria-live region) ----

function say(text, { warning = false, clearAfter = 0 } = {}) {
  const status = $("status");
  clearTimeout(ui.statusTimer);
  status.textContent = text;
  status.classList.toggle("is-warning", warning);
  if (clearAfter) ui.statusTimer = setTimeout(() => say(""), clearAfter);
}

// ---- events ----

function selectRow(i, head = state.head) {
  if (state.row === i && state.head === head) return;
  update({ ...state, row: i, head }, { history: "replace" });
  if (ui.body) drawResults();  // the highlight moves now; the working follows the answer
}

/** The weight {i, j} under a pointer event's point on a canvas heatmap's box ``map``. */
function pointAt(map, e) {
  const canvas = map.querySelector("canvas");
  return cellFromPoint(canvas.getBoundingClientRect(), e.clientX, e.clientY, canvas.height, canvas.width);
}

/** The heatmap of the head shown in the other blocks (the only one with one head). */
const shownHeatmap = () => $("heatmap").querySelector(`[data-head="${ui.body?.heads ? state.head : 0}"] .heatmap`);

function focusCell(pos) {
  ui.focus = pos;
  ui.link = pos;  // the link follows the focus, drawn with it (focusin comes after the drawing)
  if (ui.body) drawResults();
  drawLink();
  cellAt(shownHeatmap(), pos)?.focus({ preventScroll: false });
}

function wire() {
  $("inputs").addEventListener("input", (e) => {
    const t = e.target;
    if (t.dataset.matrix) {
      const field = `${t.dataset.matrix}[${t.dataset.i}][${t.dataset.j}]`;
      update(S.setCell(state, t.dataset.matrix, Number(t.dataset.i), Number(t.dataset.j), t.value), { field });
    } else if (t.dataset.label !== undefined) {
      update(S.setLabel(state, Number(t.dataset.label), t.value), { field: `tokens[${t.dataset.label}]` });
    } else if (t.dataset.labelKv !== undefined) {
      const i = Number(t.dataset.labelKv);
      update(S.setLabel(state, i, t.value, "tokens_kv"), { field: `tokens_kv[${i}]` });
    }
  });

  $("inputs").addEventListener("click", (e) => {  // a page of a large matrix's inputs
    const b = e.target.closest("button[data-turn]");
    if (!b) return;
    const name = b.closest("[data-key]").dataset.key;
    const { turn, step } = b.dataset;
    ui.pages.set(name, turned(ui.pages.get(name), turn, Number(step), state[name].length, state[name][0].length, SHOWN));
    drawInputs();
    // The inputs were rebuilt: focus the same button again, or its twin at the end.
    const pager = $("inputs").querySelector(`:scope > [data-key="${name}"] .pager-axis[data-axis="${turn}"]`);
    const [previous, next] = pager.querySelectorAll("button");
    (Number(step) > 0 ? (next.disabled ? previous : next) : (previous.disabled ? next : previous)).focus();
  });

  const heatmap = $("heatmap");
  const headOf = (node) => Number(node.closest("[data-head]")?.dataset.head ?? 0);
  let tapping = false;  // a finger is on the heatmap, or its tap's click has yet to come
  heatmap.addEventListener("click", (e) => {
    const target = e.target.closest("[data-i]");
    if (target && heatmap.contains(target)) {
      const i = Number(target.dataset.i);
      const map = target.closest(".bigmap");  // on a canvas, the key is where the pointer is
      ui.focus = { i, j: map ? pointAt(map, e)?.j ?? ui.focus.j : Number(target.dataset.j ?? ui.focus.j) };
      selectRow(i, headOf(target));  // with several heads, clicking a head shows that head
      cellAt(shownHeatmap(), ui.focus)?.focus({ preventScroll: true });
      // On a narrow screen the working stands under the heatmap: bring it into view (its
      // "Back to the heatmap" button returns). Side by side, nothing moves.
      if (matchMedia(STACKED).matches && !state.present) $("working-block").scrollIntoView({ block: "start" });
    }
    tapping = false;  // the tap's focus has come
  });
  const isShown = (node) => !ui.body?.heads || headOf(node) === state.head;
  /** The weight a cell of the shown head's grid stands for: a canvas row's, the focused key's. */
  const cellOf = (node) => {
    const cell = node.closest?.('[role="gridcell"]');
    if (!cell || !heatmap.contains(cell) || !isShown(cell)) return null;
    return { i: Number(cell.dataset.i), j: cell.matches("td") ? Number(cell.dataset.j) : ui.focus.j };
  };
  /** The weight under the pointer: a table's cell, or the pixel of a canvas. */
  const pointed = (e) => {
    const map = e.target.closest?.(".bigmap");
    if (!map) return cellOf(e.target);
    return isShown(map) ? pointAt(map, e) : null;
  };
  const setLink = (next) => {
    if (next?.i === ui.link?.i && next?.j === ui.link?.j) return;
    ui.link = next;
    drawLink();
  };
  // A finger lights a weight while it is down; the focus a tap gives a cell lights nothing,
  // since no pointer leaves to put it out. A mouse or pen lights what it is over.
  const unlink = () => setLink(null);
  heatmap.addEventListener("pointerover", (e) => { if (e.pointerType !== "touch") setLink(pointed(e)); });
  heatmap.addEventListener("pointermove", (e) => {
    if (e.pointerType !== "touch" && e.target.closest?.(".bigmap")) setLink(pointed(e));
  });
  heatmap.addEventListener("pointerdown", (e) => {
    if (e.pointerType !== "touch") return;
    tapping = true;
    ui.tapped = e.target.closest?.(".bigmap") ? pointed(e) : null;
    setLink(pointed(e));
  });
  document.addEventListener("pointerdown", (e) => {  // a tap elsewhere ends the read-out of the last
    if (e.pointerType === "touch" && ui.tapped && !heatmap.contains(e.target)) {
      ui.tapped = null;
      drawLink();
    }
  });
  document.addEventListener("pointerup", (e) => { if (e.pointerType === "touch" && tapping) unlink(); });
  document.addEventListener("pointercancel", (e) => { if (e.pointerType === "touch" && tapping) { tapping = false; unlink(); } });
  heatmap.addEventListener("focusin", (e) => { if (!tapping) setLink(cellOf(e.target)); });
  heatmap.addEventListener("pointerleave", (e) => { if (e.pointerType !== "touch") unlink(); });
  heatmap.addEventListener("focusout", (e) => { if (!heatmap.contains(e.relatedTarget)) unlink(); });
  heatmap.addEventListener("keydown", (e) => {
    tapping = false;
    if (!e.target.matches('[role="gridcell"]') || !ui.body) return;
    const n = ui.body.tokens.length;
    if (ui.body.heads && headOf(e.target) !== state.head) selectRow(ui.focus.i, headOf(e.target));
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      selectRow(ui.focus.i);
      return;
    }
    if ((e.key === "m" || e.key === "M") && e.target.closest(".heatmap").dataset.mode === "table") {  // mask or unmask this cell
      e.preventDefault();
      update(S.toggleBlocked(state, ui.focus.i, ui.focus.j));
      return;
    }
    const next = moveFocus(ui.focus, e.key, n, e.ctrlKey || e.metaKey, (ui.body.tokens_kv ?? ui.body.tokens).length);
    if (!next) return;
    e.preventDefault();
    const rowChanged = next.i !== ui.focus.i;
    focusCell(next);
    if (rowChanged) selectRow(next.i);  // selection follows focus up and down
  });

  wireControls({ now: () => state, update, say, presets, presetState, initial: DEFAULT });
  $("walk-panel").append(walkPanel());
  $("walk").addEventListener("click", () => {
    if (state.row === null) selectRow(state.tokens.length - 1);
    walkTo(0);
    $("walk-panel").querySelector(".walk-next").focus({ preventScroll: true });
  });
  // Skip links move focus without touching the URL's fragment, which holds the view.
  $("skip-heatmap").addEventListener("click", (e) => {
    e.preventDefault();
    cellAt(shownHeatmap(), ui.focus)?.focus();
  });
  $("skip-walk").addEventListener("click", (e) => {
    e.preventDefault();
    $("walk").focus();
  });
  $("back-to-heatmap").addEventListener("click", () => {
    cellAt(shownHeatmap(), ui.focus)?.focus({ preventScroll: true });
    $("heatmap-start").scrollIntoView({ block: "start" });
  });
  $("walk-panel").addEventListener("click", (e) => {
    const b = e.target.closest("button");
    if (!b) return;
    if (b.classList.contains("walk-prev")) walkTo(Math.max(0, ui.walk - 1));
    else if (b.classList.contains("walk-next")) walkTo(ui.walk + 1 < STEPS.length ? ui.walk + 1 : null);
    else walkTo(null);
  });
  $("walk-panel").addEventListener("keydown", (e) => {
    if (e.key !== "Escape") return;
    e.preventDefault();  // ends the walk only, not present mode as well
    walkTo(null);
  });
  $("shuffle").addEventListener("click", () => {
    ui.shuffles += 1;
    shuffleTest();
  });
  $("scores").addEventListener("click", (e) => {
    const td = e.target.closest('figure[data-key="SS"] tbody td');
    if (!td) return;
    const i = td.parentElement.sectionRowIndex;
    const j = td.cellIndex - 1;  // cell 0 is the row's header
    update(S.toggleBlocked(state, i, j));
  });
  $("copy-link").addEventListener("click", async () => {
    urls.writeNow();
    try {
      await navigator.clipboard.writeText(location.href);
      say("Link copied: it reproduces this view exactly.", { clearAfter: 4000 });
    } catch {
      say(`Copy this link: ${location.href}`);
    }
  });
  window.addEventListener("pagehide", () => urls.writeNow());
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") urls.writeNow();
  });
  window.addEventListener("popstate", () => {
    urls.restored();
    state = fromHash(location.hash, DEFAULT).state;
    ui.serverErrors = new Map();
    drawInputs();
    recompute();
  });
}

// Until the first answer to a view the server did not send, the page below the controls
// is not drawn (html.is-loading, see app.css): the inputs and the numbers appear in one
// frame. It is shown anyway when the server cannot be reached, or after REVEAL_MS.
const REVEAL_MS = 1500;
function reveal() {
  const root = document.documentElement.classList;
  if (!root.contains("is-loading")) return;
  root.remove("is-loading");
  // content-visibility: auto (app.css) finds an input matrix on screen only a frame after
  // it is first laid out: it would stay blank beside the numbers for that frame. Just
  // before the frame is drawn, those on screen are drawn regardless, for that one frame.
  requestAnimationFrame(() => {
    const onScreen = [...document.querySelectorAll("#inputs .matrix.editable")].filter((figure) => {
      const { top, bottom } = figure.getBoundingClientRect();
      return bottom > 0 && top < window.innerHeight;
    });
    for (const figure of onScreen) figure.style.contentVisibility = "visible";
    afterPaint(() => onScreen.forEach((figure) => { figure.style.contentVisibility = ""; }));
  });
}

function start() {
  const select = $("preset");
  select.replaceChildren(...presets.map((p, k) => new Option(p.name, String(k))), new Option("(edited)", "edited"));
  select.lastChild.disabled = true;
  renderLegend($("legend"));
  const { state: loaded, problem } = fromHash(location.hash, DEFAULT);
  state = loaded;
  if (problem) say(problem, { warning: true });
  ui.focus = { i: state.row ?? 0, j: 0 };
  // The server sent the default view's answer with the page; any other view is fetched,
  // and its request leaves first, to travel while the page draws its inputs.
  const initial = JSON.parse($("initial-data").textContent);
  const embedded = isPreset(presets[0], state) && state.row === initial.working?.row;
  if (!embedded) {
    document.documentElement.classList.add("is-loading");
    setTimeout(reveal, REVEAL_MS);
  }
  const drawn = embedded ? null : recompute();
  // The URL in its normal form, in the history entry the page was opened with.
  urls.edited(drawn, { history: "replace" });
  wire();
  mountLab($("lab-panel"));
  ui.exportPanel = mountExport($("export-panel"), {
    get: () => ({ state, request: built(state).request, body: ui.body }),
    // Parts of the answer the page does not hold (whole matrices of which it drew a corner).
    fetch: async (fields) => {
      const { status, body, unreadable } = await postOnce({ ...built(state).request, fields, encoding: "base64" });
      if (status !== 200 || unreadable) throw new Error(body.error?.message ?? `error ${status}`);
      return body;
    },
    check: async (request) => {  // the server's own check of an import: null, or its message
      try {
        const { status, body, unreadable } = await postOnce({ ...request, fields: [] });
        return status === 200 && !unreadable ? null : body.error?.message ?? `The server answered ${status}.`;
      } catch {
        return "The configuration could not be checked: the server cannot be reached. Try again.";
      }
    },
    load: (request) => {  // null when loaded, else why the page cannot show it
      try {
        update(S.fromRequest(request, state.seed), { urlNow: true });  // a link copied at once carries it
        return null;
      } catch (err) {
        return `The page cannot show this configuration: ${err.message}.`;
      }
    },
    say,
  });
  // Head 1's inputs now; those of other heads and W_O (at 4 heads of 64 dimensions, 2,600
  // of the 3,600 inputs, and below the first screen) once the first answer has painted.
  if (drawInputs({ later: new Set(S.matricesOf(state).slice(S.MATRICES.length)) })) {  // after X, W_Q, W_K, W_V
    settledWithin(drawn, REVEAL_MS).then(() => afterPaint(() => drawInputs()));
  }
  if (embedded) {
    ui.body = initial;
    ui.answered = state;
    drawResults({ now: true });
  }
}

start();
