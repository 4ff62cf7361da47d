// The real-model view's "Generate step by step" (static/js/model/generate.js): the whole
// model's cache in words.
import assert from "node:assert/strict";
import "../numberformat.mjs";
import { test } from "node:test";
import { modelCacheWords } from "../../../static/js/model/generate.js";

const SMOLLM2 = { layers: 30, heads: 9, kv_heads: 3, d_head: 64 };

test("SmolLM2's cache: 2 · 30 · 3 · 64 numbers a token at 2 bytes, with and without shared heads", () => {
  // 11,520 numbers a token; × 2 bytes = 23,040 B; 5 tokens 115,200 B; 8,192 tokens
  // 188,743,680 B; without sharing 2 · 30 · 9 · 64 · 2 · 8,192 = 566,231,040 B.
  const cache = { per_token: 11520, without_sharing_per_token: 34560, bytes_per_number: 2, context: 8192,
    at_text: { tokens: 5, numbers: 57600, bytes: 115200 },
    at_context: { tokens: 8192, numbers: 94371840, bytes: 188743680, without_sharing_bytes: 566231040 } };
  assert.equal(modelCacheWords(cache, SMOLLM2),
    "The whole model's cache holds a key and a value for every layer and key/value head: " +
    "2 · 30 layers · 3 key/value heads · 64 = 11,520 numbers a token, 23 KB at 2 bytes a number " +
    "(16-bit, as servers keep it). At your 5 tokens: 115 KB; at the model's limit of 8,192 tokens: 189 MB. " +
    "Without grouped-query heads (9 key/value heads a layer, one a head) it would be 566 MB.");
  // A model whose every head has its own keys and values: 2 · 30 · 9 · 64 = 34,560 a token.
  const plain = modelCacheWords({ ...cache, per_token: 34560, at_text: { tokens: 1, numbers: 34560, bytes: 69120 },
    at_context: { ...cache.at_context, bytes: 566231040 } }, { ...SMOLLM2, kv_heads: 9 });
  assert.ok(plain.includes("9 key/value heads · 64 = 34,560 numbers a token, 69.1 KB at 2 bytes"));
  assert.ok(plain.includes("At your 1 token: 69.1 KB; at the model's limit of 8,192 tokens: 566 MB."));
  assert.ok(!plain.includes("Without grouped-query heads"));
});
