import { test } from "node:test";
import assert from "node:assert/strict";
import { truncatedWords } from "../../../static/js/draw/matrix.js";

test("a corner's note names only what is cut, each count with its noun", () => {
  assert.equal(truncatedWords(16, 300, 2, 2), "Showing 16 of 300 rows.");
  assert.equal(truncatedWords(16, 300, 1, 1), "Showing 16 of 300 rows.");
  assert.equal(truncatedWords(16, 300, 16, 40), "Showing 16 of 300 rows and 16 of 40 columns.");
  assert.equal(truncatedWords(1, 1, 16, 20), "Showing 16 of 20 columns.");
});
