import { test } from "node:test";
import assert from "node:assert/strict";
import { base64Bytes, decodeArray, decodeArrays } from "../../../static/js/lib/arrays.js";

// The bytes the server sends, made here with node's own Buffer, not with the code under test.
function encoded(values, shape, dtype = "float64") {
  const flat = values.flat();
  const buf = dtype === "bool" ? Buffer.from(flat.map(Number)) : Buffer.alloc(8 * flat.length);
  if (dtype !== "bool") flat.forEach((v, k) => buf.writeDoubleLE(v, 8 * k));
  return { dtype, shape, base64: buf.toString("base64") };
}

test("base64 by hand agrees with node's decoder for every padding", () => {
  for (const text of ["", "AA==", "AAE=", "AAEC", "/+8AAQI=", Buffer.from("attention is all").toString("base64")]) {
    assert.deepEqual([...base64Bytes(text)], [...Buffer.from(text, "base64")], text);
  }
});

test("a float64 matrix comes back bit for bit, −∞ and +∞ as null as in the JSON form", () => {
  const weights = [[0.18657, 0.04535, 0.76808], [1 / 3, 2 / 3, 0]];
  assert.deepEqual(decodeArray(encoded(weights, [2, 3])), weights);
  assert.deepEqual(decodeArray(encoded([[4.2426, -Infinity], [Infinity, -0.5]], [2, 2])), [[4.2426, null], [null, -0.5]]);
  assert.deepEqual(decodeArray(encoded([0.955, 1.627], [2])), [0.955, 1.627]);
  assert.equal(decodeArray(encoded([5e-324, 1.7976931348623157e308], [2]))[0], 5e-324);
});

test("a bool mask comes back as booleans", () => {
  assert.deepEqual(decodeArray(encoded([[true, false], [true, true]], [2, 2], "bool")), [[true, false], [true, true]]);
});

test("a length that does not fit the shape is refused with both numbers", () => {
  assert.throws(() => decodeArray({ ...encoded([1, 2], [2]), shape: [3] }), /16 bytes, not 24/);
});

test("a whole answer: arrays decoded, everything else as it was", () => {
  const answer = { tokens: ["the", "cat"], d_k: 2, causal: true,
    heads: [{ weights: encoded([[1, 0], [0.5, 0.5]], [2, 2]) }, {}],
    working: { row: 1, z: encoded([0.25, -1], [2]), exp_overflow: false } };
  assert.deepEqual(decodeArrays(answer), { tokens: ["the", "cat"], d_k: 2, causal: true,
    heads: [{ weights: [[1, 0], [0.5, 0.5]] }, {}], working: { row: 1, z: [0.25, -1], exp_overflow: false } });
  const plain = { weights: [[1]], tokens: ["a"] };
  assert.deepEqual(decodeArrays(plain), plain);
});

test("a uint8 array (weights_u8) comes back as whole numbers", () => {
  const base64 = Buffer.from([0, 128, 255, 12]).toString("base64");
  assert.deepEqual(decodeArray({ dtype: "uint8", shape: [2, 2], base64 }), [[0, 128], [255, 12]]);
});
