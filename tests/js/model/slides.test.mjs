// A head's heatmap or a row's working as a slide (static/js/model/slides.js).
import assert from "node:assert/strict";
import { test } from "node:test";

test("a head's slide asks for the state's row, or leaves it to the server before the run", async () => {
  const { slideBody } = await import("../../../static/js/model/slides.js");
  const state = { model: "smollm2-135m", text: "The capital", layer: 3, head: 5, causal: true, row: 9 };
  assert.deepEqual(slideBody(state, 2, "working"),
    { model: "smollm2-135m", text: "The capital", layer: 3, head: 5, causal: true, row: 1, what: "working", format: "png" });
  assert.deepEqual(slideBody({ ...state, row: 0 }, 2, "heatmap").row, 0);
  assert.equal("row" in slideBody(state, null, "heatmap"), false);
});
