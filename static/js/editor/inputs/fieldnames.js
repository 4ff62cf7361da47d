// The names of the editor's inputs: a matrix's head, the accessible name of each cell and
// field (what the server's and the page's messages are about), and its element's id. Pure.

/** "W_Q_2" → {base: "W_Q", head: 2}, "b_K_3" → {base: "b_K", head: 3}; other names have
 *  head null. */
export function split(name) {
  const m = /^([Wb]_[QKV])_(\d+)$/.exec(name);
  return m ? { base: m[1], head: Number(m[2]) } : { base: name, head: null };
}

/** Whether ``name`` (W_K_2, b_V) belongs to a key/value head shared by several query heads. */
export const sharedKv = (name, kv) => kv && /^[Wb]_[KV]/.test(name);

/** The words before "row i column j" (or "column j" in a bias) in a cell's accessible name:
 *  "W_Q", "W_Q head 2", "b_Q head 2", and with key/value heads shared (``kv``) "W_K key/value
 *  head 2". Head 1's, and key/value head 1's, are the plain "W_K". */
export const cellPrefix = (name, kv = false) => {
  const { base, head } = split(name);
  return head === null ? base : `${base} ${sharedKv(name, kv) ? "key/value head" : "head"} ${head}`;
};

// The controls' fields that the request names (request.js), by their accessible names.
const CONTROLS = {
  scale: "Scale", rope_base: "RoPE base θ", position_offset: "Position offset", window: "Window",
  sinks: "Sinks", positional: "Positions", kv_heads: "Key/value heads",
};

/** The accessible name of a field as the page names it (request.js): "X[2][0]" → "X row 3
 *  column 1", "b_Q_2[0][0]" → "b_Q head 2 column 1", "alibi_slopes[1]" → "ALiBi slope head
 *  2"; with key/value heads shared (``kv``) "W_K_2[0][0]" → "W_K key/value head 2 row 1
 *  column 1". Null for a field the page has no input for. */
export function fieldName(field, kv = false) {
  let m = /^(X|W_[QKV](?:_\d+)?|W_O|X_kv)\[(\d+)\]\[(\d+)\]$/.exec(field);
  if (m) return `${cellPrefix(m[1], kv)} row ${Number(m[2]) + 1} column ${Number(m[3]) + 1}`;
  m = /^(b_[QKV](?:_\d+)?)\[0\]\[(\d+)\]$/.exec(field);
  if (m) return `${cellPrefix(m[1], kv)} column ${Number(m[2]) + 1}`;
  m = /^tokens\[(\d+)\]$/.exec(field);
  if (m) return `Token ${Number(m[1]) + 1} label`;
  m = /^tokens_kv\[(\d+)\]$/.exec(field);
  if (m) return `Key token ${Number(m[1]) + 1} label`;
  m = /^alibi_slopes\[(\d+)\]$/.exec(field);
  if (m) return `ALiBi slope head ${Number(m[1]) + 1}`;
  return CONTROLS[field] ?? null;
}

export const fieldId = (field) => "in-" + field.replace(/[[\]]+/g, "-").replace(/-$/, "");
