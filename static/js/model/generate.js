// "Generate step by step" on the real-model view: the opened head of the decoder generating
// the text token by token from its key/value cache (POST /api/model/kv-cache). Step t adds
// token t: its one query reads the t keys cached so far, its row of weights appears, and
// the head's cache grows by a key and a value of d_head numbers each; beside it, what the
// cache of the whole model holds. An encoder generates nothing: the panel says so. As the
// editor's panel, it asks the server only once started, and again when the text, the model,
// the layer or the head changes while it is open.

import { el } from "../lib/dom.js";
import { urls } from "../lib/config.js";
import { askServer } from "../lib/api.js";
import { bytesText, grouped, vectorText } from "../lib/format.js";
import { count as counted } from "../lib/words.js";
import { askedOnce, createStepper } from "../lib/stepper.js";
import { stepWords, sub, weightCell } from "../draw/generation.js";

/** The whole model's cache in words, from the answer's ``model_cache`` and the model's
 *  sizes (``info``: layers, kv_heads, heads, d_head). Pure. */
export function modelCacheWords(cache, info) {
  const formula = `2 · ${info.layers} layers · ${info.kv_heads} key/value heads · ${info.d_head}`;
  const perToken = cache.per_token * cache.bytes_per_number;
  const shared = info.kv_heads < info.heads
    ? ` Without grouped-query heads (${info.heads} key/value heads a layer, one a head) it would be ` +
      `${bytesText(cache.at_context.without_sharing_bytes)}.` : "";
  return `The whole model's cache holds a key and a value for every layer and key/value head: ${formula} = ` +
    `${grouped(cache.per_token)} numbers a token, ${bytesText(perToken)} at ${cache.bytes_per_number} bytes a number ` +
    `(16-bit, as servers keep it). At your ${counted(cache.at_text.tokens, "token")}: ${bytesText(cache.at_text.bytes)}; ` +
    `at the model's limit of ${grouped(cache.context)} tokens: ${bytesText(cache.at_context.bytes)}.${shared}`;
}

/** The new row: token t's weight on each token so far, each in its colour. */
function newRow(step, tokens) {
  return el("ol", { class: "gen-strip", "aria-label": `Row ${step.t + 1} of A: the weights of token ${step.t + 1} on tokens 1 to ${step.t + 1}` },
    ...step.weights.map((w, j) => {
      const cell = weightCell(w, "li");
      cell.prepend(el("span", { class: "gen-key", text: tokens[j] }), " ");
      return cell;
    }));
}

/** Draw step t of ``answer`` into ``view``; returns the status line's words. */
function drawStep(view, answer, t, { info, state: { causal } }) {
  const s = answer.steps[t];
  const words = stepWords(s, answer.steps.length);
  const same = causal ? `the same numbers as row ${t + 1} of the heatmap above, computed from the cache alone`
    : "under the model's own causal mask (the heatmap above is under the one you chose)";
  view.replaceChildren(newRow(s, answer.tokens),
    el("p", { class: "gen-line", text: `Row ${t + 1} of A: ${same}. z${sub(t + 1)} = ${vectorText(s.z)}` }),
    el("p", { class: "gen-cost", text: `${words.cost}. This head's ${words.cache.charAt(0).toLowerCase()}${words.cache.slice(1)}: a key and a value of ${info.d_head} numbers a token, at 8 bytes (float64) here.` }),
    el("p", { class: "gen-cost", text: modelCacheWords(answer.model_cache, info) }));
  return words.status;
}

/** Build the panel in ``host``; ``page.get()`` gives {state, info} (the model's sizes).
 *  Returns {changed}: the page calls it after every change of its state. */
export function mountModelGenerate(host, page) {
  const previous = el("button", { type: "button", text: "Step back", disabled: true });
  const next = el("button", { type: "button", text: "Step forward" });
  const controls = el("div", { class: "gen-controls" }, previous, next);
  // A live region of its own: the page's one status line stays the page's.
  const status = el("p", { class: "gen-status", "aria-live": "polite" });
  const note = el("p", { class: "gen-note" });
  const view = el("div", { class: "gen-view" });
  host.append(note, controls, status, view);
  const ask = askedOnce((body) => askServer(body, urls.model_kv_cache));
  const load = async () => {
    const { state, info } = page.get();
    if (info.kind !== "decoder") throw new Error(encoderWords(info));
    return ask({ model: state.model, text: state.text, layer: state.layer, head: state.head });
  };
  const stepper = createStepper({ host, previous, next, load,
    count: (answer) => answer.steps.length,
    draw: (answer, t) => { status.textContent = drawStep(view, answer, t, page.get()); },
    fail: (err) => { status.textContent = err.message; view.replaceChildren(); } });
  const changed = () => {
    const { info } = page.get();
    const decoder = info.kind === "decoder";
    note.textContent = decoder ? `${info.name} writes one token at a time. At step t it computes q, k and v of ` +
      "token t only, and reads the keys and values of the tokens before from its cache: t dot products a " +
      "head, where computing every row again would take t²." : encoderWords(info);
    controls.hidden = !decoder;
    if (!decoder) {
      status.textContent = "";
      view.replaceChildren();
    } else if (stepper.started()) stepper.go(0);
  };
  changed();
  return { changed };
}

const encoderWords = (info) => `${info.name} is an encoder: it reads the whole text at once and ` +
  "generates nothing, so it keeps no key/value cache. Choose a decoder to step through its generation.";
