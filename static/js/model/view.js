// Drawing the "Real model" view from its state and the answers kept: the model's words,
// the next tokens, the grid of heads, the chosen head's heatmap and its row's working. It
// only draws; model/main.js owns the state, the requests and the events.

import { el, setAttr, setProp, setText, symbols } from "../lib/dom.js";
import { renderHeatmap, renderLegend } from "../draw/heatmap.js";
import { renderGrid } from "./grid.js";
import { headKey } from "./request.js";
import { editorHref, rowOf } from "./state.js";
import { percent, visibleToken } from "./tokens.js";
import { explainX } from "./words.js";
import { typesetInSight } from "../draw/texsight.js";
import { LONG } from "../draw/workingtex.js";
import { renderWorking } from "../draw/working.js";

const $ = (id) => document.getElementById(id);

/** The parts of the page that depend on the model alone. */
export function drawModel(info) {
  setText($("model-shape"), `${info.layers} layers × ${info.heads} heads${info.kv_heads < info.heads ? ` (${info.kv_heads} key/value heads)` : ""}, head size ${info.d_head}`);
  setText($("text-limit"), `(up to ${info.max_tokens} tokens)`);
  setProp($("next-block"), "hidden", info.kind !== "decoder");
  setProp($("editor-rope"), "hidden", info.positional !== "rope");  // what the editor's link carries
}

/** Everything the state and the kept answer can show. ``view`` = {state, n: the state's
 *  text's token count once known (else null), info, answer (the merged answer: always of
 *  the state's model, model/request.js keptFor), shown: the state its head and working are for
 *  (null before the first), focus: {grid: {layer, head}, map: {i, j}}, expanded: every term
 *  of the dot products, opened: the working's folded steps are open, maths: KaTeX is
 *  loaded (or will not be), so the working can be drawn typeset, urls}. */
export function drawView({ state, n, shown, info, answer, focus, expanded, opened, maths, urls }) {
  const counterfactual = state.causal !== info.causal;
  // What the mask switch does, and that the grid stays the model's own run: the page's own
  // sentences, one per kind of model and mask (templates/model.html).
  for (const note of [$("causal-note"), $("grid-mask")]) {
    setText(note, note.dataset[`${info.kind}${counterfactual ? "Counter" : "Own"}`]);
    note.classList.toggle("is-counterfactual", counterfactual);
  }
  drawExplainX(info, (shown ?? state).layer);
  // The editor's link names the row shown: the last, until one is chosen.
  setAttr($("open-editor"), "href", editorHref(urls.index, n === null ? state : { ...state, row: rowOf(state, n) }));
  if (!answer.tokens) {
    clearAnswers(info);  // another model's, or none yet: nothing of it may stay
    return;
  }
  drawNext(answer.next_tokens, info);
  const overview = answer.overview ?? null;
  renderGrid($("grid"), { layers: info.layers, heads: info.heads, overview, causal: info.causal,
    selected: { layer: state.layer, head: state.head }, focus: focus.grid });
  setText($("grid-sym"), `— ${info.layers} × ${info.heads}`);
  if (!shown) return;
  // The head of the answer kept (a newer one's answer may be on its way: the old numbers stay).
  const title = `Layer ${shown.layer + 1} head ${shown.head + 1}`;
  const sym = shown.causal !== info.causal ? "— its weights, with the counterfactual mask" : "— its weights";
  if ($("h-head").dataset.title !== `${title}${sym}`) {
    $("h-head").dataset.title = `${title}${sym}`;
    $("h-head").replaceChildren(`${title} `, el("span", { class: "sym", text: sym }));
  }
  const count = answer.tokens.length;
  // Drawn again only when what it shows changes: a click's own drawing, before its answer,
  // filled the same 127 × 127 pixels and rows again (bench_browser.py, "head switch").
  const map = [headKey(shown), rowOf(shown, count), focus.map.i, focus.map.j].join("\n");
  if ($("heatmap").dataset.drawn !== map) {
    $("heatmap").dataset.drawn = map;
    renderHeatmap($("heatmap"), {
      weights: answer.weights, strongest: answer.strongest_keys, mask: answer.mask,
      tokens: answer.tokens, keys: answer.tokens, selected: rowOf(shown, count), focus: focus.map,
      name: `Attention weights, layer ${shown.layer + 1} head ${shown.head + 1}`,
    });
  }
  renderLegend($("legend"));
  if (maths) drawWorking(shown, info, answer, count, { expanded, opened });
}

