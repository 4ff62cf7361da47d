// The "Real model" view (templates/model.html), on the editor's one path: an event makes a
// new state (model/state.js) and hands it to update(), which writes the URL's fragment
// (history.js: a history entry a change, which Back undoes), asks for what the kept answers
// lack (model/request.js) and tells the panels mounted on the page's one store to draw. An
// answer is kept in the store's view, beside the state; it never writes back into the state.
//
// The store (lib/store.js): ``state`` {model, text, layer, head, row, causal}, which the
// URL mirrors; ``view`` {kept: the answers' parts (model/request.js), waiting: a request is
// on its way, focus: {grid: {layer, head}, map: {i, j}}, expanded: every term of the dot
// products, opened: the working's folded steps, maths: KaTeX is loaded (or will not be),
// lost: the server cannot be reached, tile: the tile "Step through the tiles" is at}.

import { createApi } from "../lib/api.js";
import { urls } from "../lib/config.js";
import { createHistory } from "../lib/history.js";
import { createStore, whenChanged } from "../lib/store.js";
import { katexReady } from "../draw/tex.js";
import { decodeAnswer, keptFor, merged, nothingKept, requestFor, runKey } from "./request.js";
import { fragmentOf, modelOf, parseFragment, rowOf } from "./state.js";
import { drawView } from "./view.js";
import { mountControls, textError } from "./controls.js";
import { wireHead } from "./head.js";
import { wireSlide } from "./slides.js";
import { mountModelGenerate } from "./generate.js";
import { mountModelTiles } from "./tiles.js";

const $ = (id) => document.getElementById(id);
const { models } = JSON.parse($("models-data").textContent);

const first = parseFragment(location.hash, models);
const store = createStore({ state: first, view: {
  kept: nothingKept(), waiting: false, focus: { grid: { layer: first.layer, head: first.head }, map: { i: 0, j: 0 } },
  expanded: false, opened: false, maths: false, lost: false, tile: null,
} });

const info = () => modelOf(models, store.state.model);

/** The token count of the state's text, once its run has come (else null). */
const tokenCount = () => (store.view.kept.run === runKey(store.state) ? store.view.kept.n : null);

function status(text) {
  $("status").textContent = text;
}

const api = createApi({ url: urls.model_attention, decode: decodeAnswer, onConnection: (up) => {
  store.look({ lost: !up });
  status(up ? "" : "The server cannot be reached just now; trying again on its own…");
} });
// The fragment is a few hundred characters: written in the change's own event.
const history = createHistory(() => store.state, { encode: (s) => `#${fragmentOf(s)}`, immediate: () => true });

// ---- the one path of every change ----

/** The state is ``next``: its URL is written (``history`` "push", an entry of its own,
 *  joined by the next changes of the same ``field``, or "replace"), then what it needs is
 *  asked for and drawn. */
function update(next, { history: kind = "push", field = null } = {}) {
  store.set(next);
  history.edited({ history: kind, field });
  refresh();
}

/** Back or Forward: the state of that entry, whose URL is already written. */
function restore(hash) {
  controls.restored();  // what was being typed gives way to the entry returned to
  const state = parseFragment(hash, models);
  store.set(state);
  store.look({ focus: { ...store.view.focus, grid: { layer: state.layer, head: state.head } } });
  refresh();
}

/** Ask for whatever the state needs and the kept answers lack; draw what comes. */
async function refresh() {
  const kept = keptFor(store.view.kept, store.state);
  const request = requestFor(store.state, kept, info().kind === "decoder");
  const answer = request && api.compute(request);  // first, so it travels while the page draws
  store.look({ kept, waiting: Boolean(request) });
  store.changed();
  // Busy while the numbers on screen are not yet the state's (the browser tests wait on it).
  $("page").setAttribute("aria-busy", String(Boolean(request)));
  if (!request) return;
  const slow = setTimeout(() => { if (!store.view.lost) status("Reading the model…"); }, 300);
  const result = await answer;
  clearTimeout(slow);
  if (result === null) return;  // a newer request has it
  const { status: code, body } = result;
  if (code !== 200) {
    const { message, field } = body.error ?? { message: `The server answered ${code}.` };
    if (field === "text") textError(message);
    else status(message);
    if (!store.view.lost && field === "text") status("");
    $("page").setAttribute("aria-busy", "false");
    return;
  }
  status("");
  textError(null);
  settle(request, body);
  refresh();
}

/** Keep an answer's parts. A new text's focus starts on the row shown; otherwise it stays,
 *  within the text. */
function settle(request, body) {
  const { kept, focus } = store.view;
  const fresh = kept.run !== runKey(request);
  const n = body.tokens.length;
  const map = fresh ? { i: rowOf(store.state, n), j: 0 }
    : { i: Math.min(focus.map.i, n - 1), j: Math.min(focus.map.j, n - 1) };
  store.look({ kept: merged(kept, request, body), focus: { ...focus, map } });
}

// ---- the panels, told of every change in this order ----

const page = { store, models, info, tokenCount, update, status };
const controls = store.mount(mountControls(page));
store.mount({ changed: ({ state, view }) => drawView({ state, n: tokenCount(), shown: view.kept.shown, info: info(),
  answer: view.kept.answer, focus: view.focus, expanded: view.expanded, opened: view.opened, maths: view.maths, urls }) });
store.mount(mountModelTiles($("tiles-panel"), page));
// Asked again when the state changes (the text, the model, the head; the mask's words).
const generate = mountModelGenerate($("generate-panel"), { get: () => ({ state: store.state, info: info() }) });
store.mount(whenChanged((s) => JSON.stringify(s.state), () => generate.changed()));

wireHead(page);
for (const [id, what] of [["heatmap-slide", "heatmap"], ["working-slide", "working"]]) {
  wireSlide($(id), what, urls.model_slide, () => ({ state: store.state, n: tokenCount() }), status);
}

// KaTeX's build, loaded at once: the working is on the first screen, and is drawn once its
// maths can be typeset in the same frame (lines laid out untypeset first, then typeset,
// moved everything under them).
katexReady().catch(() => {}).finally(() => {
  store.look({ maths: true });
  store.changed();
});

history.listen(restore);
history.edited({ history: "replace" });  // the URL in its normal form, in the entry opened
refresh();
