import assert from "node:assert/strict";
import { test } from "node:test";

import { fragmentOf, stateOf, typedIn, withTyped } from "../../../static/js/practise/state.js";

const BLANKS = ["working.weights[0]", "working.weights[1]", "heads[1].working.z[0]"];
const EXERCISE = { seed: 17, level: "weights", request: null, blanks: BLANKS };

test("a link's fragment types its numbers into the exercise's blanks, as they were typed", () => {
  const state = stateOf(EXERCISE, "#working.weights[1]=0.5&heads%5B1%5D.working.z%5B0%5D=%E2%88%920.25");
  assert.deepEqual(state, { seed: 17, level: "weights", request: null,
    typed: { "working.weights[1]": "0.5", "heads[1].working.z[0]": "−0.25" } });
  assert.deepEqual(stateOf(EXERCISE, "").typed, {});
});

test("keys that are no blank of this exercise, empty values and malformed escapes are left out", () => {
  assert.deepEqual(typedIn("#working.q[0]=1&working.weights[0]=&working.weights[1]=%zz&working.weights[1]=2", BLANKS), {});
  assert.deepEqual(typedIn("working.weights[0]=0,5", BLANKS), { "working.weights[0]": "0,5" });
});

test("typing makes a new state; an emptied blank is forgotten", () => {
  const before = stateOf(EXERCISE, "");
  const typed = withTyped(before, "working.weights[1]", "0.5");
  assert.deepEqual(before.typed, {}, "the old state is left as it was");
  assert.deepEqual(typed.typed, { "working.weights[1]": "0.5" });
  assert.deepEqual(withTyped(typed, "working.weights[1]", "").typed, {});
  assert.equal(withTyped(typed, "working.weights[0]", " 1 ").typed["working.weights[0]"], " 1 ");
});

test("the fragment lists the numbers typed in the blanks' order, and reads back the same", () => {
  const state = withTyped(withTyped(stateOf(EXERCISE, ""), "heads[1].working.z[0]", "−0.25 x&y"), "working.weights[0]", "0.5");
  const hash = fragmentOf(state, BLANKS);
  assert.equal(hash, "#working.weights[0]=0.5&heads[1].working.z[0]=%E2%88%920.25%20x%26y");
  assert.deepEqual(typedIn(hash, BLANKS), state.typed);
  assert.equal(fragmentOf(stateOf(EXERCISE, ""), BLANKS), "", "nothing typed: the query's URL alone");
});
