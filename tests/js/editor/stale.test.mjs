import { test } from "node:test";
import assert from "node:assert/strict";
import { limits } from "../../../static/js/lib/config.js";
import { fromPreset } from "../../../static/js/editor/request.js";
import { setCell } from "../../../static/js/editor/state.js";
import { sameInputs, staleNote } from "../../../static/js/editor/stale.js";

Object.assign(limits, { tokens: 512, model_dim: 1024, dim: 256, label: 64, heads: 16 });

const CAT = fromPreset({
  tokens: ["the", "cat", "sat"], X: [[1, 0], [0, 1], [1, 1]], W_Q: [[1, 0], [1, 2]],
  W_K: [[2, 0], [0, 1]], W_V: [[1, 0], [0, 2]], causal: false,
});
const fresh = { shown: true, marked: false, failure: null, offline: false, answered: CAT, state: CAT };

test("an answer still answers a state whose inputs are the same arrays, whatever else changed", () => {
  assert.ok(sameInputs(CAT, CAT));
  assert.ok(sameInputs(CAT, { ...CAT, row: 2, head: 0, present: true }), "the selection and present mode are not inputs");
  assert.ok(!sameInputs(CAT, setCell(CAT, "X", 0, 0, "2")));
  assert.ok(!sameInputs(CAT, { ...CAT, causal: true }));
  assert.ok(!sameInputs(null, CAT), "no answer answers nothing");
});

test("the results are out of date only while an answer is shown, and the note says why", () => {
  assert.deepEqual(staleNote(fresh), { stale: false, why: "these numbers are being recomputed." });
  assert.equal(staleNote({ ...fresh, shown: false, marked: true }).stale, false, "nothing shown, nothing stale");
  assert.deepEqual(staleNote({ ...fresh, marked: true }), { stale: true, why: "fix the marked input and these numbers update." });
  assert.deepEqual(staleNote({ ...fresh, failure: "W_O has 3 rows, d_model is 2." }),
    { stale: true, why: "W_O has 3 rows, d_model is 2." });
  const edited = { ...fresh, state: setCell(CAT, "X", 0, 0, "2") };
  assert.deepEqual(staleNote(edited), { stale: true, why: "these numbers are being recomputed." });
  assert.deepEqual(staleNote({ ...edited, offline: true }),
    { stale: true, why: "the server cannot be reached; your edits are kept and sent when it answers." });
  assert.equal(staleNote({ ...edited, offline: true, marked: true }).why, "fix the marked input and these numbers update.",
    "a marked input is named before the server");
});
