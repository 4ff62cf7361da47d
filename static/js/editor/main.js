// The page's boot and its one path of an edit. Every event makes a new state and hands it
// to update(), which sends its request (first, so it travels while the page works), writes
// the URL (history.js) and redraws the inputs; the answer, when it comes, draws the
// results. The events are wired where they belong: controls.js (the controls bar),
// inputevents.js (the inputs), heatmapevents.js (the heatmaps), walkevents.js (the guided
// walk), shuffletest.js, exportactions.js (the export panel) and history.js (Back and
// Forward). This is the only module that knows about state, fetching and drawing at once.

import { createApi, postOnce } from "../lib/api.js";
import { createBusy } from "./busy.js";
import { drawControls, wireControls } from "./controls.js";
import { setProp, setText, STACKED } from "../lib/dom.js";
import { mountExport } from "./exportpanel.js";
import { mountGenerate } from "./generate.js";
import { mountCost } from "./cost.js";
import { editorTrace } from "./tiles.js";
import { mountTiles, tileNote } from "../draw/tiles.js";
import { outlineTile } from "../draw/heatmaptile.js";
import { keptInside, renderLegend, showCell, TABLE_MAX } from "../draw/heatmap.js";
import { wireHeatmap } from "./heatmapevents.js";
import { limits, urls as routes } from "../lib/config.js";
import { createHistory, unstored } from "../lib/history.js";
import { createLessons } from "./lessonpanel.js";
import { wireInputs } from "./inputevents.js";
import { fieldName, renderInputErrors, renderInputs } from "./inputs.js";
import { mountLab } from "./lab.js";
import { afterPaint, coalesced, inBackground, oneAFrame, settledWithin } from "../lib/later.js";
import { renderLink } from "./link.js";
import { marksNote } from "./marks.js";
import { fitPresentMode } from "./presentfit.js";
import { exactFields, readoutText } from "../draw/readout.js";
import { drawableHead, drawAnswer, drawWaiting, fieldsFor, shownHead } from "./results.js";
import { buildRequest, fromPreset, fromRequest, uiField } from "./request.js";
import { wirePractiseLink } from "./practiselink.js";
import { reveal, revealByDeadline, REVEAL_MS } from "./reveal.js";
import { createShuffleTest } from "./shuffletest.js";
import * as S from "./state.js";
import { clearWarning, say } from "./status.js";
import { katexReady } from "../draw/tex.js";
import { changedWords, readSource, sourceKey, sourceRequest, sourceWords, stateFromHead, viewFragment } from "./source.js";
import { fromHash, fromSourceHash, toHash, writtenAtOnce } from "./url.js";
import { walkContext } from "./walk.js";
import { createWalk } from "./walkevents.js";

const $ = (id) => document.getElementById(id);
const presets = JSON.parse($("presets-data").textContent);

/** A preset as a state, with its last row selected so the working shows from the start. */
function presetState(preset, seed = 1) {
  const s = fromPreset(preset.request, seed);
  return { ...s, row: s.tokens.length - 1 };
}
const DEFAULT = presetState(presets[0]);

// What the page holds, each part owned by one concern.
let state = DEFAULT;  // the one state, mirrored by the URL: set by start(), update() and restore() alone
const answer = { body: null, answered: null };  // the last good answer, and the state it answers
// The server's verdict on the newest request: its marks on inputs (field → message), its
// message when no input is to blame, and whether it cannot be reached (api.js retries).
const verdict = { marks: new Map(), failure: null, offline: false };
// The heatmap's focused cell and lit weight: heatmapevents.js hands its changes to point().
let pointer = { focus: { i: DEFAULT.row, j: 0 }, link: null, tapped: null };
const point = (change) => { pointer = { ...pointer, ...change }; };
const pages = new Map();  // matrix name → the page of its inputs shown, {row, col} (pages.js): set by inputevents.js's turnPage alone
let exportPanel = null;   // {changed()} of the export panel, told of every redraw (start mounts it)
let generatePanel = null;  // {changed()} of "Generate step by step", likewise
let costPanel = null;  // {changed()} of "What n² costs", likewise
let tilesPanel = null;  // {changed()} of "Step through the tiles", likewise
let tileShown = null;  // the tile it is at, {head, rows, keys, skipped}, outlined in the heatmap; or null

