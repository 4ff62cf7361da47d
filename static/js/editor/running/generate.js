// "Generate step by step": the causal view generated token by token with a key/value cache
// (POST /api/kv-cache). Step t adds token t: only q_t is computed against the cached keys
// and values, its row of A appears, and the cache grows by one row of K and one of V.
// "Step forward" and "Step back" (or → and ← inside the panel) move through the steps. The panel
// asks the server only once started, and again after an edit while it is open, so typing
// elsewhere costs nothing (a generation carries every step's working).

import { el } from "../../lib/dom.js";
import { urls } from "../../lib/config.js";
import { askServer } from "../../lib/api.js";
import { formatNumber } from "../../lib/format.js";
import { count as counted } from "../../lib/words.js";
import { askedOnce, createStepper } from "../../lib/stepper.js";
import { stepWords, sub, vector, weightCell } from "../../draw/generation.js";

/** A row's cells: its weights (a masked one hatched, 0) once generated, dots before. */
function rowCells(step, tokens, generated) {
  return tokens.map((_, j) => weightCell(!generated ? undefined : step.working.allowed[j] ? step.weights[j] : null));
}

/** The figures of a whole generation, built once an answer and shown a step at a time
 *  (show): A with a row per token, the K and V caches with a row per token. Built afresh at
 *  each step, 24 tokens' 1,344 cells took a step 33 ms (p95 66 ms) to paint
 *  (benchmarks/bench_browser.py --steppers); a step now writes only the rows it changes. */
function buildFigures({ steps, tokens }) {
  const grid = el("table", { class: "gen-grid" },
    el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "query ↓ key →" }),
      ...tokens.map((k) => el("th", { scope: "col", text: k })))),
    el("tbody", {}, ...tokens.map((token, i) => el("tr", { "data-generated": "false" },
      el("th", { scope: "row", text: `${i + 1} ${token}` }), ...rowCells(steps[i], tokens, false)))));
  const last = steps.at(-1).working;  // the cache after the last step: every earlier one is its first rows
  const cache = (name, rows) => el("table", { class: "gen-cache", "data-name": name, "data-width": rows[0].length },
    el("caption"),
    el("tbody", {}, ...rows.map((r, j) => el("tr", {},
      el("th", { scope: "row" }, `${j + 1} ${tokens[j]}`, el("span", { class: "gen-new-tag", text: " (new)" })),
      ...r.map((x) => el("td", { text: formatNumber(x) }))))));
  return el("div", { class: "gen-figures" }, grid, cache("K", last.k), cache("V", last.v));
}

/** Show step t in ``figures`` (buildFigures'): A's rows 1 … t + 1, the caches' too, the newest marked. */
function show(figures, { steps, tokens }, t) {
  const [grid, ...caches] = figures.querySelectorAll("table");
  grid.setAttribute("aria-label", `A, rows 1 to ${t + 1} generated`);
  [...grid.tBodies[0].rows].forEach((tr, i) => {
    tr.classList.toggle("gen-new", i === t);
    if (tr.dataset.generated === String(i <= t)) return;
    tr.dataset.generated = String(i <= t);
    tr.replaceChildren(tr.cells[0], ...rowCells(steps[i], tokens, i <= t));
  });
  for (const table of caches) {
    const name = table.dataset.name;
    table.setAttribute("aria-label", `${name} cache, ${counted(t + 1, "row")}`);
    table.caption.textContent = `${name} (${t + 1} × ${table.dataset.width})`;
    [...table.tBodies[0].rows].forEach((tr, j) => {
      tr.hidden = j > t;
      tr.classList.toggle("gen-new", j === t);
    });
  }
}

/** Draw step t of ``answer`` (POST /api/kv-cache's) into ``view``, whose figures are built
 *  once an answer. */
function drawStep(view, answer, t) {
  const s = answer.steps[t];
  const w = s.working;
  const i = t + 1;
  const words = stepWords(s, answer.steps.length);
  if (!built.has(view) || built.get(view).answer !== answer) {
    built.set(view, { answer, figures: buildFigures(answer) });
  }
  const { figures } = built.get(view);
  show(figures, answer, t);
  const lines = el("div", { class: "gen-lines" },
    el("p", { class: "gen-line", text: `q${sub(i)} = ${vector(w.q)}: the one new query` }),
    el("p", { class: "gen-line", text: `q${sub(i)}·kⱼ for the ${counted(w.dots.length, "cached key")} = ${vector(w.dots)}` }),
    el("p", { class: "gen-line", text: `Row ${i} of A = ${vector(s.weights)}; z${sub(i)} = ${vector(s.z)}` }),
    el("p", { class: "gen-cost", text: `${words.cost}. ${words.cache}.` }));
  // The figures stay in place (moved, the tables would be laid out afresh); the lines are new.
  if (view.firstChild === figures) view.lastChild.replaceWith(lines);
  else view.replaceChildren(figures, lines);
  return words.status;
}

const built = new WeakMap();  // a panel's view → the answer its figures were built for, and them

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
