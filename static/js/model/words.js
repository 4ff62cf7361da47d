// What the "Real model" view says in words about X, the opened head's input: first what it
// is, plainly, then the exact recipe, which reproduces the API's X (tests/browser/
// test_model_view.py follows MiniLM's from its file's tensors). Pure, unit-tested in
// tests/js/model/words.test.mjs; "W_Q" and "e_token" become subscripts where they are drawn.

/** "after the 2 layers before", for a layer numbered from 1 past the first. */
const before = (layer) => (layer === 2 ? "the layer before" : `the ${layer - 1} layers before`);

const RMS_NORM = "RMSNorm(v) = v / √(mean(v²) + ε) divides each row by its root mean square "
  + "(ε, a tiny constant, keeps it finite), and g is this layer's learned gain, one number per dimension.";
const LAYER_NORM = "LayerNorm(v) = γ ⊙ (v − mean(v)) / √(var(v) + ε) + β takes each row to mean 0 "
  + "and variance 1 (ε, a tiny constant, keeps it finite), then scales it by a learned gain γ and "
  + "shifts it by a learned bias β";

const RECIPES = {
  decoder: (m, layer) => (layer === 1
    ? `Exactly: X = RMSNorm(e_token) ⊙ g, where e_token is the token's learned embedding (${m.d_model} numbers). ${RMS_NORM}`
    : `Exactly: X = RMSNorm(h) ⊙ g, where h is the residual stream: the token's embedding plus the attention and MLP outputs of ${before(layer)}, never normalised itself. ${RMS_NORM}`),
  encoder: (m, layer) => {
    const embeddings = "LayerNorm(e_token + e_position + e_type)";
    const parts = `the token's embedding, its position's (one learned vector for each place in the text, [CLS] in the first) and the embedding of token type 0 (every token of one text is type 0)`;
    return layer === 1
      ? `Exactly: X = ${embeddings}, the sum of three learned vectors of ${m.d_model} numbers: ${parts}. ${LAYER_NORM}, the embeddings' own.`
      : `Exactly: X is layer ${layer - 1}'s output. A layer with input H computes A = LayerNorm(H + Attention(H) W_O + b_O), `
        + `Attention(H) being its ${m.heads} heads' A·V side by side, then its output LayerNorm(A + GELU(A W_1 + b_1) W_2 + b_2): `
        + `two sums, each normalised by a LayerNorm of its own. ${LAYER_NORM}. Layer 1's input H is ${embeddings}: ${parts}.`;
  },
};

/** [what X is in plain words, its exact recipe] for model ``m`` (GET /api/models) at
 *  ``layer``, 0-based as the state counts. */
export function explainX(m, layer) {
  const L = layer + 1;  // as the page names layers
  const vector = `Here X holds one row for each token: that token's vector as layer ${L} reads it, `
    + `${L === 1 ? "its embedding" : `after ${before(L)}`}, normalised.`;
  const multiply = `W_Q, W_K and W_V (${m.d_model} × ${m.d_head} for one head) multiply it`;
  const plain = m.kind === "decoder"
    ? `${vector} ${multiply}; q and k are then turned by their positions (RoPE, θ = ${m.rope_base}): X itself holds no position.`
    : `${vector} ${multiply}, each projection adding its bias.`;
  return [plain, RECIPES[m.kind](m, L)];
}
