// The layer × head grid's keyboard moves and size (static/js/model/grid.js).
import assert from "node:assert/strict";
import { test } from "node:test";
import { cellName, fits, gridMove } from "../../../static/js/model/grid.js";

test("the grid's arrows, Home, End and Page keys stay inside it", () => {
  const at = { layer: 0, head: 0 };
  assert.deepEqual(gridMove(at, "ArrowDown", 30, 9), { layer: 1, head: 0 });
  assert.deepEqual(gridMove(at, "ArrowUp", 30, 9), at);
  assert.deepEqual(gridMove(at, "ArrowLeft", 30, 9), at);
  assert.deepEqual(gridMove({ layer: 3, head: 8 }, "ArrowRight", 30, 9), { layer: 3, head: 8 });
  assert.deepEqual(gridMove({ layer: 3, head: 2 }, "End", 30, 9), { layer: 3, head: 8 });
  assert.deepEqual(gridMove({ layer: 3, head: 2 }, "End", 30, 9, true), { layer: 29, head: 8 });
  assert.deepEqual(gridMove({ layer: 25, head: 2 }, "PageDown", 30, 9), { layer: 29, head: 2 });
  assert.deepEqual(gridMove({ layer: 5, head: 11 }, "Home", 6, 12, true), { layer: 0, head: 0 });
  assert.equal(gridMove(at, "a", 30, 9), null);
  assert.equal(cellName(2, 4), "Layer 3 head 5");
});

test("an overview is drawn in a grid of its own size only", () => {
  const overview = (L, H) => ({ weights_u8: { shape: [L, H, 2, 2], data: new Uint8Array(L * H * 4) },
    first_token_share: Array.from({ length: L }, () => Array(H).fill(0.5)) });
  assert.equal(fits(overview(30, 9), 30, 9), true);
  assert.equal(fits(overview(6, 12), 30, 9), false);
  assert.equal(fits(overview(30, 9), 6, 12), false);
  assert.equal(fits(null, 6, 12), false);
});
