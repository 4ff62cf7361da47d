import { test } from "node:test";
import assert from "node:assert/strict";
import { available, exportMatrix, matrixExport } from "../../../../static/js/editor/export/exportmatrix.js";

const REQUEST = {
  tokens: ["the", "cat", "sat"], X: [[1, 0], [0, 1], [1, 1]], W_Q: [[1, 0], [1, 2]],
  W_K: [[2, 0], [0, 1]], W_V: [[1, 0], [0, 2]], causal: true, row: 2,
};
const BODY = {
  tokens: ["the", "cat", "sat"], d_k: 2, Q: [[1, 0], [1, 2], [2, 2]],
  scaled_scores: [[1.4142135623730951, null, null], [1.4, 1.4, null], [2.8, 1.4, 4.2]],
  weights: [[1, 0, 0], [0.5, 0.5, 0], [0.2, 0.1, 0.7]], output: [[1, 0], [0.5, 1], [0.9, 1.6]],
};
const STATE = { X_kv: null, heads: 1, head: 0 };
const page = { state: STATE, request: REQUEST, body: BODY };

test("CSV: token labels down the side, and across the top where the columns are keys", () => {
  assert.equal(matrixExport(page, "X", "csv").text, "the,1,0\ncat,0,1\nsat,1,1");
  assert.equal(matrixExport(page, "W_Q", "csv").text, "1,0\n1,2", "W_Q's rows are not tokens");
  assert.equal(matrixExport(page, "weights", "csv").text, ",the,cat,sat\nthe,1,0,0\ncat,0.5,0.5,0\nsat,0.2,0.1,0.7");
  assert.match(matrixExport(page, "scaled_scores", "csv").text, /^,the,cat,sat\nthe,1\.4142135623730951,-inf,-inf\n/);
});

test("file names and Python names: A for the weights, Z for the output", () => {
  const files = [["weights", "latex"], ["output", "numpy"], ["W_Q", "csv"], ["X", "json"]]
    .map(([key, format]) => matrixExport(page, key, format).file);
  assert.deepEqual(files, ["A.tex", "Z.py", "W_Q.csv", "X.json"]);
  assert.equal(matrixExport(page, "output", "numpy").text,
    "import numpy as np\n\nZ = np.array([[1.0, 0.0], [0.5, 1.0], [0.9, 1.6]])");
  assert.equal(matrixExport(page, "W_Q", "latex").text,
    "\\begin{pmatrix} 1.000 & 0.000 \\\\ 1.000 & 2.000 \\end{pmatrix}");
  // LaTeX names the tokens as CSV does: the rows, and the columns where they are keys.
  assert.equal(matrixExport(page, "Q", "latex").text,
    "% rows: the, cat, sat\n\\begin{pmatrix} 1.000 & 0.000 \\\\ 1.000 & 2.000 \\\\ 2.000 & 2.000 \\end{pmatrix}");
  assert.match(matrixExport(page, "weights", "latex").text, /^% rows: the, cat, sat\n% columns: the, cat, sat\n\\begin/);
  assert.equal(matrixExport(page, "Q", "json").shape, "3 × 2");
});

test("cross-attention: K's rows are the keys' tokens", () => {
  const cross = { state: STATE, request: { ...REQUEST, X_kv: [[1, 1]], tokens_kv: ["s1"] },
    body: { ...BODY, tokens_kv: ["s1"], K: [[2, 1]], weights: [[1], [1], [1]] } };
  assert.equal(matrixExport(cross, "K", "csv").text, "s1,2,1");
  assert.equal(matrixExport(cross, "X_kv", "csv").text, "s1,1,1");
  assert.equal(matrixExport(cross, "weights", "csv").text, ",s1\nthe,1\ncat,1\nsat,1");
});

test("nothing is exported while an input is invalid, or before it is computed", () => {
  const invalid = matrixExport({ ...page, request: null }, "weights", "csv");
  assert.equal(invalid.ok, false);
  assert.match(invalid.message, /not a number yet/);
  assert.deepEqual(matrixExport({ ...page, body: null }, "Q", "csv"),
    { ok: false, message: "Q (queries) is not computed yet." });
});

test("the choices: the inputs always, the results once there is an answer", () => {
  const ids = (now) => available(now).map((m) => m.id);
  assert.deepEqual(ids({ state: STATE, request: null, body: null }), ["X", "W_Q", "W_K", "W_V"]);
  assert.deepEqual(ids(page), ["X", "W_Q", "W_K", "W_V", "Q", "K", "V", "scores", "scaled_scores", "weights", "output"]);
  assert.deepEqual(ids({ state: { ...STATE, X_kv: [[1]] }, body: null }), ["X", "X_kv", "W_Q", "W_K", "W_V"]);
});

