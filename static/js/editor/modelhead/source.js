// A real model's head opened in the editor ("Open in the editor" on the real-model view):
// the fragment that names it, the request for its numbers, the state they make, and the
// cells the person changed since. Pure functions, unit-tested.
//
// The view links here with
//   #from=model&model=<id>&text=<text>&layer=<L>&head=<H>&row=<r or empty>&causal=<1|0>
// (layer, head and row 0-based). The state then carries ``source`` = {model, text, layer,
// head, base}, where ``base`` holds the head's own inputs as the state first had them (the
// same arrays: a transition copies only the rows it changes, so an unchanged row is still
// its base's). While the state keeps the base's shapes its URL is that reference, the
// options, and the cells changed (url.js): a 128-token SmolLM2 head is 184,320 numbers,
// ~3.7 MB written out, and Chrome refuses URLs over 2 MB.

import { formatNumber } from "../../lib/format.js";
import { readFragment } from "../../lib/fragment.js";
import { fragmentOf } from "../../model/state.js";
import { inputsOf } from "../state.js";
import { wholeIn } from "../../lib/whole.js";
import { count } from "../../lib/words.js";

/** What the editor asks POST /api/model/attention for (the contract's list). */
export const SOURCE_FIELDS = ["tokens", "X", "W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V", "positional", "rope_base", "causal"];

const whole = (s, what) => {
  const v = wholeIn(s);
  if (v === null) throw new Error(`${what} “${s ?? ""}” is not a whole number`);
  return v;
};

/** The real-model head a fragment names, {model, text, layer, head, row, causal}, or null
 *  when it names none (no from=model). Throws an Error saying what is wrong with it. */
export function readSource(hash) {
  const params = readFragment(hash);
  if (params.get("from") !== "model") return null;
  const model = params.get("model");
  const text = params.get("text");
  if (!model) throw new Error("the link names no model");
  if (!text) throw new Error("the link has no text");
  const row = params.get("row");
  return {
    model, text, layer: whole(params.get("layer"), "layer"), head: whole(params.get("head"), "head"),
    row: row === undefined || row === "" ? null : whole(row, "row"), causal: params.get("causal") === "1",
  };
}

/** The one key of a source's numbers (its model, text, layer and head). */
export const sourceKey = ({ model, text, layer, head }) => JSON.stringify([model, text, layer, head]);

/** The body of POST /api/model/attention for a source's inputs (the mask is the editor's
 *  own: causal is sent as the state's). */
export const sourceRequest = ({ model, text, layer, head }) => ({
  model, text, layer, head, fields: SOURCE_FIELDS, encoding: "base64",
});

/** A label as the editor may send it: a token longer than ``max`` characters (SmolLM2 has 7
 *  of 65 to 81, runs of spaces and dashes) is cut to ``max`` − 1 and "…"; the labels only
 *  name the rows, so no number changes. */
export function fitLabel(label, max) {
  const chars = [...label];
  return chars.length <= max ? label : chars.slice(0, max - 1).join("") + "…";
}

/** The state of a model's head: ``answer`` is the body POST /api/model/attention gave for
 *  sourceRequest(src) (arrays decoded: float64 numbers); every number becomes String(x), which
 *  reads back as the same float64. Biases on with the head's own (MiniLM); RoPE with the
 *  answer's θ (SmolLM2), or no positions (MiniLM's are already inside X); one head; the mask
 *  and the row as the link says. ``maxLabel``: the server's label limit. */
export function stateFromHead(answer, src, { seed = 1, maxLabel = Infinity } = {}) {
  const text = (m) => m.map((r) => r.map((v) => String(v)));
  const biased = answer.b_Q !== undefined && answer.b_Q !== null;
  const state = {
    tokens: answer.tokens.map((t) => fitLabel(t, maxLabel)), X: text(answer.X),
    W_Q: text(answer.W_Q), W_K: text(answer.W_K), W_V: text(answer.W_V),
    causal: src.causal, row: src.row !== null && src.row < answer.tokens.length ? src.row : null, seed,
    scale: "", positional: answer.positional === "rope" ? "rope" : "",
    rope_base: answer.positional === "rope" ? String(answer.rope_base) : "", offset: "0", alibi: "",
    biases: biased, blocked: [], X_kv: null, tokens_kv: null, heads: 1, kvHeads: 1, head: 0,
    window: "", sinks: "0", present: false,
  };
  if (biased) for (const b of ["b_Q", "b_K", "b_V"]) state[b] = text([answer[b]]);
  const base = {};
  for (const name of ["tokens", ...inputsOf(state)]) base[name] = state[name];
  state.source = { model: src.model, text: src.text, layer: src.layer, head: src.head, base };
  return state;
}

