// texsight.js: the maths spans on the screen are typeset at once, the others when they
// come near, and none that a newer drawing replaced. Layout, KaTeX and the observer are
// stand-ins: a span's place is given by hand.

import assert from "node:assert/strict";
import { test } from "node:test";

const HEIGHT = 800;
globalThis.innerHeight = HEIGHT;
const typeset = [];  // the TeX of every span KaTeX rendered, in order
globalThis.katex = { render: (tex, span) => { typeset.push(tex); span.firstChild = { tex }; } };
let observed = null;  // the stand-in observer: {callback, options, targets}
globalThis.IntersectionObserver = class {
  constructor(callback, options) {
    observed = { callback, options, targets: new Set() };
  }

  observe(target) { observed.targets.add(target); }
  unobserve(target) { observed.targets.delete(target); }
};

const { AHEAD, isNear, typesetInSight } = await import("../../../static/js/draw/texsight.js");

/** A maths span whose box is at ``top`` px from the viewport's top (null: not laid out,
 *  as in a closed <details>). */
function span(tex, top) {
  return { tex, firstChild: null, isConnected: true, dataset: { tex },
    getClientRects: () => (top === null ? [] : [{}]),
    getBoundingClientRect: () => ({ top, bottom: top === null ? 0 : top + 20 }) };
}
const host = (spans) => ({ querySelectorAll: (sel) => (sel === "[data-tex]" ? spans : []) });
const come = (...targets) => observed.callback(targets.map((target) => ({ target, isIntersecting: true })));

test("a span is on the screen, or within ``ahead`` screens of it, above or below, and laid out", () => {
  assert.equal(AHEAD, 0.5);
  assert.equal(isNear(span("a", 0), HEIGHT), true);
  assert.equal(isNear(span("b", 799), HEIGHT), true);    // its top 1 px above the bottom
  assert.equal(isNear(span("c", 801), HEIGHT), false);
  assert.equal(isNear(span("d", -19), HEIGHT), true);    // its bottom 1 px under the top
  assert.equal(isNear(span("e", -21), HEIGHT), false);
  assert.equal(isNear(span("f", 1199), HEIGHT, AHEAD), true);   // 1.5 screens down, less 1 px
  assert.equal(isNear(span("g", 1201), HEIGHT, AHEAD), false);
  assert.equal(isNear(span("h", -419), HEIGHT, AHEAD), true);   // its bottom 399 px above the top
  assert.equal(isNear(span("i", -421), HEIGHT, AHEAD), false);  // 401 px above
  assert.equal(isNear(span("j", null), HEIGHT), false);
});

test("the spans on the screen are typeset at once, the others as they come near", () => {
  typeset.length = 0;
  const [top, under, below, folded, done] = [span("q", 100), span("s", 900), span("z", 2400), span("r", null), span("k", 50)];
  done.firstChild = { tex: "k" };  // typeset by an earlier drawing: left alone
  typesetInSight(host([top, under, below, folded, done]));
  assert.deepEqual(typeset, ["q"]);
  assert.equal(observed.options.rootMargin, "50% 0px");
  assert.deepEqual([...observed.targets].map((s) => s.tex), ["s", "z", "r"]);
  come(under);  // within half a screen: reported once the frame that paints "q" is laid out
  assert.deepEqual(typeset, ["q", "s"]);
  come(folded);  // its <details> opened
  assert.deepEqual(typeset, ["q", "s", "r"]);
  assert.deepEqual([...observed.targets].map((s) => s.tex), ["z"]);
  observed.callback([{ target: below, isIntersecting: false }]);  // not yet
  assert.deepEqual(typeset, ["q", "s", "r"]);
  come(below);  // scrolled to
  assert.deepEqual(typeset, ["q", "s", "r", "z"]);
  assert.equal(observed.targets.size, 0);
});

test("a span replaced by a newer drawing, or typeset meanwhile, is not typeset when it comes near", () => {
  typeset.length = 0;
  const [gone, meanwhile] = [span("old", 3000), span("twice", 3000)];
  typesetInSight(host([gone, meanwhile]));
  gone.isConnected = false;
  meanwhile.firstChild = { tex: "twice" };
  come(gone, meanwhile);
  assert.deepEqual(typeset, []);
  assert.equal(observed.targets.size, 0);
});

test("a span waiting to come near is let go of once a newer drawing has replaced it", () => {
  typeset.length = 0;
  const old = span("z_{1}", 3000);
  typesetInSight(host([old]));
  assert.ok(observed.targets.has(old));
  old.isConnected = false;  // the next row's working replaced it
  const next = span("z_{2}", 3000);
  typesetInSight(host([next]));
  assert.deepEqual([...observed.targets].map((s) => s.tex), ["z_{2}"]);
  assert.deepEqual(typeset, []);
});
