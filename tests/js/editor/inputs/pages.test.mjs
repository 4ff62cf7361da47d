import { test } from "node:test";
import assert from "node:assert/strict";
import { pageText, turned, windowOf } from "../../../../static/js/editor/inputs/pages.js";

test("windowOf: the first page, a later one, and a last page cut short", () => {
  assert.deepEqual(windowOf(undefined, 40, 2, 16), { r0: 0, r1: 16, c0: 0, c1: 2 });
  assert.deepEqual(windowOf({ row: 16, col: 0 }, 40, 2, 16), { r0: 16, r1: 32, c0: 0, c1: 2 });
  assert.deepEqual(windowOf({ row: 32, col: 0 }, 40, 2, 16), { r0: 32, r1: 40, c0: 0, c1: 2 });
  assert.deepEqual(windowOf({ row: 20, col: 0 }, 40, 2, 16), { r0: 16, r1: 32, c0: 0, c1: 2 }, "on a page boundary");
});

test("windowOf keeps a page inside a matrix that shrank", () => {
  assert.deepEqual(windowOf({ row: 32, col: 16 }, 20, 10, 16), { r0: 16, r1: 20, c0: 0, c1: 10 });
  assert.deepEqual(windowOf({ row: 16, col: 0 }, 16, 3, 16), { r0: 0, r1: 16, c0: 0, c1: 3 });
});

test("turned moves one page along one axis and stops at the ends", () => {
  assert.deepEqual(turned({ row: 0, col: 0 }, "rows", 1, 40, 20, 16), { row: 16, col: 0 });
  assert.deepEqual(turned({ row: 32, col: 0 }, "rows", 1, 40, 20, 16), { row: 32, col: 0 });
  assert.deepEqual(turned({ row: 16, col: 0 }, "cols", 1, 40, 20, 16), { row: 16, col: 16 });
  assert.deepEqual(turned({ row: 16, col: 16 }, "cols", -1, 40, 20, 16), { row: 16, col: 0 });
  assert.deepEqual(turned({ row: 0, col: 0 }, "rows", -1, 40, 20, 16), { row: 0, col: 0 });
});

test("pageText numbers from 1", () => {
  assert.equal(pageText("rows", 16, 32, 40), "Rows 17–32 of 40");
  assert.equal(pageText("cols", 0, 16, 20), "Columns 1–16 of 20");
  assert.equal(pageText("rows", 16, 17, 17), "Row 17 of 17");
});
