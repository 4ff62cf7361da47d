import { test } from "node:test";
import assert from "node:assert/strict";
import { checkBody, readAnswers } from "../../../static/js/practise/answers.js";

test("typed answers: empty blanks are left out, the page's minus is read, text is named", () => {
  const { answers, invalid } = readAnswers([
    { path: "working.weights[0]", text: " 0.187 " },
    { path: "working.weights[1]", text: "" },
    { path: "working.weights[2]", text: "\u22120.5" },
    { path: "working.z[0]", text: "0,5" },
  ]);
  assert.deepEqual(answers, { "working.weights[0]": 0.187, "working.weights[2]": -0.5 });
  assert.deepEqual(invalid, [{ path: "working.z[0]", message: "“0,5”: use a point for decimals, e.g. 0.5." }]);
  assert.deepEqual(checkBody({ seed: 17, level: "weights" }, answers),
    { seed: 17, level: "weights", answers });
});

test("an example of one's own is checked by its request", () => {
  const own = { seed: null, level: "z", request: { X: [[1]] } };
  assert.deepEqual(checkBody(own, { "working.z[0]": 1 }), { request: { X: [[1]] }, level: "z", answers: { "working.z[0]": 1 } });
});