const api = createApi({ onConnection: (up) => {
  verdict.offline = !up;
  if (up) say("Connected again.", { clearAfter: 4000 });
  else {
    say("The server cannot be reached. Your edits are kept; retrying…", { warning: true });
    reveal();
  }
  markStale();
} });
const urls = createHistory(() => state, { encode: toHash, immediate: writtenAtOnce, onStored: (where) => {
  if (where === keptIn) return;
  keptIn = where;
  if (where === "tab") say("This view is too large for a link: it is kept in this tab, so a reload keeps it. Use Export to keep it elsewhere.");
  if (where === "nowhere") say("This view is too large for a link or for this tab's storage: use Export to keep it.", { warning: true });
} });
let keptIn = "link";  // where the URL keeps the view (history.js)
const busy = createBusy($("results"));  // aria-busy until the newest edit's answer is drawn
const lessons = createLessons($("lessons"));  // beside the numbers, with side requests of their own

// ---- the one path of every change ----

/** The state is ``next``: the request leaves, the URL is written, the inputs redrawn.
 *  ``history`` and ``field`` say which history entry the edit makes (history.js);
 *  ``urlNow`` writes the URL at once whatever the view's size (an import); ``urlDrawn``
 *  once its numbers have painted (a view opened, whose URL already stands for it). */
function update(next, { history = "push", field = null, urlNow = false, urlDrawn = false } = {}) {
  setState(next);
  const drawn = recompute();  // first, so the request travels while the inputs are redrawn
  if (urlDrawn) writeWhenDrawn(drawn, next, history);
  else urls.edited({ history, field, now: urlNow });
  drawInputs();
}

/** Write the URL of ``opened``, a view the page opened from its URL (a link, a model's
 *  head), once ``drawn`` has drawn its numbers and they have painted, unless an edit has
 *  written it since. Not in the frames while its answer is at the server: the browser's
 *  history entry then took 50-67 ms for a model's head (a 906-character URL) and
 *  encoding and writing a 512-token link's 445 KB fragment ~50-100 ms, which held up the
 *  drawing of the answer that came meanwhile (benchmarks/bench_browser.py, "Open in the
 *  editor" and "512 tokens, 4 heads"). */
function writeWhenDrawn(drawn, opened, history) {
  settledWithin(drawn, REVEAL_MS).then(() => afterPaint(() => {
    if (state === opened) urls.edited({ history, now: true });
  }));
}

/** Back or Forward: the state of that history entry, whose URL is already written. */
function restore(hash) {
  const full = unstored(hash);
  if (full === null) {
    say("That view was kept in this tab only, and this tab no longer holds it.", { warning: true });
    return;
  }
  const source = sourceOf(full);
  if (source) {
    openSource(source, full);
    return;
  }
  setState(fromHash(full, DEFAULT).state);
  recompute();
  drawInputs();
}

// ---- a real model's head, opened from the real-model view (source.js) ----

const bases = new Map();  // sourceKey → the head's state as fetched: Back and Forward reuse it
const modelNames = new Map();  // model id → its name, from GET /api/models
let namesAsked = null;

function sourceOf(hash) {
  try {
    return readSource(hash);
  } catch (err) {
    say(`The link to a model's head could not be read (${err.message}); showing the default example.`, { warning: true });
    return null;
  }
}

function askNames() {
  namesAsked ??= fetch(routes.models).then((r) => r.json()).then((body) => {
    for (const m of body.models ?? []) modelNames.set(m.id, m.name);
  }).catch(() => {});  // the id stands in for the name
  return namesAsked;
}

