import { test } from "node:test";
import assert from "node:assert/strict";
import { features } from "../../../../static/js/editor/inputs/beyond.js";
import { limits } from "../../../../static/js/lib/config.js";
import { setBiases, setHeadCount, setKvHeads } from "../../../../static/js/editor/inputs/heads.js";
import { fromPreset } from "../../../../static/js/editor/request.js";
import { setCross } from "../../../../static/js/editor/state.js";

Object.assign(limits, { tokens: 512, model_dim: 1024, dim: 256, label: 64, heads: 16 });

const CAT = fromPreset({
  tokens: ["the", "cat", "sat"], X: [[1, 0], [0, 1], [1, 1]], W_Q: [[1, 0], [1, 2]],
  W_K: [[2, 0], [0, 1]], W_V: [[1, 0], [0, 2]], causal: true,
});

test("the chapter's own view uses nothing of the group, whatever its seed, mask or scale", () => {
  assert.deepEqual(features({ ...CAT, seed: 42, scale: "1", blocked: [[0, 1]] }), []);
});

test("each feature beyond the chapter is named, in the group's order", () => {
  const all = { ...setBiases(setKvHeads(setHeadCount(setCross(CAT, true), 4), 2), true),
    positional: "rope", window: "3", sinks: "1" };
  assert.deepEqual(features(all), [
    ["heads", "4 heads"], ["kv", "2 key/value heads"], ["cross", "cross-attention"], ["biases", "biases"],
    ["positions rope", "rotary positions"], ["window sinks", "a window of 3 with 1 sink"]]);
  assert.deepEqual(features(setKvHeads(setHeadCount(CAT, 2), 1)), [["heads", "2 heads"], ["kv", "1 key/value head"]]);
  assert.deepEqual(features({ ...CAT, positional: "sinusoidal" }), [["positions sinusoidal", "sinusoidal positions"]]);
  assert.deepEqual(features({ ...CAT, positional: "alibi", window: "2", sinks: "2" }),
    [["positions alibi", "ALiBi"], ["window sinks", "a window of 2 with 2 sinks"]]);
  // Text typed and not yet a number: the window is in use all the same, its size unsaid.
  assert.deepEqual(features({ ...CAT, window: "tw", sinks: "0" }), [["window", "a window"]]);
  assert.deepEqual(features({ ...CAT, window: "2", sinks: "x" }), [["window sinks", "a window of 2"]]);
});
