// "What is X here?" (static/js/model/words.js): plain words, then the recipe.
import assert from "node:assert/strict";
import { test } from "node:test";
import { explainX } from "../../../static/js/model/words.js";

const MODELS = [
  { id: "smollm2-135m", kind: "decoder", layers: 30, heads: 9, kv_heads: 3, max_tokens: 128, causal: true },
  { id: "minilm-l6", kind: "encoder", layers: 6, heads: 12, kv_heads: 12, max_tokens: 128, causal: false },
];

test("what X is: plain words first, then the recipe, for the layer asked", () => {
  const smol = { ...MODELS[0], d_model: 576, d_head: 64, rope_base: 100000 };
  const mini = { ...MODELS[1], d_model: 384, d_head: 32 };
  const [plain, recipe] = explainX(smol, 1);  // layer 2
  assert.match(plain, /^Here X holds one row for each token: that token's vector as layer 2 reads it, after the layer before, normalised\. /);
  assert.match(plain, /\(RoPE, θ = 100000\): X itself holds no position\.$/);
  assert.match(recipe, /^Exactly: X = RMSNorm\(h\) ⊙ g, where h is the residual stream: the token's embedding plus the attention and MLP outputs of the layer before/);
  assert.match(explainX(smol, 0)[1], /^Exactly: X = RMSNorm\(e_token\) ⊙ g, where e_token is the token's learned embedding \(576 numbers\)\./);
  const [first, embeddings] = explainX(mini, 0);
  assert.match(first, /as layer 1 reads it, its embedding, normalised\. W_Q, W_K and W_V \(384 × 32 for one head\) multiply it, each projection adding its bias\.$/);
  assert.match(embeddings, /^Exactly: X = LayerNorm\(e_token \+ e_position \+ e_type\)/);
  assert.match(explainX(mini, 5)[1], /^Exactly: X is layer 5's output\./);
});
