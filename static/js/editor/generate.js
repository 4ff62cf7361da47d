// "Generate step by step": the causal view generated token by token with a key/value cache
// (POST /api/kv-cache). Step t adds token t: only q_t is computed against the cached keys
// and values, its row of A appears, and the cache grows by one row of K and one of V.
// "Step forward" and "Step back" (or → and ← inside the panel) move through the steps. The panel
// asks the server only once started, and again after an edit while it is open, so typing
// elsewhere costs nothing (a generation carries every step's working).

import { el } from "../lib/dom.js";
import { urls } from "../lib/config.js";
import { postOnce } from "../lib/api.js";
import { formatNumber } from "../lib/format.js";
import { rgbCss, textRGB, weightRGB } from "../lib/colour.js";
import { count as counted } from "../lib/words.js";

const vector = (xs) => `(${xs.map((x) => formatNumber(x)).join(", ")})`;
const SUBSCRIPT = "₀₁₂₃₄₅₆₇₈₉";
const sub = (i) => [...String(i)].map((d) => SUBSCRIPT[d]).join("");

/** What step ``s`` (one of POST /api/kv-cache's steps) says in words, for the status line
 *  and the cost line. Pure. */
export function stepWords(s, n) {
  const t = s.t + 1;
  return {
    status: `Step ${t} of ${n}: token ${t} “${s.token}” reads ${counted(s.working.allowed.filter(Boolean).length, "key")}`,
    cost: `${counted(s.cost.dot_products, "dot product")} with the cache, against ` +
      `${s.cost.without_cache} to compute every row again`,
    cache: `Cache: ${counted(s.cache.tokens, "token")}, ${s.cache.numbers} numbers, ${s.cache.bytes} bytes` +
      (s.cache.without_sharing !== s.cache.numbers
        ? ` (${s.cache.without_sharing} numbers without shared key/value heads)` : ""),
  };
}

function weightCell(w) {
  if (w === undefined) return el("td", { class: "gen-later", text: "·" });
  if (w === null) return el("td", { class: "gen-masked", text: "0", title: "masked" });
  const bg = weightRGB(w);
  const td = el("td", { text: formatNumber(w) });
  td.style.backgroundColor = rgbCss(bg);  // through the DOM: the page's CSP allows no style attribute
  td.style.color = rgbCss(textRGB(bg));
  return td;
}

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
  let answer = null;
  let sent = null;  // the request the answer is for, as JSON
  return async function steps() {
    const { request } = page.get();
    if (!request) throw new Error("Nothing to generate while a cell is not a number.");
    if (!request.causal) throw new Error("Generation is causal: turn on “Causal mask” above to step through it.");
    const json = JSON.stringify(request);
    if (json === sent) return answer;
    let reply;
    try {
      reply = await postOnce({ ...request, fields: undefined, encoding: undefined, row: undefined },
        { url: urls.kv_cache });
    } catch {
      throw new Error("The server cannot be reached; try again.");
    }
    if (reply.status !== 200) throw new Error(reply.body.error?.message ?? `The server answered ${reply.status}.`);
    [answer, sent] = [reply.body, json];
    return answer;
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
  const steps = createSource(page);
  let t = -1;  // the step shown; −1 before the first

  async function go(delta) {
    let answer;
    try {
      answer = await steps();
    } catch (err) {
      t = -1;
      [previous.disabled, next.disabled, status.textContent] = [true, false, err.message];
      view.replaceChildren();
      return;
    }
    const last = answer.steps.length - 1;
    t = Math.max(0, Math.min(last, t + delta));
    const focused = document.activeElement;
    [previous.disabled, next.disabled] = [t <= 0, t >= last];
    // A button disabled under the keyboard would drop the focus (and ← and → with it).
    if (focused === next && next.disabled) previous.focus();
    if (focused === previous && previous.disabled) next.focus();
    status.textContent = drawStep(view, answer, t);
  }

  next.addEventListener("click", () => go(1));
  previous.addEventListener("click", () => go(-1));
  host.addEventListener("keydown", (event) => {
    if (event.key === "ArrowRight" && !next.disabled) { event.preventDefault(); next.click(); }
    if (event.key === "ArrowLeft" && !previous.disabled) { event.preventDefault(); previous.click(); }
  });
  // After an edit, a started generation follows the view (its step kept where it can be).
  return { changed: () => { if (t >= 0) go(0); } };
}
