import { test } from "node:test";
import assert from "node:assert/strict";
import { formatNumber } from "../js/format.js";
import { moveFocus, strongestKeys } from "../js/heatmap.js";

test("arrow keys move focus inside the grid and stop at its edges", () => {
  assert.deepEqual(moveFocus({ i: 0, j: 0 }, "ArrowUp", 3), { i: 0, j: 0 });
  assert.deepEqual(moveFocus({ i: 0, j: 0 }, "ArrowDown", 3), { i: 1, j: 0 });
  assert.deepEqual(moveFocus({ i: 2, j: 2 }, "ArrowRight", 3), { i: 2, j: 2 });
  assert.deepEqual(moveFocus({ i: 2, j: 2 }, "ArrowLeft", 3), { i: 2, j: 1 });
  assert.deepEqual(moveFocus({ i: 1, j: 1 }, "Home", 3), { i: 1, j: 0 });
  assert.deepEqual(moveFocus({ i: 1, j: 1 }, "End", 3, true), { i: 2, j: 2 });
  assert.deepEqual(moveFocus({ i: 1, j: 1 }, "PageDown", 30), { i: 11, j: 1 });
  assert.equal(moveFocus({ i: 1, j: 1 }, "a", 3), null);
});

test("the strongest keys of a row, largest first, masked keys skipped", () => {
  const tokens = ["a", "b", "c", "d", "e"];
  const row = [0.1, 0.4, 0.05, 0.3, 0.15];
  assert.equal(strongestKeys(row, [true, true, true, true, true], tokens),
    "strongest keys: b 0.400, d 0.300, e 0.150");
  assert.equal(strongestKeys(row, [true, false, true, true, true], tokens),
    "strongest keys: d 0.300, e 0.150, a 0.100");
  assert.equal(strongestKeys([1, 0], [true, false], ["a", "b"]), "strongest keys: a 1.000");
  assert.equal(strongestKeys([0, 0], [false, false], ["a", "b"]), "reads no key (all masked)");
});

test("the top three agree with a full sort on random rows", () => {
  const tokens = Array.from({ length: 40 }, (_, j) => `t${j}`);
  for (let trial = 0; trial < 200; trial++) {
    const row = tokens.map(() => Math.random());
    const allowed = tokens.map(() => Math.random() < 0.8);
    const want = tokens.map((_, j) => j).filter((j) => allowed[j]).sort((a, b) => row[b] - row[a]).slice(0, 3);
    const got = strongestKeys(row, allowed, tokens);
    const expected = want.length
      ? "strongest keys: " + want.map((j) => `${tokens[j]} ${formatNumber(row[j])}`).join(", ")
      : "reads no key (all masked)";
    assert.equal(got, expected);
  }
});