/** Fetch the head ``source`` names (once per head), then show it with the options and
 *  changed cells of ``hash``. The URL is left as it is until the head has come: a link
 *  whose head cannot be fetched now is kept, to work once it can. */
async function openSource(source, hash) {
  const key = sourceKey(source);
  const asked = state;
  if (!bases.has(key)) {
    say(`Fetching the numbers of ${sourceWords(source)}…`);
    let answered;
    try {
      [answered] = await Promise.all([postOnce(sourceRequest(source), { url: routes.model_attention }), askNames()]);
    } catch {
      answered = { status: 0, body: { error: { message: "the server cannot be reached" } } };
    }
    if (answered.status !== 200 || answered.unreadable) {
      const why = answered.body.error?.message ?? `the server answered ${answered.status}`;
      say(`The numbers of ${sourceWords(source)} could not be fetched: ${why}. The link is kept as it is; reload to try again.`, { warning: true });
      reveal();
      return;
    }
    bases.set(key, stateFromHead(answered.body, source, { seed: DEFAULT.seed, maxLabel: limits.label }));
  }
  if (state !== asked) return;  // edited meanwhile: the person's edit stands
  const { state: opened, problem } = fromSourceHash(hash, bases.get(key));
  if (problem) say(problem, { warning: true });
  else say(`Opened ${sourceWords(source, modelNames.get(source.model))}.`, { clearAfter: 4000 });
  update(opened, { history: "replace", urlDrawn: true });
}

/** Where the numbers came from, with a link back to the real-model view, while the state
 *  holds a real model's head. */
function drawSource() {
  const note = $("source-note");
  const source = state.source;
  setProp(note, "hidden", !source);
  if (!source) return;
  const since = changedWords(state);
  const href = routes.model + viewFragment(state);
  const words = `These inputs are ${sourceWords(source, modelNames.get(source.model))}${since}.`;
  if (note.dataset.words === words && note.dataset.href === href) return;
  Object.assign(note.dataset, { words, href });
  note.replaceChildren(`${words} `, Object.assign(document.createElement("a"), { href, textContent: "Back to the real-model view" }));
}

/** What ␣ and ↵ stand for, under the heatmap, while the labels show them (a real model's
 *  tokens keep the space before a word). */
function drawMarks() {
  const note = marksNote([...state.tokens, ...(state.tokens_kv ?? [])]);
  setText($("token-marks"), note);
  setProp($("token-marks"), "hidden", note === "");
}

function setState(next) {
  state = next;
  verdict.marks = new Map();
  verdict.failure = null;
}

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
  const answered = await api.compute({ ...request, fields: [...fieldsFor(n, multi, asked.head, m), ...exact], encoding: "base64" });
  if (answered === null) return;  // superseded by a newer edit
  reveal();  // the first answer, good or bad, shows the page (see start)
  if (answered.status === 200 && !answered.unreadable) {
    answer.body = answered.body;
    answer.answered = asked;
    clearWarning();
    drawResults();
    shuffle.refresh();
  } else {
    const { message, field } = answered.body.error ?? { message: `Error ${answered.status}`, field: null };
    const mine = uiField(field);  // "heads[1].W_Q[0][0]" is the page's "W_Q_2[0][0]"
    if (mine && fieldName(mine)) verdict.marks.set(mine, message);
    else {
      verdict.failure = message;
      say(message, { warning: true });
    }
    drawInputs();
  }
  markStale();
  busy.done();
}

// What a state sends besides its matrices (request.js).
const SETTINGS = ["tokens", "tokens_kv", "causal", "scale", "positional", "rope_base", "offset", "alibi",
  "biases", "window", "sinks", "blocked", "heads", "kvHeads"];

// The answer still describes the inputs when they are the very same arrays: every
// transition makes new arrays for what it changes, so identity is enough (and free).
function sameInputs(a, b) {
  return a !== null && [...SETTINGS, ...S.inputsOf(b)].every((key) => a[key] === b[key]);
}

