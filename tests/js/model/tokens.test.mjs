// The way the real-model view writes tokens and shares (static/js/model/tokens.js).
import assert from "node:assert/strict";
import { test } from "node:test";
import { percent, shareText, visibleToken } from "../../../static/js/model/tokens.js";

test("tokens and shares are written to be read at a glance", () => {
  assert.equal(visibleToken(" Paris"), "␣Paris");
  assert.equal(visibleToken("\n\tx\r"), "↵⇥x␍");
  assert.equal(percent(0.6234), "62%");
  assert.equal(percent(0.0412), "4.1%");
  assert.equal(percent(0.0004), "<0.1%");
  assert.equal(percent(0), "0%");
  assert.equal(shareText(0.376), "38");
});
