import { test } from "node:test";
import assert from "node:assert/strict";
import { fromPreset, setCell, setLabel } from "../../static/js/state.js";
import { fromHash, toHash } from "../../static/js/url.js";

// url.js alone: the state's URL form and its way back. How the URL follows each kind of
// state (several heads, a second sequence, present mode) is tested with those states in
// state.test.mjs.

const CAT = {
  tokens: ["the", "cat", "sat"], X: [[1, 0], [0, 1], [1, 1]], W_Q: [[1, 0], [1, 2]],
  W_K: [[2, 0], [0, 1]], W_V: [[1, 0], [0, 2]], causal: false,
};
const base = () => fromPreset(CAT);

test("the default example's URL is short and readable", () => {
  assert.equal(toHash(base()),
    "#tokens=the|cat|sat&X=1,0;0,1;1,1&W_Q=1,0;1,2&W_K=2,0;0,1&W_V=1,0;0,2&heads=1&head=0&causal=0&scale=&positional=0&blocked=&tokens_kv=&X_kv=&row=&seed=1&present=0");
});

test("a state survives the URL round trip, awkward text included", () => {
  let s = setLabel(base(), 0, "a|b,c;d%e & <img src=x>");
  s = setCell(s, "X", 1, 1, "1,5");  // an invalid cell is kept as typed
  s = { ...s, causal: true, row: 2, seed: 42, scale: "0.5", positional: true, blocked: [[0, 1], [2, 2]] };
  const { state, problem } = fromHash(toHash(s), base());
  assert.equal(problem, null);
  assert.deepEqual(state, s);
});

test("absent properties come from the fallback", () => {
  const { state } = fromHash("#causal=1", base());
  assert.equal(state.causal, true);
  assert.deepEqual(state.X, base().X);
});

test("a URL whose parts do not fit falls back with a reason", () => {
  for (const q of ["#X=1,0;0,1", "#W_Q=1;2;3", "#X=1,0;0", "#row=abc", "#tokens=%E0%A4%A",
    "#blocked=0-9", "#blocked=x"]) {
    const { state, problem } = fromHash(q, base());
    assert.deepEqual(state, base(), q);
    assert.match(problem, /could not be read/, q);
  }
});

test("a selected row beyond the tokens is dropped", () => {
  assert.equal(fromHash("#row=7", base()).state.row, null);
});
