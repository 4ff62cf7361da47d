// The "Real model" view's state and its URL fragment: pure functions, unit-tested in
// tests/js/model/state.test.mjs. One state object,
//   {model, text, layer, head, row, causal}
// layer, head and row 0-based (the page's names count from 1, "Layer 3 head 5"); row null
// for the text's last token, the one that predicts the next: how many tokens a text makes
// is the server's to say, so the state never holds it (rowOf reads the row with it);
// causal the mask asked for, the model's own unless the person asks for the counterfactual.
// The fragment holds the same six keys, so a link reproduces the view; the editor's link
// is the same fragment after "from=model" (the contract between the two pages). Both are
// read and written by fragment.js, their whole numbers by whole.js, as the editor's are.

import { readFragment, writeFragment } from "../lib/fragment.js";
import { wholeIn } from "../lib/whole.js";

export const DEFAULT_TEXT = "The capital of France is";

/** The model described by GET /api/models with id ``id``, else the first. */
export const modelOf = (models, id) => models.find((m) => m.id === id) ?? models[0];

/** The state a model opens with: its own mask, layer and head 1, the text kept. */
export function withModel(state, models, id) {
  const info = modelOf(models, id);
  return { ...state, model: info.id, layer: Math.min(state.layer, info.layers - 1),
    head: Math.min(state.head, info.heads - 1), row: null, causal: info.causal };
}

/** The first state: the default text on the first model. */
export const initialState = (models) => withModel(
  { model: models[0].id, text: DEFAULT_TEXT, layer: 0, head: 0, row: null, causal: models[0].causal }, models, models[0].id);

/** A whole number from 0 to count − 1 written in ``text``, else ``fallback``. */
const index = (text, count, fallback) => wholeIn(text, 0, count - 1) ?? fallback;

/** The state a fragment describes, each key checked against the models (anything missing
 *  or out of range falls back to the first state's). */
export function parseFragment(hash, models) {
  const pairs = readFragment(hash);
  const start = initialState(models);
  if (!pairs.has("model") && !pairs.has("text")) return start;
  const info = modelOf(models, pairs.get("model"));
  const text = pairs.get("text");
  const causal = pairs.get("causal");
  return {
    model: info.id,
    text: typeof text === "string" && text.trim() ? text : DEFAULT_TEXT,  // null: malformed
    layer: index(pairs.get("layer"), info.layers, 0),
    head: index(pairs.get("head"), info.heads, 0),
    row: index(pairs.get("row"), info.max_tokens, null),
    causal: causal === "1" ? true : causal === "0" ? false : info.causal,
  };
}

/** The view's own fragment, without "#": the state's keys in the contract's order. */
export const fragmentOf = (state) => writeFragment([["model", state.model], ["text", state.text],
  ["layer", state.layer], ["head", state.head], ["row", state.row ?? ""], ["causal", state.causal ? 1 : 0]]);

/** The editor's link for this head (url_for("pages.index") + the hand-off fragment). */
export const editorHref = (indexUrl, state) => `${indexUrl}#from=model&${fragmentOf(state)}`;

/** The row shown for a text of ``n`` tokens: the state's when the text has it, else the
 *  last (a link's row 40, or a row kept from a longer text, never reaches a request). */
export const rowOf = (state, n) => (state.row !== null && state.row < n ? state.row : n - 1);

/** Whether two states ask the same head of the same run. */
export const sameHead = (a, b) => a.model === b.model && a.text === b.text && a.layer === b.layer
  && a.head === b.head && a.causal === b.causal;

/** The text with a next token's raw text (" Paris") appended: generation by one token. */
export const appended = (text, tokenText) => text + tokenText;
