import { test } from "node:test";
import assert from "node:assert/strict";
import { walkKeyStep } from "../../../../static/js/editor/walk/walkkeys.js";

// A target whose closest(selector) answers as the page would: ``owner`` is the selector's
// part that matches it or an ancestor ("input", "[role=\"grid\"]", "[data-own-arrows]"), or null.
const target = (owner = null) => ({ closest: (selector) => (owner && selector.includes(owner) ? {} : null) });
const key = (k, changes = {}) => ({ key: k, target: target(), defaultPrevented: false, altKey: false,
  ctrlKey: false, metaKey: false, shiftKey: false, ...changes });

test("a clicker's keys step the walk: PageDown and → forward, PageUp and ← back", () => {
  assert.deepEqual(["PageDown", "ArrowRight", "PageUp", "ArrowLeft"].map((k) => walkKeyStep(key(k))), [1, 1, -1, -1]);
  assert.equal(walkKeyStep(key("Enter")), 0);
  assert.equal(walkKeyStep(key("ArrowDown")), 0);
});

test("keys meant for a field, the heatmap, a step-by-step panel or the browser are left alone", () => {
  for (const owner of ["input", "textarea", "select", "[contenteditable]", '[role="grid"]', "[data-own-arrows]"]) {
    assert.equal(walkKeyStep(key("ArrowRight", { target: target(owner) })), 0, owner);
  }
  assert.equal(walkKeyStep(key("ArrowLeft", { altKey: true })), 0);  // the browser's Back
  assert.equal(walkKeyStep(key("PageDown", { ctrlKey: true })), 0);  // the next tab
  assert.equal(walkKeyStep(key("ArrowRight", { shiftKey: true })), 0);
  assert.equal(walkKeyStep(key("PageDown", { defaultPrevented: true })), 0);
});
