import { test } from "node:test";
import assert from "node:assert/strict";
import { cellPrefix, fieldId, fieldName, split } from "../../../../static/js/editor/inputs/fieldnames.js";

test("a field's accessible name is the one its input has on the page", () => {
  assert.equal(fieldName("X[2][0]"), "X row 3 column 1");
  assert.equal(fieldName("W_Q_2[0][1]"), "W_Q head 2 row 1 column 2");
  assert.equal(fieldName("W_K_2[0][0]", true), "W_K key/value head 2 row 1 column 1");
  assert.equal(fieldName("b_Q_2[0][0]"), "b_Q head 2 column 1");
  assert.equal(fieldName("tokens[1]"), "Token 2 label");
  assert.equal(fieldName("tokens_kv[0]"), "Key token 1 label");
  assert.equal(fieldName("alibi_slopes[1]"), "ALiBi slope head 2");
  assert.equal(fieldName("window"), "Window");
  assert.equal(fieldName("heads[0]"), null, "a field the page has no input for");
});

test("a matrix's name says its head; head 1's is plain", () => {
  assert.deepEqual(split("W_Q_2"), { base: "W_Q", head: 2 });
  assert.deepEqual(split("X"), { base: "X", head: null });
  assert.equal(cellPrefix("W_V"), "W_V");
  assert.equal(cellPrefix("b_V_3", true), "b_V key/value head 3");
  assert.equal(cellPrefix("W_Q_3", true), "W_Q head 3", "query heads are never shared");
  assert.equal(fieldId("X[2][0]"), "in-X-2-0");
});
