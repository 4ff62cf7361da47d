import { test } from "node:test";
import assert from "node:assert/strict";
import { notWhole, SEED_MAX, typedSeed, wholeIn } from "../../../../static/js/editor/inputs/typed.js";

test("wholeIn reads whole numbers in range and nothing else", () => {
  assert.equal(wholeIn("64", 1, 512), 64);
  assert.equal(wholeIn(" 7 ", 1, 512), 7);
  assert.equal(wholeIn("512", 1, 512), 512);
  for (const text of ["", "0", "513", "2.5", "1e3", "-1", "abc", "12345678901"]) {
    assert.equal(wholeIn(text, 1, 512), null, text);
  }
});

test("notWhole names the field, the range and the text", () => {
  assert.equal(notWhole("Tokens", 1, 512, "abc"), "Tokens must be a whole number from 1 to 512; “abc” is not.");
});

test("typedSeed: a typed seed other than the state's, else null (draw a new one)", () => {
  assert.equal(typedSeed("42", 1), 42);
  assert.equal(typedSeed("0", 1), 0);
  assert.equal(typedSeed("42", 42), null);
  assert.equal(typedSeed("", 1), null);
  assert.equal(typedSeed("4.5", 1), null);
  assert.equal(typedSeed(String(SEED_MAX + 1), 1), null);
});