/** Whether ``state`` still has its source's shapes: the same inputs, each of the same size,
 *  and as many tokens (so its cells can be written as changes to the source's). */
export function keepsShapes(state) {
  const base = state.source?.base;
  if (!base) return false;
  const names = inputsOf(state);
  if (state.heads !== 1 || state.X_kv || names.length !== Object.keys(base).length - 1) return false;
  if (state.tokens.length !== base.tokens.length) return false;
  return names.every((name) => base[name] && state[name].length === base[name].length
    && state[name][0].length === base[name][0].length);
}

/** The cells of ``state`` that differ from its source's, [name, i, j, text] in order
 *  ("tokens" with j = 0 for a label), or null when the shapes differ (keepsShapes). Rows
 *  that are their base's arrays are skipped without a look. */
export function changedCells(state) {
  if (!keepsShapes(state)) return null;
  const { base } = state.source;
  const out = [];
  base.tokens.forEach((label, i) => { if (state.tokens[i] !== label) out.push(["tokens", i, 0, state.tokens[i]]); });
  for (const name of inputsOf(state)) {
    const now = state[name];
    base[name].forEach((row, i) => {
      if (now[i] === row) return;
      row.forEach((text, j) => { if (now[i][j] !== text) out.push([name, i, j, now[i][j]]); });
    });
  }
  return out;
}

/** What the source's note adds about the edits since: "; 1 number changed since", "; 3
 *  numbers changed since", the reshaping, or nothing. */
export function changedWords(state) {
  const changed = changedCells(state);
  return changed === null ? "; reshaped since, so its link holds the whole view"
    : changed.length ? `; ${count(changed.length, "number")} changed since` : "";
}

/** ``base`` with ``cells`` ([name, i, j, text]) written in; throws on a cell outside it. */
export function withCells(state, cells) {
  const out = { ...state };
  const copied = new Set();
  for (const [name, i, j, text] of cells) {
    const m = out[name];
    if (!Array.isArray(m) || i >= m.length || (name !== "tokens" && j >= m[i].length)) {
      throw new Error(`the changed cell ${name} ${i + 1}, ${j + 1} is outside the head`);
    }
    if (name === "tokens") {
      if (!copied.has(name)) out.tokens = [...out.tokens];
      copied.add(name);
      out.tokens[i] = text;
      continue;
    }
    const key = `${name}[${i}]`;
    if (!copied.has(name)) out[name] = [...m];
    copied.add(name);
    if (!copied.has(key)) out[name][i] = [...out[name][i]];
    copied.add(key);
    out[name][i][j] = text;
  }
  return out;
}

/** Whether an input's text is its source's number, long enough to be shown compactly: the
 *  3-decimal form derived values take, while the input is not focused (inputs.js). */
export function compactOf(state, name, i, j, text) {
  const base = state.source?.base?.[name];
  if (!base || base[i]?.[j] !== text) return null;  // typed (or not the source's): as typed
  const short = formatNumber(Number(text));
  return [...short].length < text.length ? short : null;  // "1" stays "1", not "1.000"
}

/** "SmolLM2-135M-Instruct, layer 4 head 6, on “…”": where the numbers came from, the
 *  layer and head counted from 1 as the page's names are. ``name``: the model's name, or
 *  its id while the list of models has not come. */
export function sourceWords(source, name) {
  return `${name ?? source.model}, layer ${source.layer + 1} head ${source.head + 1}, on “${source.text}”`;
}

/** The real-model view's fragment for a state's source, its row and mask as now. */
export function viewFragment(state) {
  const { model, text, layer, head } = state.source;
  return `#${fragmentOf({ model, text, layer, head, row: state.row, causal: state.causal })}`;
}
