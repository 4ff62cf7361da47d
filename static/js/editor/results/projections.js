// The projections' blocks beyond Q, K and V themselves: their captions (what they really
// multiply), PE and X + PE with positions, and present mode's rows used by the selected
// query. Drawn by results.js.

import { renderMatrix } from "../../draw/matrix.js";
import { enteringRow } from "../walk/walk.js";

const $ = (id) => document.getElementById(id);

/** What the projections compute, for their captions: "= X·W_Q + b_Q, rotated by
 *  position (RoPE)"; K and V from key/value head ``kvHead`` when the head shares one. */
export function projectionWords(inputs, head, kvHead, { qIn, kvIn }) {
  const h = inputs?.heads ? inputs.heads[head] : inputs ?? {};
  const kv = kvHead !== undefined && inputs?.kv_heads ? inputs.kv_heads[kvHead] : h;
  const rope = inputs?.positional === "rope" ? ", rotated by position (RoPE)" : "";
  return { Q: `= ${qIn}·W_Q${h.b_Q ? " + b_Q" : ""}${rope}`, K: `= ${kvIn}·W_K${kv.b_K ? " + b_K" : ""}${rope}`,
    V: `= ${kvIn}·W_V${kv.b_V ? " + b_V" : ""}` };
}

/** With positions: PE and X + PE (and for X_kv), the matrices the projections multiply.
 *  X + PE is added here from the request's X: a float64 sum, the same the engine makes. */
export function drawPositions(body, inputs, labels, keyLabels, sel, keys, figure) {
  const host = $("positions");
  if (!body.positional_encoding) {
    host.replaceChildren();
    return;
  }
  const plus = (X, PE) => PE.map((r, i) => r.map((pe, c) => X[i][c] + pe));
  const d_model = inputs.X[0].length;
  const parts = [["PE", body.positional_encoding, inputs.X, "n", labels, sel, "sinusoidal positions, added to X"],
    ...(body.positional_encoding_kv ? [["PEkv", body.positional_encoding_kv, inputs.X_kv, "m", keyLabels, keys, "sinusoidal positions, added to X_kv"]] : [])];
  for (const [key, PE, X, rows, rowLabels, highlight, words] of parts) {
    const kv = key === "PEkv" ? "_kv" : "";
    const size = { size: [X.length, d_model], shape: `${X.length} × ${d_model}  (${rows} × d_model)` };
    const what = kv ? "what W_K and W_V multiply" : body.tokens_kv ? "what W_Q multiplies" : "what W_Q, W_K and W_V multiply";
    renderMatrix(figure(host, key), { data: PE, caption: [`PE${kv}`, words], ...size, rowLabels, highlight });
    renderMatrix(figure(host, `XP${kv}`), { data: plus(X, PE), caption: [`X${kv} + PE${kv}`, what], ...size, rowLabels, highlight });
  }
  if (!body.positional_encoding_kv) for (const k of ["PEkv", "XP_kv"]) host.querySelector(`[data-key="${k}"]`)?.remove();
}

/** Present mode: the rows the selected query uses, beside its working — x_i (what
 *  enters the projections), q_i, and the keys' and values' rows. ``body`` null: none. */
export function drawRowsUsed(body, row, inputs, labels, keyLabels, keys, figure) {
  const host = $("qkv");
  if (!body || row === null) {
    host.replaceChildren();
    return;
  }
  const x = enteringRow(inputs.X, body.positional_encoding, row);  // null: PE_i not fetched whole
  const pe = Boolean(body.positional_encoding);
  const one = [labels[row]];
  const all = (key, M, words) => renderMatrix(figure(host, key), {
    data: M, caption: [words[0], words[1]], shape: `${M.length} × ${M[0].length}`,
    rowLabels: keyLabels, highlight: keys });
  const q = body.working?.row === row ? body.working.q : body.Q[row];
  const d_model = inputs.X[0].length;
  if (x) {
    const fig = figure(host, "qx");
    renderMatrix(fig, { data: [x], caption: [pe ? `x_${row + 1} + PE_${row + 1}` : `x_${row + 1}`, ""], size: [1, d_model], shape: `1 × ${d_model}`, rowLabels: one, highlight: new Set([0]) });
    if (host.firstChild !== fig) host.prepend(fig);  // x_i comes first, as in the calculation
  } else {
    host.querySelector('[data-key="qx"]')?.remove();
  }
  renderMatrix(figure(host, "qq"), { data: [q], caption: [`q_${row + 1}`, ""], shape: `1 × ${q.length}`, rowLabels: one, highlight: new Set([0]) });
  all("qk", body.K, ["K", "the keys k_j"]);
  all("qv", body.V, ["V", "the values v_j"]);
}
