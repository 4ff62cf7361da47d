// What the "Real model" view asks of POST /api/model/attention, and what it keeps of the
// answers: pure functions, unit-tested in tests/js/model/request.test.mjs.
//
// The server keeps the model's run per (model, text), so a head, mask or row switch on the
// same text costs only that head's arithmetic; the page asks only for what changes:
// the overview (every layer × head, one byte a weight) and the next tokens when the text
// or the model does, the head's own blocks when the head or the mask does, the working
// when the row does. Every array comes in base64 (float64 bytes): no number parsed from text.

import { decodeArray, decodeArrays } from "../lib/arrays.js";
import { answer } from "../lib/config.js";
import { rowOf } from "./state.js";

// What the view asks of each answer, as the server says (config.js's answer.model, from
// attention_api/real_models/request.py and the table of the answer's fields): the run's fields
// per (model, text), a decoder's next tokens, the head's per head and mask, and the parts
// of a row's working that renderWorking (working.js) writes, of the variants a model has.
// Read at each request, so a test may fill them in after import.
const asks = (part) => answer.model?.[part] ?? [];

/** The fields that ask for a row's working. */
export const workingFields = () => asks("working").map((f) => `working.${f}`);

/** The keys of what an answer holds: the run's (model, text), the head's, the row's. */
export const runKey = (s) => `${s.model}\n${s.text}`;
export const headKey = (s) => `${runKey(s)}\n${s.layer}\n${s.head}\n${s.causal ? 1 : 0}`;
export const rowKey = (s) => `${headKey(s)}\n${s.row}`;

/** What is kept before any answer: the keys of the parts received (run, head, row), the
 *  run's token count ``n``, the model they are of, the merged answer and the state its head
 *  and working are for (``shown``). */
export const nothingKept = () => ({ model: null, run: null, n: null, head: null, row: null, answer: {}, shown: null });

/** ``kept`` when its answers are of state ``s``'s model, else nothing: another model's grid,
 *  tokens or row must never be drawn under this one's name (nor its row asked of it). */
export const keptFor = (kept, s) => (kept.model === s.model ? kept : nothingKept());

/** The request for state ``s`` given what is kept (``have`` = {run, n, head, row}: the keys
 *  of the parts already received and the run's token count), or null when everything is
 *  there. ``decoder``: the model predicts next tokens. A row is asked only of a run whose
 *  tokens are known, and only one the text has (model/state.js rowOf): a new text's first
 *  request brings its tokens, the next its row's working. */
export function requestFor(s, have, decoder) {
  const fields = [];
  const known = have.run === runKey(s);
  const row = known ? rowOf(s, have.n) : null;
  if (!known) fields.push(...asks("run"), ...(decoder ? asks("decoder") : []));
  if (have.head !== headKey(s)) fields.push(...asks("head"));
  if (row !== null && have.row !== rowKey({ ...s, row })) fields.push(...workingFields());
  if (!fields.length) return null;
  // Every answer names its tokens, so the merged answer's are always those of the last.
  if (!fields.includes("tokens")) fields.unshift("tokens");
  return { model: s.model, text: s.text, layer: s.layer, head: s.head,
    ...(row === null ? {} : { row }), causal: s.causal, fields, encoding: "base64" };
}

/** An answer's arrays decoded. The overview's weights_u8 (layers × heads × n × n) stays one
 *  flat Uint8Array with its shape: 4.4 M bytes for SmolLM2 at 128 tokens, which nested
 *  lists would make ~35 MB of arrays. */
export function decodeAnswer(raw) {
  const overview = raw?.overview;
  if (!overview) return decodeArrays(raw);
  const { weights_u8: bytes, first_token_share: share } = overview;
  const flat = typeof bytes?.base64 === "string"
    ? { shape: bytes.shape, data: decodeFlat(bytes) }
    : { shape: shapeOf(bytes), data: Uint8Array.from(bytes.flat(3)) };
  return { ...decodeArrays({ ...raw, overview: undefined }),
    overview: { weights_u8: flat, first_token_share: typeof share?.base64 === "string" ? decodeArray(share) : share } };
}

function decodeFlat({ shape, base64 }) {
  const data = decodeArray({ dtype: "uint8", shape: [shape.reduce((a, b) => a * b, 1)], base64 });
  return Uint8Array.from(data);
}

const shapeOf = (a) => (Array.isArray(a) ? [a.length, ...shapeOf(a[0])] : []);

/** Layer l, head h's n × n bytes of an overview's flat weights_u8, as a view (no copy). */
export function overviewMap({ shape, data }, l, h) {
  const [, H, n, m] = shape;
  const size = n * m;
  return data.subarray((l * H + h) * size, (l * H + h + 1) * size);
}

/** What the page keeps after an answer to ``request`` arrives: the parts merged into
 *  ``kept``, each with its key, and ``shown``, the state the head and working on screen are
 *  for (its row null until that row's working has come). */
export function merged(kept, request, answer) {
  const s = { ...request, row: request.row ?? null };
  const asked = new Set(request.fields);
  const out = { ...kept, model: request.model, answer: { ...kept.answer, ...answer } };
  if (asked.has("overview")) {
    out.run = runKey(s);
    out.n = answer.tokens.length;
  }
  if (asked.has("weights")) {
    out.head = headKey(s);
    out.shown = s;
  }
  if (asked.has("working.row")) {
    out.row = rowKey(s);
    if (out.shown && headKey(out.shown) === headKey(s)) out.shown = { ...out.shown, row: s.row };
  }
  return out;
}