test("several heads: the shown head's matrices, named for it, then Concat, W_O and the output", () => {
  const head = (w) => ({ W_Q: [[w]], W_K: [[1]], W_V: [[1]] });
  const now = {
    state: { ...STATE, heads: 2, head: 1 },
    request: { tokens: ["a"], X: [[1]], heads: [head(1), head(2)], W_O: [[1], [1]] },
    body: { tokens: ["a"], heads: [{ weights: [[1]] }, { weights: [[1]], output: [[3]] }], concat: [[2, 3]], output: [[5]] },
  };
  assert.deepEqual(available(now).map((m) => m.text), ["X (embeddings)", "W_Q, head 2", "W_K, head 2",
    "W_V, head 2", "Q (queries), head 2", "K (keys), head 2", "V (values), head 2", "QKᵀ (scores), head 2",
    "Scaled scores (the scale × QKᵀ), head 2", "A (weights), head 2", "Z (output), head 2",
    "Concat (the heads' Z side by side)", "W_O", "Output = Concat·W_O"]);
  assert.deepEqual(matrixExport(now, "W_Q", "json"), { ok: true, text: "[[2]]", file: "W_Q_2.json", type: "application/json", shape: "1 × 1" });
  assert.equal(matrixExport(now, "output", "csv").text, "a,3");
  assert.equal(matrixExport(now, "final", "numpy").text, "import numpy as np\n\noutput = np.array([[5.0]])");
  assert.equal(matrixExport(now, "concat", "csv").file, "Concat.csv");
});

test("a result the page holds only a corner of, or not at all, is fetched whole", async () => {
  // The page fetches Q's top-left corner only; here a 2 × 1 corner of the 3 × 2 Q.
  const cornered = { ...page, body: { ...BODY, Q: [[1], [1]] } };
  assert.deepEqual(matrixExport(cornered, "Q", "csv"), { ok: false, fetch: "Q" });
  assert.deepEqual(matrixExport(cornered, "K", "csv"), { ok: false, fetch: "K" }, "not held at all");
  const asked = [];
  const fetchFields = async (fields) => {
    asked.push(fields);
    return { tokens: BODY.tokens, Q: BODY.Q };
  };
  const out = await exportMatrix(cornered, "Q", "csv", fetchFields);
  assert.equal(out.text, "the,1,0\ncat,1,2\nsat,2,2");
  assert.equal(out.shape, "3 × 2");
  assert.deepEqual(asked, [["Q"]]);
  assert.equal((await exportMatrix(page, "Q", "csv", fetchFields)).text, out.text);
  assert.equal(asked.length, 1, "a whole matrix on the page is not fetched again");
  const failed = await exportMatrix(cornered, "Q", "csv", async () => { throw new Error("server down"); });
  assert.deepEqual(failed, { ok: false, message: "Q (queries) could not be fetched (server down); try again." });
});

test("several heads: the shown head's result is fetched under its own name", async () => {
  const head = (w) => ({ W_Q: [[w, 0]], W_K: [[1, 0]], W_V: [[1]] });
  const now = {
    state: { ...STATE, heads: 2, head: 1 },
    request: { tokens: ["a"], X: [[1]], heads: [head(1), head(2)], W_O: [[1], [1]] },
    body: { tokens: ["a"], heads: [{ weights: [[1]] }, { Q: [[2]], weights: [[1]] }] },
  };
  assert.deepEqual(matrixExport(now, "Q", "json"), { ok: false, fetch: "heads[1].Q" });
  const out = await exportMatrix(now, "Q", "json", async () => ({ heads: [{}, { Q: [[2, 0]] }] }));
  assert.equal(out.text, "[[2,0]]");
  assert.equal(out.file, "Q_2.json");
});

test("shared key/value heads: head 3's W_K and W_V are those of the key/value head it reads", () => {
  const request = { tokens: ["a"], X: [[1, 0]],
    heads: [{ W_Q: [[1], [0]] }, { W_Q: [[2], [0]] }, { W_Q: [[3], [0]] }, { W_Q: [[4], [0]] }],
    kv_heads: [{ W_K: [[1], [1]], W_V: [[1, 0], [0, 1]] }, { W_K: [[5], [6]], W_V: [[7, 8], [9, 10]] }],
    W_O: Array.from({ length: 8 }, () => [1, 0]) };
  const body = { heads: [0, 1, 2, 3].map(() => ({ tokens: ["a"], Q: [[1]], V: [[1, 2]], output: [[1, 2]] })),
    tokens: ["a"], concat: [[1, 2, 1, 2, 1, 2, 1, 2]], output: [[8, 0]] };
  const shared = { state: { X_kv: null, heads: 4, head: 2 }, request, body };
  assert.equal(matrixExport(shared, "W_K", "csv").text, "5\n6");
  assert.equal(matrixExport(shared, "W_V", "csv").text, "7,8\n9,10");
  assert.equal(matrixExport(shared, "W_Q", "csv").text, "3\n0");
  assert.equal(matrixExport(shared, "W_K", "csv").file, "W_K_3.csv");
  assert.equal(matrixExport(shared, "output", "csv").text, "a,1,2", "Z of head 3 is n × d_v, d_v from its key/value head");
  assert.equal(matrixExport(shared, "concat", "csv").text, "a,1,2,1,2,1,2,1,2");
});