// One request per state: an edit asks for it some six times (the request, the marks, the
// stale mark, the drawing, the walk, the shuffle test), and the lessons' side requests
// are keyed by its identity (lessonpanel.js). Built again each time, the 0.26 ms of
// benchmarks/bench_browser.py's "256 tokens, d = 64" edit (request.js) would be ~1.5 ms.
const builtCache = new WeakMap();
function built(s) {
  if (!builtCache.has(s)) builtCache.set(s, buildRequest(s));
  return builtCache.get(s);
}

// ---- drawing: from the state and the answer, never back into them ----

function allErrors() {
  const errors = new Map(built(state).errors);
  for (const [f, m] of verdict.marks) errors.set(f, m);
  return errors;
}

function drawInputs({ later = null } = {}) {
  const errors = allErrors();
  const waiting = renderInputs($("inputs"), state, errors, { later, pages });
  const refused = drawControls(state, errors, presetOf(state));
  renderInputErrors($("input-errors"), new Map([...errors, ...refused]), S.grouped(state));
  drawSource();
  drawMarks();
  exportChanged.schedule();
  return waiting;
}

// The export panel follows every redraw, once things are quiet.
const exportChanged = coalesced(() => {
  exportPanel?.changed();
  generatePanel?.changed();
  tilesPanel?.changed();
  costPanel?.changed();
});

function markStale() {
  const { request } = built(state);
  const marked = request === null || verdict.marks.size > 0;
  const stale = answer.body !== null && (marked || verdict.failure !== null || !sameInputs(answer.answered, state));
  $("results").classList.toggle("is-stale", stale);
  setProp($("stale-note"), "hidden", !stale);
  // Say why, as it is: an input marked on the page, the server's own message, or no server.
  const why = marked ? "fix the marked input and these numbers update."
    : verdict.failure !== null ? verdict.failure
    : verdict.offline ? "the server cannot be reached; your edits are kept and sent when it answers."
    : "these numbers are being recomputed.";
  setText($("stale-note"), `Out of date — ${why}`);
}

// A state as a preset is compared: its URL without the row, the seed and present mode.
const presetForm = (s) => toHash({ ...s, row: null, seed: 0, present: false });
const shapesOf = (s) => JSON.stringify(S.shapes(s));

// The presets' shapes and forms at the last seed asked: built again on every redraw, the
// presets' states and URLs were 1.1 ms of the 3.3 ms an edit's own event took at 3 tokens
// (benchmarks/bench_browser.py, "3 tokens (default)"), before the frame that echoes the
// keystroke and so before the numbers' frame.
let forms = { seed: null, of: [] };

/** The index of the preset that ``s`` shows (whatever its row, seed or present mode), or -1. */
function presetOf(s) {
  if (forms.seed !== s.seed) {
    forms = { seed: s.seed, of: presets.map((preset) => presetState(preset, s.seed)).map((p) => ({ shapes: shapesOf(p), form: presetForm(p) })) };
  }
  const shapes = shapesOf(s);
  let form = null;  // written out only for a preset of the same shapes
  return forms.of.findIndex((p) => p.shapes === shapes && p.form === (form ??= presetForm(s)));
}

/** Draw the last answer for the current selection; the walk and the status follow. */
function drawResults({ workingWhenNear = false } = {}) {
  const body = shownHead(answer.body, state.head);
  point({ focus: keptInside(pointer.focus, body.tokens.length, (body.tokens_kv ?? body.tokens).length) });
  const { warning } = drawAnswer(answer.body, { row: state.row, head: state.head, focus: pointer.focus,
    link: pointer.link, workingWhenNear, d_model: S.shapes(answer.answered).d_model, inputs: built(answer.answered).request,
    present: state.present });
  // The lessons after the frame that paints the numbers: they never hold it up.
  const lesson = { request: built(answer.answered).request, answer: answer.body, head: state.head, row: state.row };
  afterPaint(() => lessons.draw(lesson));
  // The working is typeset after the paint, and lights the link it was given; by then the
  // pointer or an arrow key may have moved it.
  afterPaint(drawLink);
  drawTile();
  if (walk.walking()) drawWaiting();  // a step may light, and scroll to, a block below the screen
  walk.draw();
  exportChanged.schedule();
  if (warning) say(warning, { warning: true });
}

