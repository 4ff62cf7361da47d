import { test } from "node:test";
import assert from "node:assert/strict";
import { andList, count, numbered } from "../../../static/js/lib/words.js";

test("a count agrees with its noun", () => {
  assert.equal(count(1, "key"), "1 key");
  assert.equal(count(0, "key"), "0 keys");
  assert.equal(count(3, "key/value head"), "3 key/value heads");
  assert.equal(count(1, "query", "queries"), "1 query");
  assert.equal(count(2, "query", "queries"), "2 queries");
});

test("lists join with commas and a last “and”", () => {
  assert.equal(andList(["1"]), "1");
  assert.equal(andList(["1", "2"]), "1 and 2");
  assert.equal(andList(["1", "2", "3"]), "1, 2 and 3");
});

test("numbered symbols: every one up to three, an ellipsis only for more", () => {
  assert.equal(numbered("Z_", 1), "Z_1");
  assert.equal(numbered("Z_", 2), "Z_1, Z_2");
  assert.equal(numbered("Z_", 3), "Z_1, Z_2, Z_3");
  assert.equal(numbered("Z_", 4), "Z_1, …, Z_4");
  assert.equal(numbered("", 2, 0), "0, 1");
  assert.equal(numbered("", 8, 0), "0, …, 7");
});
