// The page's boot and its one path of an edit. Every event makes a new state and hands it
// to update(), which sends its request (first, so it travels while the page works), writes
// the URL (history.js) and redraws the inputs; the answer, when it comes, draws the
// results. What the page holds is one store (lib/store.js): the state, which the URL
// mirrors, and beside it the view: the answer, the server's verdict, the pointer, the
// pages of the inputs shown, the tile outlined, where the URL keeps the view. The panels at
// the bottom are mounted on it and told of every redraw. The events are wired where they
// belong: controls.js (the controls bar), inputevents.js (the inputs), heatmapevents.js
// (the heatmaps), walkevents.js (the guided walk), shuffletest.js, exportactions.js (the
// export panel), copylink.js and history.js (Back and Forward); paint.js draws. This is
// the only module that knows about state, fetching and drawing at once.

import { createApi } from "../lib/api.js";
import { createBusy } from "./busy.js";
import { createCompute } from "./compute.js";
import { wireControls } from "./inputs/controls.js";
import { wireCopyLink } from "./export/copylink.js";
import { STACKED } from "../lib/dom.js";
import { exportPage, mountExport } from "./export/exportpanel.js";
import { mountGenerate } from "./running/generate.js";
import { mountCost } from "./running/cost.js";
import { tilesPage } from "./running/tiles.js";
import { mountTiles } from "../draw/tiles.js";
import { renderLegend } from "../draw/heatmap.js";
import { wireHeatmap } from "./results/heatmapevents.js";
import { createHistory, unstored } from "../lib/history.js";
import { createLessons } from "./lessons/lessonpanel.js";
import { wireInputs } from "./inputs/inputevents.js";
import { mountLab } from "./lab/lab.js";
import { afterPaint, coalesced, inBackground, oneAFrame, settledWithin } from "../lib/later.js";
import { createModelHeads } from "./modelhead/modelhead.js";
import { createPaint } from "./paint.js";
import { fitPresentMode } from "./walk/presentfit.js";
import { presetMatcher, presetState } from "./presets.js";
import { shownHead } from "./results/results.js";
import { requestOf } from "./request.js";
import { wirePractiseLink } from "./export/practiselink.js";
import { reveal, revealByDeadline, REVEAL_MS } from "./reveal.js";
import { createShuffleTest } from "./lessons/shuffletest.js";
import { matricesOf, MATRICES, toggleBlocked } from "./state.js";
import { say } from "./status.js";
import { createStore } from "../lib/store.js";
import { katexReady } from "../draw/tex.js";
import { fromHash, toHash, writtenAtOnce } from "./url.js";
import { walkContext } from "./walk/walk.js";
import { createWalk } from "./walk/walkevents.js";

const $ = (id) => document.getElementById(id);
const presets = JSON.parse($("presets-data").textContent);
const DEFAULT = presetState(presets[0]);
const presetOf = presetMatcher(presets);

// What the page holds. The state is set by start(), setState() alone; the view beside it
// is never sent nor written into the URL.
const store = createStore({ state: DEFAULT, view: {
  answer: null, answered: null,  // the last good answer, and the state it answers
  // The server's verdict on the newest request: its marks on inputs (field → message), its
  // message when no input is to blame, and whether it cannot be reached (api.js retries).
  marks: new Map(), failure: null, offline: false,
  // The heatmap's focused cell and lit weight: heatmapevents.js hands its changes to point().
  pointer: { focus: { i: DEFAULT.row, j: 0 }, link: null, tapped: null },
  pages: new Map(),  // matrix name → the page of its inputs shown, {row, col} (pages.js)
  tile: null,  // the tile "Step through the tiles" is at, {head, rows, keys, skipped}, or null
  keptIn: "link",  // where the URL keeps the view (history.js): "link", "tab" or "nowhere"
} });
const now = () => store.state;
const point = (change) => store.look({ pointer: { ...store.view.pointer, ...change } });

const api = createApi({ onConnection: (up) => {
  store.look({ offline: !up });
  if (up) say("Connected again.", { clearAfter: 4000 });
  else {
    say("The server cannot be reached. Your edits are kept; retrying…", { warning: true });
    reveal();
  }
  paint.stale();
} });
const urls = createHistory(now, { encode: toHash, immediate: writtenAtOnce, onStored: (where) => {
  if (where === store.view.keptIn) return;
  store.look({ keptIn: where });
  if (where === "tab") say("This view is too large for a link: it is kept in this tab, so a reload keeps it. Use Export to keep it elsewhere.");
  if (where === "nowhere") say("This view is too large for a link or for this tab's storage: use Export to keep it.", { warning: true });
} });
const busy = createBusy($("results"));  // aria-busy until the newest edit's answer is drawn
const lessons = createLessons($("lessons"));  // beside the numbers, with side requests of their own
const modelHeads = createModelHeads({ store, update, seed: DEFAULT.seed });
const walk = createWalk({ now, selectRow, context: () => {
  const { state, view: { answer, answered } } = store;
  return answer ? walkContext(shownHead(answer, state.head), state.row, requestOf(answered).request, Boolean(answer.heads)) : null;
} });
const shuffle = createShuffleTest({ now, request: () => requestOf(store.state).request, say });
// The panels mounted on the store follow every redraw, once things are quiet.
const panels = coalesced(() => store.changed());
const paint = createPaint(store, { walk, lessons, presetOf, modelHeads, panels });
const recompute = createCompute({ store, api, busy, paint, answered: () => shuffle.refresh() });
fitPresentMode(document.querySelector("#walk-panel .walk"));

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
  paint.inputs();
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
    if (store.state === opened) urls.edited({ history, now: true });
  }));
}

