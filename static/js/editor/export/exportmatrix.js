// Which matrices the export panel offers and their text in each format, from the page as
// it is ({state, request, body}); a result the page holds only in part is fetched whole.
// No DOM: the panel (exportpanel.js) and its actions (exportactions.js) use these.

import { matrixToCSV, matrixToJSON, matrixToLatex, matrixToNumpy } from "./export.js";

// The matrices in the order of the calculation. `from`: the typed inputs (the request) or
// the engine's answer (the body). `rows`/`cols`: which labels name the rows and columns in
// CSV when they are tokens ("keys": the key/value tokens, the same ones in self-attention).
// `head`: with several heads, the shown head's own (under request.heads / body.heads);
// `several`: only with several heads. `name` is the file name and the Python variable.
const MATRICES = [
  { id: "X", text: "X (embeddings)", from: "request", rows: "tokens" },
  { id: "X_kv", text: "X_kv (key/value embeddings)", from: "request", rows: "keys" },
  ...["W_Q", "W_K", "W_V"].map((id) => ({ id, text: id, from: "request", head: true })),
  { id: "Q", text: "Q (queries)", from: "body", head: true, rows: "tokens" },
  { id: "K", text: "K (keys)", from: "body", head: true, rows: "keys" },
  { id: "V", text: "V (values)", from: "body", head: true, rows: "keys" },
  { id: "scores", text: "QKᵀ (scores)", from: "body", head: true, rows: "tokens", cols: "keys" },
  { id: "scaled_scores", text: "Scaled scores (the scale × QKᵀ)", from: "body", head: true, rows: "tokens", cols: "keys" },
  { id: "weights", name: "A", text: "A (weights)", from: "body", head: true, rows: "tokens", cols: "keys" },
  { id: "output", name: "Z", text: "Z (output)", from: "body", head: true, rows: "tokens" },
  { id: "concat", name: "Concat", text: "Concat (the heads' Z side by side)", from: "body", several: true, rows: "tokens" },
  { id: "W_O", text: "W_O", from: "request", several: true },
  { id: "final", key: "output", name: "output", text: "Output = Concat·W_O", from: "body", several: true, rows: "tokens" },
].map((m) => ({ key: m.id, name: m.id, ...m }));

export const FORMATS = {
  csv: { text: "CSV", ext: "csv", type: "text/csv" },
  json: { text: "JSON", ext: "json", type: "application/json" },
  latex: { text: "LaTeX", ext: "tex", type: "application/x-tex" },
  numpy: { text: "NumPy", ext: "py", type: "text/x-python" },
};

export const INVALID = "An input on the page is not a number yet: fix the marked cell, then export.";

/** What holds head k's ``key`` in ``source`` (the request or the answer): its heads[k], or
 *  for W_K and W_V of shared key/value heads the kv_heads entry head k reads. */
function headPart(source, k, key) {
  const kv = source?.kv_heads;
  return kv && /^W_[KV]$/.test(key) ? kv[Math.floor((k * kv.length) / source.heads.length)] : source?.heads?.[k];
}

/** One entry of MATRICES on this page: its matrix (or undefined), labels, name and text. */
function resolve({ state, request, body }, spec) {
  const k = spec.head && state.heads > 1 ? state.head : null;  // which head is shown
  const source = spec.from === "request" ? request : body;
  return {
    m: (k === null ? source : headPart(source, k, spec.key))?.[spec.key],
    labels: { tokens: source?.tokens, keys: source?.tokens_kv ?? source?.tokens },
    name: k === null ? spec.name : `${spec.name}_${k + 1}`,
    text: k === null ? spec.text : `${spec.text}, head ${k + 1}`,
    field: k === null ? spec.key : `heads[${k}].${spec.key}`,  // its name in the API's fields
  };
}

/** [rows, cols] of a result as the request computes it (the page fetches only corners of
 *  some, and none of others beyond 16 tokens). */
function wholeShape({ state, request }, spec) {
  const head = request.heads ? request.heads[state.head] : request;
  const n = request.X.length;
  const m = request.X_kv?.length ?? n;
  const d_v = (k) => (request.heads ? headPart(request, k, "W_V") : request).W_V[0].length;
  const d_k = head.W_Q[0].length;
  return {
    Q: [n, d_k], K: [m, d_k], V: [m, d_v(state.head)], scores: [n, m], scaled_scores: [n, m], weights: [n, m],
    output: [n, d_v(state.head)], concat: [n, (request.heads ?? [request]).reduce((w, _, k) => w + d_v(k), 0)],
    final: [n, request.X[0].length],
  }[spec.id];
}

/** The text of one matrix in one format: {ok, text, file, type, shape}, {ok: false, message}
 *  or, for a result the page's answer holds only in part, {ok: false, fetch: its API field}
 *  (exportMatrix fetches it). ``whole``: that result, fetched. */
export function matrixExport(now, id, format, whole = null) {
  const spec = MATRICES.find((m) => m.id === id);
  // With an invalid input the answer on screen is out of date too, so nothing is exported.
  if (!now.request) return { ok: false, message: INVALID };
  const { m: held, labels, name, text: title, field } = resolve(now, spec);
  if (spec.from === "body" && !now.body) return { ok: false, message: `${title} is not computed yet.` };
  let m = whole ?? held;
  if (spec.from === "body" && !whole) {
    const [rows, cols] = wholeShape(now, spec);
    if (!m || m.length !== rows || m[0].length !== cols) return { ok: false, fetch: field };
  }
  const named = { rowLabels: labels[spec.rows] ?? null, header: labels[spec.cols] ?? null };
  const text = format === "csv" ? matrixToCSV(m, named)
    : format === "json" ? matrixToJSON(m)
      : format === "latex" ? matrixToLatex(m, named)
        : `import numpy as np\n\n${matrixToNumpy(name, m)}`;
  const { ext, type } = FORMATS[format];
  return { ok: true, text, file: `${name}.${ext}`, type, shape: `${m.length} × ${m[0].length}` };
}

/** matrixExport, fetching what the answer holds only in part with ``fetchFields(fields)``
 *  (→ a decoded answer holding those fields). Resolves to {ok, …} as matrixExport does. */
export async function exportMatrix(now, id, format, fetchFields) {
  const out = matrixExport(now, id, format);
  if (!out.fetch) return out;
  const spec = MATRICES.find((m) => m.id === id);
  try {
    const answer = await fetchFields([out.fetch]);
    return matrixExport(now, id, format, resolve({ ...now, body: answer }, spec).m);
  } catch (err) {
    return { ok: false, message: `${resolve(now, spec).text} could not be fetched (${err.message}); try again.` };
  }
}

/** The choices, [{id, text}]: the inputs always (even while one is invalid), the results
 *  once there is an answer. */
export function available(now) {
  const { state } = now;
  return MATRICES.filter((s) => (s.several ? state.heads > 1 : true) && (s.from === "body"
    ? now.body : s.id !== "X_kv" || state.X_kv))
    .map((s) => ({ id: s.id, text: resolve(now, s).text }));
}