/** "What is X here?" for the head's layer: in plain words, then the exact recipe. */
function drawExplainX(info, layer) {
  const host = $("explain-x");
  const [plain, recipe] = explainX(info, layer);
  if (host.dataset.key === plain + recipe) return;
  host.dataset.key = plain + recipe;
  host.replaceChildren(el("p", {}, ...symbols(plain)), el("p", {}, ...symbols(recipe)));
}

/** The grid, the next tokens, the head and the working, emptied: a new model's page shows
 *  nothing of the last one while its own answer is on its way. */
function clearAnswers(info) {
  renderGrid($("grid"), { layers: info.layers, heads: info.heads, overview: null, causal: info.causal,
    selected: { layer: -1, head: -1 }, focus: { layer: 0, head: 0 } });
  setText($("grid-sym"), `— ${info.layers} × ${info.heads}`);
  const list = $("next-tokens");
  if (list.dataset.key) {
    list.dataset.key = "";
    list.replaceChildren();
  }
  for (const id of ["heatmap", "working"]) {
    const host = $(id);
    if (!host.firstChild) continue;
    host.replaceChildren();
    delete host.dataset.size;
    delete host.dataset.drawn;
  }
  setText($("working-sym"), "");
}

function drawNext(next, info) {
  const list = $("next-tokens");
  if (info.kind !== "decoder" || !next) return;
  const key = next.map((t) => `${t.id}:${t.probability}`).join(",");
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.replaceChildren(...next.map((t) => el("li", {}, nextButton(t))));
}

/** What a next token's chip shows: a control token by what it marks ("end of turn"),
 *  any other by its text with its spaces made visible ("␣Paris"). */
export const chipText = (t) => (t.kind === "control" ? t.name : visibleToken(t.text));

/** A next token's button. Only a token the server calls appendable carries the text to
 *  append; any other (a control token, part of a character, one that would change the
 *  text's earlier tokens) stays focusable, dashed, and says why when pressed. */
function nextButton(t) {
  return el("button", { type: "button", class: "next-token",
    ...(t.appendable ? { "data-text": t.text }
      : { "aria-disabled": "true", "data-reason": t.reason, "aria-description": t.reason, title: t.reason }) },
  el("span", { class: t.kind === "control" ? "token control" : "token", text: chipText(t) }),
  el("span", { class: "probability", text: percent(t.probability) }));
}

function drawWorking(state, info, answer, n, { expanded, opened }) {
  const host = $("working");
  const w = answer.working;
  const long = answer.d_k > LONG;
  setProp($("dot-terms"), "hidden", !long);
  setAttr($("dot-terms"), "aria-pressed", String(expanded));
  setText($("dot-terms"), expanded ? `Show each dot product as its value` : `Show all ${answer.d_k} terms of each dot product`);
  const row = state.row !== null && state.row < n ? state.row : null;
  if (row === null || w?.row !== row) return;  // its working is on its way: the old one stays
  const shared = info.kv_heads < info.heads;
  const group = info.heads / info.kv_heads;
  const kv = shared ? { head: state.head, kvHead: answer.kv_head, kvHeads: info.kv_heads,
    readers: [...Array(info.heads).keys()].filter((h) => Math.floor(h / group) === answer.kv_head) } : null;
  const drawnKey = [state.model, state.text, state.layer, state.head, state.causal, row, expanded, opened].join("\n");
  if (host.dataset.drawn !== drawnKey) {
    host.dataset.drawn = drawnKey;
    // The chapter's steps first; what the model adds folded after them (working.js).
    renderWorking(host, { working: w, tokens: answer.tokens, keys: answer.tokens,
      d_k: answer.d_k, K: answer.K, V: answer.V, causal: answer.causal, ropeBase: answer.rope_base, offset: 0, kv,
      dotTerms: long ? (expanded ? "every" : "compact") : undefined, fold: true, open: opened,
      made: { d_model: info.d_model, layer: state.layer } });
    setText($("working-sym"), `— query ${row + 1}, “${answer.tokens[row]}”, layer ${state.layer + 1} head ${state.head + 1}`);
    // Its maths on the screen now, the rest (the folded steps, what is under the first
    // screen) as it comes near (texsight.js).
    typesetInSight(host);
  }
}
