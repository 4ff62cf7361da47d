// What each projection makes of a token, in the words of the textbook's intuition. One
// source for them: the walk's steps say them (walk.js) and the inputs write them under
// W_Q, W_K and W_V (inputs.js), where a student first meets the matrices.

/** What a token's query, key and value are, by the matrix that makes them. */
export const ROLES = {
  W_Q: "what it is looking for",
  W_K: "what it offers",
  W_V: "what it passes on",
};

const MADE = { W_Q: "query", W_K: "key", W_V: "value" };

/** The line under a matrix ("W_Q", "W_K_2"…): "each token's query: what it is looking
 *  for"; "" for a matrix that makes no query, key or value (X, W_O). */
export function roleLine(base) {
  return MADE[base] ? `each token's ${MADE[base]}: ${ROLES[base]}` : "";
}
