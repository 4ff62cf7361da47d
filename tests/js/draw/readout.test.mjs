import { test } from "node:test";
import assert from "node:assert/strict";
import "../numberformat.mjs";
import { cellFromPoint, EXACT_MAX, exactFields, labelStep, readoutText, scaleText, weightOf } from "../../../static/js/draw/readout.js";

const rect = { left: 100, top: 50, width: 300, height: 300 };

test("cellFromPoint: the cell under a point, null outside", () => {
  assert.deepEqual(cellFromPoint(rect, 100, 50, 30, 30), { i: 0, j: 0 });
  assert.deepEqual(cellFromPoint(rect, 100 + 10 * 4 + 5, 50 + 10 * 7 + 5, 30, 30), { i: 7, j: 4 });
  assert.deepEqual(cellFromPoint(rect, 399.9, 349.9, 30, 30), { i: 29, j: 29 });
  assert.deepEqual(cellFromPoint(rect, 100 + 150, 50 + 299, 30, 3), { i: 29, j: 1 }, "n × m, not square");
  assert.equal(cellFromPoint(rect, 99, 60, 30, 30), null);
  assert.equal(cellFromPoint(rect, 400, 60, 30, 30), null);
});

const body = {
  tokens: ["a", "b"], mask: [[true, false], [true, true]],
  weights_u8: [[255, 0], [32, 223]],
};

test("weightOf: exact weights, then the selected row's working, then the byte", () => {
  assert.deepEqual(weightOf({ ...body, weights: [[1, 0], [0.125, 0.875]] }, { i: 1, j: 0 }), { value: 0.125, exact: true });
  assert.deepEqual(weightOf({ ...body, working: { row: 1, weights: [0.1254, 0.8746] } }, { i: 1, j: 0 }), { value: 0.1254, exact: true });
  assert.deepEqual(weightOf({ ...body, working: { row: 0, weights: [1, 0] } }, { i: 1, j: 0 }), { value: 32 / 255, exact: false });
  assert.equal(weightOf({ tokens: ["a"], mask: [[true]] }, { i: 0, j: 0 }), null);
});

test("readoutText names the query, the key and the weight, and says when it is approximate", () => {
  assert.equal(readoutText({ ...body, weights: [[1, 0], [0.125, 0.875]] }, { i: 1, j: 0 }),
    "Query 2 “b”, key 1 “a”: weight 0.125");
  assert.equal(readoutText(body, { i: 1, j: 1 }),
    "Query 2 “b”, key 2 “b”: weight ≈ 0.875 (±0.002; select the row for its exact weights)");
  assert.equal(readoutText(body, { i: 0, j: 1 }), "Query 1 “a”, key 2 “b”: masked, weight 0");
  assert.equal(readoutText({ ...body, tokens_kv: ["x", "y"], weights: [[1, 0], [0.5, 0.5]] }, { i: 1, j: 1 }),
    "Query 2 “b”, key 2 “y”: weight 0.500");
  assert.match(readoutText(body, null), /^Point at a weight/);
});

test("exactFields asks for the shown head's weights up to EXACT_MAX weights", () => {
  assert.deepEqual(exactFields(30, 30, false, 0), ["weights"]);
  assert.deepEqual(exactFields(30, 30, true, 2), ["heads[2].weights"]);
  assert.deepEqual(exactFields(128, 128, false, 0), ["weights"]);
  assert.equal(128 * 128, EXACT_MAX);
  assert.deepEqual(exactFields(129, 128, false, 0), []);
});

test("labelStep: every label where they fit, else every k-th of 1, 2, 5, 10, …", () => {
  assert.equal(labelStep(18), 1);
  assert.equal(labelStep(12), 1);
  assert.equal(labelStep(8), 2);
  assert.equal(labelStep(3), 5);
  assert.equal(labelStep(1.06), 20);
  assert.equal(labelStep(0.5), 50);
});

test("scaleText says the screen pixels a weight takes, and when says that not every weight is drawn", () => {
  assert.equal(scaleText(40, 40, 322, 322), "each weight 8.1 × 8.1 screen pixels");
  assert.equal(scaleText(40, 40, 322, 322, 2), "each weight 16.1 × 16.1 screen pixels", "2 screen pixels a CSS pixel");
  assert.equal(scaleText(30, 60, 300, 300), "each weight 5.0 × 10.0 screen pixels", "across × down, n × m");
  assert.equal(scaleText(512, 512, 296, 296), "each weight 0.58 × 0.58 screen pixels: fewer pixels than weights, so not every weight is drawn");
  assert.equal(scaleText(512, 256, 300, 300), "each weight 1.2 × 0.59 screen pixels: fewer pixels than weights, so not every weight is drawn");
});
