import { test } from "node:test";
import assert from "node:assert/strict";
import "../numberformat.mjs";

test("q_i's formula says what the view computes: x_i·W_Q, with positions, b_Q and RoPE", async () => {
  const { formulaTex, rowTex } = await import("../../../static/js/draw/workingmade.js");
  assert.equal(formulaTex(rowTex(3), "W_Q"), "x_{3}W_Q");
  assert.equal(formulaTex(rowTex(3, { pe: true }), "W_Q", { bias: true }), "(x_{3} + PE_{3})W_Q + b_Q");
  assert.equal(formulaTex(rowTex(2, { cross: true }), "W_K"), "x^{kv}_{2}W_K");
  assert.equal(formulaTex(rowTex(3), "W_Q", { rotated: true, p: 2 }), "\\operatorname{rot}_{p = 2}(x_{3}W_Q)");
});

test("a matrix is bracketed as typed, a wide one shortened to its first 3 rows and columns and its last", async () => {
  const { matrixTex } = await import("../../../static/js/draw/workingmade.js");
  assert.equal(matrixTex([[1, 0], [-1, 2]]), "\\begin{bmatrix}1 & 0 \\\\ -1 & 2\\end{bmatrix}");
  assert.equal(matrixTex([[0.5, -1]]), "\\begin{bmatrix}0.500 & -1.000\\end{bmatrix}");
  const six = Array.from({ length: 6 }, (_, r) => Array.from({ length: 6 }, (_, c) => 10 * r + c));
  assert.equal(matrixTex(six), "\\begin{bmatrix}0 & 1 & 2 & \\cdots & 5 \\\\ 10 & 11 & 12 & \\cdots & 15 \\\\ "
    + "20 & 21 & 22 & \\cdots & 25 \\\\ \\vdots & \\vdots & \\vdots & \\ddots & \\vdots \\\\ 50 & 51 & 52 & \\cdots & 55\\end{bmatrix}");
});
