// The results' "out of date" mark: whether the numbers on screen still answer the inputs,
// and if not, why, said as it is. The decision is pure (staleNote, unit-tested); drawStale
// writes it into the page.

import { setProp, setText } from "../lib/dom.js";
import { inputsOf } from "./state.js";

// What a state sends besides its matrices (request.js).
const SETTINGS = ["tokens", "tokens_kv", "causal", "scale", "positional", "rope_base", "offset", "alibi",
  "biases", "window", "sinks", "blocked", "heads", "kvHeads"];

/** Whether an answer to state ``a`` still describes state ``b``'s inputs: when they are the
 *  very same arrays. Every transition makes new arrays for what it changes, so identity is
 *  enough (and free). */
export function sameInputs(a, b) {
  return a !== null && [...SETTINGS, ...inputsOf(b)].every((key) => a[key] === b[key]);
}

/** {stale, why} for the results: out of date while an answer is shown and an input is
 *  marked (``marked``), the server refused the newest request (``failure``, its message)
 *  or the answer is to other inputs (``answered``, the state it answers, against ``state``). */
export function staleNote({ shown, marked, failure, offline, answered, state }) {
  const stale = shown && (marked || failure !== null || !sameInputs(answered, state));
  // Say why, as it is: an input marked on the page, the server's own message, or no server.
  const why = marked ? "fix the marked input and these numbers update."
    : failure !== null ? failure
    : offline ? "the server cannot be reached; your edits are kept and sent when it answers."
    : "these numbers are being recomputed.";
  return { stale, why };
}

/** Mark the results out of date, or not, for the store's state and view; ``request`` is the
 *  state's request (null while an input is invalid). */
export function drawStale({ state, view }, request) {
  const { stale, why } = staleNote({ shown: view.answer !== null, marked: request === null || view.marks.size > 0,
    failure: view.failure, offline: view.offline, answered: view.answered, state });
  document.getElementById("results").classList.toggle("is-stale", stale);
  const note = document.getElementById("stale-note");
  setProp(note, "hidden", !stale);
  setText(note, `Out of date — ${why}`);
}
