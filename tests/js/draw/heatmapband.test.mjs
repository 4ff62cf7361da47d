// A window's band and its sinks in words (static/js/draw/heatmapband.js), with the window
// lesson that counts them.
import { all, read } from "../fakedom.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import "../numberformat.mjs";
import { bandCounts } from "../../../static/js/editor/lessons/lessons.js";
import { windowLesson } from "../../../static/js/editor/lessons/lessonviews.js";
import { bandEdges, bandLegend, bandText } from "../../../static/js/draw/heatmapband.js";

const texts = (node) => all(node, "p").map(read);

test("window and sinks: the band's edges, its words and its counts", () => {
  const band = { window: 2, sinks: 1 };
  assert.deepEqual([0, 1, 2].map((i) => bandEdges(i, band, 3)), [{ left: null, right: 1 }, { left: null, right: null }, { left: 1, right: null }]);
  assert.equal(bandText(band, ["the", "cat", "sat"]),
    "Sliding window of 2: query i reads the keys j with |i − j| < 2, itself and up to 1 on either side, a band along the diagonal, outlined; cells outside it are masked; the sink, key 1 “the”, marked “sink”, stays readable from every query, so its column is open outside the band (unless another mask closes a cell).");
  assert.equal(bandText(null, []), "");
  assert.equal(bandLegend(band, ["the", "cat", "sat"]), "Dashed lines: the window's band, |i − j| < 2; cells outside it are masked. Marked “sink”: key 1, open to every query (its cells outside the band ringed with dots).");
  assert.equal(bandLegend({ window: 4, sinks: 0 }, ["the"]), "Dashed lines: the window's band, |i − j| < 4; cells outside it are masked.");
  // 3 tokens, causal, window 2, 1 sink: query 3 reads key 1 through the sink.
  const mask = [[true, false, false], [true, true, false], [true, true, true]];
  assert.deepEqual(bandCounts(mask, band), { outside: 2, open: 1, masked: 3 });
  const node = windowLesson({ band, mask, keys: ["the", "cat", "sat"] });
  assert.equal(texts(node)[1], "Of the 9 weights, 2 lie outside the band: 1 stays open because its key is a sink, the other 1 is masked.");
  assert.equal(texts(windowLesson({ band: { window: 3, sinks: 0 }, mask, keys: ["the", "cat", "sat"] }))[1],
    "Every one of the 9 weights is inside the band: a window of 3 changes nothing here.");
});
