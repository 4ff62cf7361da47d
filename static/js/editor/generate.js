// "Generate step by step": the causal view generated token by token with a key/value cache
// (POST /api/kv-cache). Step t adds token t: only q_t is computed against the cached keys
// and values, its row of A appears, and the cache grows by one row of K and one of V.
// "Step forward" and "Step back" (or → and ← inside the panel) move through the steps. The panel
// asks the server only once started, and again after an edit while it is open, so typing
// elsewhere costs nothing (a generation carries every step's working).

import { el } from "../lib/dom.js";
import { urls } from "../lib/config.js";
import { askServer } from "../lib/api.js";
import { formatNumber } from "../lib/format.js";
import { count as counted } from "../lib/words.js";
import { askedOnce, createStepper } from "../lib/stepper.js";
import { stepWords, sub, vector, weightCell } from "../draw/generation.js";

/** A so far: rows 0 … t of the generation, the newest outlined, a masked weight hatched
 *  (0); later rows not yet. */
function rowsSoFar(steps, t, tokens) {
  const body = tokens.map((token, i) => {
    const row = i <= t ? steps[i].weights : [];
    const ok = i <= t ? steps[i].working.allowed : [];  // a later key, or one out of the window
    const cells = tokens.map((_, j) => weightCell(i <= t ? (ok[j] ? row[j] : null) : undefined));
    return el("tr", { class: i === t ? "gen-new" : "" }, el("th", { scope: "row", text: `${i + 1} ${token}` }), ...cells);
  });
  return el("table", { class: "gen-grid", "aria-label": `A, rows 1 to ${t + 1} generated` },
    el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "query ↓ key →" }),
      ...tokens.map((k) => el("th", { scope: "col", text: k })))),
    el("tbody", {}, ...body));
}

/** The cache after step t: K or V, a row per token so far, the newest marked. */
function cacheTable(name, rows, tokens) {
  const t = rows.length - 1;
  return el("table", { class: "gen-cache", "aria-label": `${name} cache, ${counted(rows.length, "row")}` },
    el("caption", { text: `${name} (${rows.length} × ${rows[0].length})` }),
    el("tbody", {}, ...rows.map((r, j) => el("tr", { class: j === t ? "gen-new" : "" },
      el("th", { scope: "row", text: `${j + 1} ${tokens[j]}${j === t ? " (new)" : ""}` }),
      ...r.map((x) => el("td", { text: formatNumber(x) }))))));
}

/** Draw step t of ``answer`` (POST /api/kv-cache's) into ``view``. */
function drawStep(view, answer, t) {
  const s = answer.steps[t];
  const w = s.working;
  const i = t + 1;
  const words = stepWords(s, answer.steps.length);
  view.replaceChildren(
    el("div", { class: "gen-figures" }, rowsSoFar(answer.steps, t, answer.tokens),
      cacheTable("K", w.k, answer.tokens), cacheTable("V", w.v, answer.tokens)),
    el("p", { class: "gen-line", text: `q${sub(i)} = ${vector(w.q)}: the one new query` }),
    el("p", { class: "gen-line", text: `q${sub(i)}·kⱼ for the ${counted(w.dots.length, "cached key")} = ${vector(w.dots)}` }),
    el("p", { class: "gen-line", text: `Row ${i} of A = ${vector(s.weights)}; z${sub(i)} = ${vector(s.z)}` }),
    el("p", { class: "gen-cost", text: `${words.cost}. ${words.cache}.` }));
  return words.status;
}

/** The generation of the page's view, asked of the server when it is needed: ``steps()``
 *  resolves to POST /api/kv-cache's answer, or throws an Error saying why there is none. */
function createSource(page) {
  const ask = askedOnce((body) => askServer(body, urls.kv_cache));
  return async function steps() {
    const { request } = page.get();
    if (!request) throw new Error("Nothing to generate while a cell is not a number.");
    if (!request.causal) throw new Error("Generation is causal: turn on “Causal mask” above to step through it.");
    return ask({ ...request, fields: undefined, encoding: undefined, row: undefined });
  };
}

/** Build the panel in ``host``; ``page.get()`` gives {state, request} of the page as it is.
 *  Returns {changed}: the page calls it after every redraw. */
export function mountGenerate(host, page) {
  const previous = el("button", { type: "button", text: "Step back", disabled: true });
  const next = el("button", { type: "button", text: "Step forward" });
  // A live region of its own, as the export panel's: the page's one status line stays the page's.
  const status = el("p", { class: "gen-status", "aria-live": "polite" });
  const view = el("div", { class: "gen-view" });
  host.append(el("p", { class: "gen-note", text: "A decoder writes one token at a time. At step t it computes q, k " +
    "and v of token t only, and reads the keys and values of the tokens before from its cache: t dot " +
    "products, where computing every row again would take t²." }),
  el("div", { class: "gen-controls" }, previous, next), status, view);
  const stepper = createStepper({ host, previous, next, load: createSource(page),
    count: (answer) => answer.steps.length,
    draw: (answer, t) => { status.textContent = drawStep(view, answer, t); },
    fail: (err) => { status.textContent = err.message; view.replaceChildren(); } });
  // After an edit, a started generation follows the view (its step kept where it can be).
  return { changed: () => { if (stepper.started()) stepper.go(0); } };
}
