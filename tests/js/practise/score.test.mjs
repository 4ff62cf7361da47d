import { test } from "node:test";
import assert from "node:assert/strict";
import { scoreText, tally } from "../../../static/js/practise/score.js";

test("the exercise's score counts each blank once, by the newest check", () => {
  assert.equal(scoreText(tally({})), "This exercise: no answer checked yet.");
  const results = { a: { correct: true }, b: { correct: false }, c: { correct: true } };
  assert.deepEqual(tally(results), { right: 2, answered: 3 });
  assert.equal(scoreText(tally(results)), "This exercise: 2 of 3 answers right.");
  assert.equal(scoreText(tally({ ...results, c: { correct: false } })), "This exercise: 1 of 3 answers right.");
  assert.equal(scoreText({ right: 1, answered: 1 }), "This exercise: 1 of 1 answer right.");
});
