import { test } from "node:test";
import assert from "node:assert/strict";
import "../numberformat.mjs";
import { keptInside, keysText, moveFocus } from "../../../static/js/draw/heatmap.js";

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

test("a row's strongest keys, as the API gives them, are read out with their labels", () => {
  const tokens = ["a", "b", "c", "d", "e"];
  assert.equal(keysText([[1, 0.4], [3, 0.3], [4, 0.15]], tokens), "strongest keys: b 0.400, d 0.300, e 0.150");
  assert.equal(keysText([], tokens), "reads no key (all masked)");
});

test("the focus is kept inside a grid that shrank", () => {
  assert.deepEqual(keptInside({ i: 4, j: 2 }, 3, 5), { i: 2, j: 2 });
  assert.deepEqual(keptInside({ i: 1, j: 4 }, 3, 2), { i: 1, j: 1 });
  assert.deepEqual(keptInside({ i: 0, j: 0 }, 1, 1), { i: 0, j: 0 });
});
