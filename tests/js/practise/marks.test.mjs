import { test } from "node:test";
import assert from "node:assert/strict";
import { spoken } from "../../../static/js/practise/marks.js";

test("what the live region says for a blank just entered", () => {
  assert.equal(spoken("Weight, key 2 (mat)", { correct: true }), "Weight, key 2 (mat): right.");
  assert.equal(spoken("Weight, key 2 (mat)", { correct: false, hint: "Your 1.000 is e^s₂ itself." }),
    "Weight, key 2 (mat): not yet. Your 1.000 is e^s₂ itself.");
  assert.equal(spoken("z, entry 1", undefined, "“x” is not a number."), "z, entry 1: “x” is not a number.");
});