/** Light the parts of the linked weight, and read it out under a canvas heatmap. */
function drawLink() {
  renderLink($("page"), pointer.link);
  if (!answer.body) return;
  const body = shownHead(answer.body, state.head);
  const [n, m] = [body.tokens.length, (body.tokens_kv ?? body.tokens).length];
  const read = pointer.link ?? pointer.tapped;
  const cell = read && read.i < n && read.j < m ? read : null;
  for (const host of $("heatmap").querySelectorAll('.heatmap[data-mode="canvas"]')) {
    const mine = Number(host.closest("[data-head]").dataset.head) === (body.head ?? 0);
    showCell(host, mine ? cell : null, mine ? readoutText(body, cell) : "");
  }
}

/** Outline the tile "Step through the tiles" is at, in its head's heatmap (none in the
 *  others), and say under the heatmaps what the box is. */
function drawTile() {
  let shown = false;
  for (const host of $("heatmap").querySelectorAll(".heatmap")) {
    const head = Number(host.closest("[data-head]").dataset.head);
    outlineTile(host, tileShown?.head === head ? tileShown : null);
    shown ||= Boolean(host.querySelector(".tile-outline"));
  }
  setProp($("tile-note"), "hidden", !shown);
  setText($("tile-note"), shown ? tileNote(tileShown) : "");
}

/** What "Step through the tiles" reads of the page: the selected row's tiles (editorTrace),
 *  its z as the page's answer has it (null while that answer is not the view's), and where
 *  to outline a tile. */
function tilesPage() {
  const current = () => {
    if (!answer.body || !sameInputs(answer.answered, state)) return null;
    const working = shownHead(answer.body, state.head).working;
    return working?.row === state.row && drawableHead(answer.body, state.head) === state.head ? working.z : null;
  };
  return { trace: editorTrace(() => ({ state, request: built(state).request })), z: current,
    show: (tile) => { tileShown = tile; drawTile(); } };
}

// ---- events ----

function selectRow(i, head = state.head) {
  if (state.row === i && state.head === head) return;
  update({ ...state, row: i, head }, { history: "replace" });
  if (answer.body) drawResults();  // the highlight moves now; the working follows the answer
}

const now = () => state;
const walk = createWalk({ now, selectRow, context: () => (answer.body
  ? walkContext(shownHead(answer.body, state.head), state.row, built(answer.answered).request, Boolean(answer.body.heads))
  : null) });
const shuffle = createShuffleTest({ now, request: () => built(state).request, say });
fitPresentMode(document.querySelector("#walk-panel .walk"));

function wire() {
  wireInputs($("inputs"), { now, update, pages, turnPage: (name, at) => pages.set(name, at), redraw: () => drawInputs() });
  wireHeatmap({ now, body: () => answer.body, pointer: () => pointer, point, selectRow, update, drawResults, drawLink });
  wireControls({ now, update, say, presets, presetState, initial: DEFAULT, redraw: () => drawInputs() });
  $("scores").addEventListener("click", (e) => {  // a scaled score masks or unmasks its cell
    const td = e.target.closest('figure[data-key="SS"] tbody td');
    if (!td) return;
    const i = td.parentElement.sectionRowIndex;
    const j = td.cellIndex - 1;  // cell 0 is the row's header
    update(S.toggleBlocked(state, i, j));
  });
  $("copy-link").addEventListener("click", async () => {
    urls.writeNow();
    if (location.hash.startsWith("#stored=")) {
      say("This view is too large for a link (Chrome takes links up to 2 MB): it is kept in this tab only. Use Export to keep it elsewhere.");
      return;
    }
    try {
      await navigator.clipboard.writeText(location.href);
      say("Link copied: it reproduces this view exactly.", { clearAfter: 4000 });
    } catch {
      say(`Copy this link: ${location.href}`);
    }
  });
  wirePractiseLink($("practise-row"), () => built(state).request);
  urls.listen(restore);
}

