import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { crossWords, fieldsFor, noKeyWords } from "../../../../static/js/editor/results/results.js";
import { answer } from "../../../../static/js/lib/config.js";

// The config block's answer as the server sends it (tests/api/pages/test_routes.py checks the file).
const PAGE = JSON.parse(readFileSync(new URL("../../../data/page_answer.json", import.meta.url)));
Object.assign(answer, PAGE.config);

test("the fields asked come from the config block, the same as when they were typed here", () => {
  const sorted = (a) => [...a].sort();
  assert.equal(PAGE.editor_before.length, 6);
  for (const [args, before] of PAGE.editor_before) {
    assert.deepEqual(sorted(fieldsFor(...args)), sorted(before), JSON.stringify(args));
  }
});

test("a small view asks for every weight and score, and the 16 × 16 corners it prints", () => {
  const f = fieldsFor(3, false);
  for (const name of ["weights", "scores", "scaled_scores", "K", "V", "mask", "Q[:16,:16]", "output[:16,:16]"]) {
    assert.ok(f.includes(name), name);
  }
  assert.ok(!f.includes("Q") && !f.includes("weights_u8") && !f.includes("strongest_keys"));
});

test("beyond 24 tokens the heatmap comes as bytes and its rows' strongest keys, no scores", () => {
  const f = fieldsFor(512, false);
  assert.ok(f.includes("weights_u8") && f.includes("strongest_keys"));
  assert.ok(!f.includes("weights") && !f.includes("scores") && !f.includes("scaled_scores"));
  assert.ok(f.includes("working.weights"), "the selected row's weights stay exact");
  assert.deepEqual(fieldsFor(20, false, 0, 30).filter((x) => x.startsWith("weights")), ["weights_u8"],
    "30 keys make a canvas too (cross-attention)");
});

test("several heads: every head's heatmap, and the shown head's blocks only", () => {
  const small = fieldsFor(3, true, 1, 3);
  assert.ok(small.includes("heads.weights") && small.includes("heads[1].Q[:16,:16]"));
  assert.ok(small.includes("concat[:16,:16]") && small.includes("output[:16,:16]"));
  assert.ok(!small.some((x) => x.startsWith("heads[0].")), "head 1's matrices are not fetched");
  const big = fieldsFor(512, true, 2, 512);
  assert.ok(big.includes("heads.weights_u8") && big.includes("heads[2].strongest_keys"));
  assert.ok(!big.includes("heads.weights") && !big.some((x) => x === "heads[2].weights"));
});

test("the queries that may read no key are counted in agreement with their nouns", () => {
  assert.equal(noKeyWords([]), null);
  assert.equal(noKeyWords(["1 “the”"]), "Query 1 “the” may read no key: every weight of that row is 0, and so is its output.");
  assert.equal(noKeyWords(["1 “the”", "3 “sat”"]),
    "Queries 1 “the” and 3 “sat” may read no key: every weight of those rows is 0, and so are their outputs.");
});

test("cross-attention's note counts each sequence's tokens, one token as one", () => {
  assert.equal(crossWords(3, 4, false), "Queries come from X (3 tokens), keys and values from X_kv (4 tokens), so A is 3 × 4.");
  assert.equal(crossWords(1, 1, false), "Queries come from X (1 token), keys and values from X_kv (1 token), so A is 1 × 1.");
  assert.match(crossWords(3, 1, true), /^Queries come from X \(3 tokens\), keys and values from X_kv \(1 token\), so A is 3 × 1\. The causal mask is aligned at the top left/);
});
