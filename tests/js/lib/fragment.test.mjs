// The one codec of the URL's fragment, for both pages: "#key=value&…", each value
// escaped, the editor keeping its separators , ; | : readable.
import assert from "node:assert/strict";
import { test } from "node:test";

import { readFragment, writeFragment } from "../../../static/js/lib/fragment.js";

const AWKWARD = ["The capital of France is", "a&b=c #hash 50% ✓\nnew line", " leading space", "1+1", "<|im_start|>[SEP]", "", "%41"];

test("every value survives the round trip, whatever it holds", () => {
  const pairs = AWKWARD.map((v, k) => [`k${k}`, v]);
  const text = writeFragment(pairs);
  assert.deepEqual([...readFragment(`#${text}`)], pairs);
  assert.deepEqual([...readFragment(text)], pairs, "with or without its #");
});

test("values are written with encodeURIComponent, numbers and booleans as text", () => {
  assert.equal(writeFragment([["text", "x y"], ["layer", 0], ["row", ""], ["on", true]]), "text=x%20y&layer=0&row=&on=true");
});

test("the separators asked to stay literal do, and still read back", () => {
  const matrix = "1,0;0,1|a:b";
  assert.equal(writeFragment([["X", matrix], ["t", "a b"]], ",;|:"), "X=1,0;0,1|a:b&t=a%20b");
  assert.equal(writeFragment([["X", matrix]]), "X=1%2C0%3B0%2C1%7Ca%3Ab");
  assert.equal(readFragment("#X=1,0;0,1|a:b").get("X"), matrix);
});

test("a plus is a plus: a fragment is no form, and the writer never spells a space so", () => {
  assert.equal(readFragment("#text=1+1").get("text"), "1+1");
});

test("a key without a value is empty; the first of a repeated key is read", () => {
  const pairs = readFragment("#a&b=&c=1&c=2&&");
  assert.deepEqual([...pairs], [["a", ""], ["b", ""], ["c", "1"]]);
  assert.equal(readFragment("").size, 0);
  assert.equal(readFragment("#").size, 0);
});

test("a value with a malformed escape is null, for the page to say so or fall back; the others are read", () => {
  const pairs = readFragment("#text=%E0%A4&layer=5&bad=%zz&head=1");
  assert.deepEqual([...pairs], [["text", null], ["layer", "5"], ["bad", null], ["head", "1"]]);
});
