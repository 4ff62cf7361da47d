import { test } from "node:test";
import assert from "node:assert/strict";
import { marksNote } from "../../../../static/js/editor/modelhead/marks.js";

test("the note names each mark the labels hold, once, and nothing when they hold none", () => {
  assert.equal(marksNote(["the", "cat", "sat"]), "");
  assert.equal(marksNote(["The", "␣cat", "␣sat"]),
    "In the labels, ␣ is a space (a model's token often begins with the space before its word).");
  assert.equal(marksNote(["The", "␣cat↵", "␣sat"], []),
    "In the labels, ␣ is a space and ↵ a new line (a model's token often begins with the space before its word).");
  assert.equal(marksNote(["a↵", "b"]), "In the labels, ↵ is a new line.");
  assert.equal(marksNote(["⇥x", "␍", "↵", "␣"]),
    "In the labels, ␣ is a space, ↵ a new line, ⇥ a tab and ␍ a carriage return "
    + "(a model's token often begins with the space before its word).");
});