/** What the export panel may ask of the page (see mountExport). */
function exportPage() {
  return {
    get: () => ({ state, request: built(state).request, body: answer.body }),
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
        update(fromRequest(request, state.seed), { urlNow: true });  // a link copied at once carries it
        return null;
      } catch (err) {
        return `The page cannot show this configuration: ${err.message}.`;
      }
    },
    say,
  };
}

function start() {
  renderLegend($("legend"));
  const opened = unstored(location.hash);
  if (opened === null) {
    say("This view was kept in this tab only (it is too large for a link), and this tab no longer holds it; showing the default example.", { warning: true });
  }
  const hash = opened ?? "";
  const source = sourceOf(hash);
  const { state: loaded, problem } = source ? { state: DEFAULT, problem: null } : fromHash(hash, DEFAULT);
  state = loaded;
  if (problem) say(problem, { warning: true });
  point({ focus: { i: state.row ?? 0, j: 0 } });
  // The server sent the default view's answer with the page; any other view is fetched,
  // and its request leaves first, to travel while the page draws its inputs.
  const initial = JSON.parse($("initial-data").textContent);
  const embedded = presetOf(state) === 0 && state.row === initial.working?.row;
  // KaTeX's build (tex.js), at once where the working is on the first screen.
  const stacked = matchMedia(STACKED).matches;
  const katex = stacked ? Promise.resolve() : katexReady().catch(() => {});
  if (!embedded) revealByDeadline();
  const drawn = embedded ? null : recompute();
  // The URL in its normal form, in the history entry the page was opened with (a model's
  // head's once it has come), once the view has painted.
  if (source) openSource(source, hash);
  else writeWhenDrawn(drawn ?? Promise.resolve(), state, "replace");
  wire();
  // Head 1's inputs first; those of other heads and W_O (at 4 heads of 64 dimensions, 2,600
  // of the 3,600 inputs, and below the first screen) once the first answer has painted.
  const firstInputs = () => {
    if (drawInputs({ later: new Set(S.matricesOf(state).slice(S.MATRICES.length)) })) {  // after X, W_Q, W_K, W_V
      settledWithin(drawn, REVEAL_MS).then(() => afterPaint(() => drawInputs()));
    }
  };
  if (!embedded) {  // its request has left; the page may be shown at once, marked inputs and all
    firstInputs();
    mountsBelow.forEach((mount) => mount());
    return;
  }
  answer.body = initial;
  answer.answered = state;
  // The default view's answer: the rest comes in tasks and frames of their own, as one
  // task it was a phone's longest (benchmarks/bench_lighthouse.py). The inputs; the
  // results, with the working typeset before where it stands beside the heatmap, and
  // when it nears the screen where it is under it, below the first screen (results.js);
  // then the page is shown, and the lab and the export panel follow a frame apart: once
  // the page is laid out, the browser leaves them undrawn until they near the screen
  // (app.css).
  inBackground(firstInputs);
  katex.then(() => inBackground(() => {
    drawResults({ workingWhenNear: stacked });
    oneAFrame(reveal, ...mountsBelow);
  }));
}

/** The blocks at the bottom of the page, mounted once start() has drawn the view. */
const mountsBelow = [() => mountLab($("lab-panel")),
  () => { exportPanel = mountExport($("export-panel"), exportPage()); },
  () => { generatePanel = mountGenerate($("generate-panel"), { get: () => ({ state, request: built(state).request }) }); },
  () => { tilesPanel = mountTiles($("tiles-panel"), tilesPage()); },
  () => { costPanel = mountCost($("cost-panel"), { get: () => ({ request: built(state).request }) }); }];

start();
