// The one reader of whole numbers, for both pages: the editor's URL, counts and seed, and
// the real-model view's layer, head and row.
import assert from "node:assert/strict";
import { test } from "node:test";

import { wholeIn } from "../../../static/js/lib/whole.js";

test("a whole number is digits alone, read in its range", () => {
  assert.equal(wholeIn("64", 1, 512), 64);
  assert.equal(wholeIn("512", 1, 512), 512);
  assert.equal(wholeIn("007", 0, 9), 7);
  assert.equal(wholeIn(" 7 ", 1, 512), 7, "as typed, spaces round it are no part of it");
  assert.equal(wholeIn("0"), 0, "from 0 up by default");
  assert.equal(wholeIn("999999999"), 999999999);
});

test("anything else is not one: null, never a guess", () => {
  for (const text of ["", " ", "0", "513", "2.5", "1e3", "-1", "\u22121", "+1", "0x10", "1 2", "abc", "١٢", "Infinity"]) {
    assert.equal(wholeIn(text, 1, 512), null, JSON.stringify(text));
  }
  assert.equal(wholeIn(undefined), null);
  assert.equal(wholeIn(null), null);
  // Past 2^53 a float64 no longer holds every whole number: "9007199254740993" would be
  // read as …992.
  assert.equal(wholeIn("9007199254740993"), null);
  assert.equal(wholeIn("9".repeat(400)), null);
});