/** Back or Forward: the state of that history entry, whose URL is already written. */
function restore(hash) {
  const full = unstored(hash);
  if (full === null) {
    say("That view was kept in this tab only, and this tab no longer holds it.", { warning: true });
    return;
  }
  const source = modelHeads.sourceOf(full);
  if (source) {
    modelHeads.open(source, full);
    return;
  }
  setState(fromHash(full, DEFAULT).state);
  recompute();
  paint.inputs();
}

function setState(next) {
  store.set(next);
  store.look({ marks: new Map(), failure: null });
}

// ---- events ----

function selectRow(i, head = store.state.head) {
  const { state } = store;
  if (state.row === i && state.head === head) return;
  update({ ...state, row: i, head }, { history: "replace" });
  if (store.view.answer) paint.results();  // the highlight moves now; the working follows the answer
}

function wire() {
  wireInputs($("inputs"), { now, update, get pages() { return store.view.pages; },
    turnPage: (name, at) => store.look({ pages: new Map(store.view.pages).set(name, at) }), redraw: () => paint.inputs() });
  wireHeatmap({ now, body: () => store.view.answer, pointer: () => store.view.pointer, point, selectRow, update,
    drawResults: () => paint.results(), drawLink: paint.link });
  wireControls({ now, update, say, presets, presetState, initial: DEFAULT, redraw: () => paint.inputs() });
  $("scores").addEventListener("click", (e) => {  // a scaled score masks or unmasks its cell
    const td = e.target.closest('figure[data-key="SS"] tbody td');
    if (!td) return;
    const i = td.parentElement.sectionRowIndex;
    const j = td.cellIndex - 1;  // cell 0 is the row's header
    update(toggleBlocked(store.state, i, j));
  });
  wireCopyLink($("copy-link"), urls);
  wirePractiseLink($("practise-row"), () => requestOf(store.state).request);
  urls.listen(restore);
}

function start() {
  renderLegend($("legend"));
  const opened = unstored(location.hash);
  if (opened === null) {
    say("This view was kept in this tab only (it is too large for a link), and this tab no longer holds it; showing the default example.", { warning: true });
  }
  const hash = opened ?? "";
  const source = modelHeads.sourceOf(hash);
  const { state, problem } = source ? { state: DEFAULT, problem: null } : fromHash(hash, DEFAULT);
  store.set(state);
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
  if (source) modelHeads.open(source, hash);
  else writeWhenDrawn(drawn ?? Promise.resolve(), state, "replace");
  wire();
  // Head 1's inputs first; those of other heads and W_O (at 4 heads of 64 dimensions, 2,600
  // of the 3,600 inputs, and below the first screen) once the first answer has painted.
  const firstInputs = () => {
    if (paint.inputs({ later: new Set(matricesOf(store.state).slice(MATRICES.length)) })) {  // after X, W_Q, W_K, W_V
      settledWithin(drawn, REVEAL_MS).then(() => afterPaint(() => paint.inputs()));
    }
  };
  if (!embedded) {  // its request has left; the page may be shown at once, marked inputs and all
    firstInputs();
    mountsBelow.forEach((mount) => mount());
    return;
  }
  store.look({ answer: initial, answered: state });
  // The default view's answer: the rest comes in tasks and frames of their own, as one
  // task it was a phone's longest (benchmarks/bench_lighthouse.py). The inputs; the
  // results, with the working typeset before where it stands beside the heatmap, and
  // when it nears the screen where it is under it, below the first screen (results.js);
  // then the page is shown, and the lab and the export panel follow a frame apart: once
  // the page is laid out, the browser leaves them undrawn until they near the screen
  // (app.css).
  inBackground(firstInputs);
  katex.then(() => inBackground(() => {
    paint.results({ workingWhenNear: stacked });
    oneAFrame(reveal, ...mountsBelow);
  }));
}

/** The blocks at the bottom of the page, mounted once start() has drawn the view; all but
 *  the lab (told by results.js of the selected row) are mounted on the store. */
const mountsBelow = [() => mountLab($("lab-panel")),
  () => store.mount(mountExport($("export-panel"), exportPage(store, update))),
  () => store.mount(mountGenerate($("generate-panel"), { get: () => ({ state: store.state, request: requestOf(store.state).request }) })),
  () => store.mount(mountTiles($("tiles-panel"), tilesPage(store, paint.tile))),
  () => store.mount(mountCost($("cost-panel"), { get: () => ({ request: requestOf(store.state).request }) }))];

start();
