import { test } from "node:test";
import assert from "node:assert/strict";
import { createNear } from "../../../../static/js/editor/results/near.js";

// A stand-in for IntersectionObserver that reports when the test says, and a queue of the
// work after the paint that the test runs when it says.
function harness() {
  const observers = [];
  class FakeObserver {
    constructor(callback, options) {
      this.callback = callback;
      this.options = options;
      this.targets = [];
      observers.push(this);
    }
    observe(target) { this.targets.push(target); }
  }
  const queued = [];
  const near = createNear({ Observer: FakeObserver, afterPaint: (task) => queued.push(task) });
  const report = (target, isIntersecting) => observers[0].callback([{ target, isIntersecting }]);
  const paint = () => { for (const task of queued.splice(0)) task(); };
  return { near, report, paint, observers, queued };
}

test("a block not yet reported is drawn at once, and watched from then on", () => {
  const { near, observers } = harness();
  const block = {};
  const drawn = [];
  near.draw(block, () => drawn.push(1));
  assert.deepEqual(drawn, [1]);
  assert.deepEqual(observers[0].targets, [block]);
  near.draw(block, () => drawn.push(2));
  assert.deepEqual(observers[0].targets, [block], "observed once");
});

test("a block on or near the screen is drawn at once", () => {
  const { near, report, queued } = harness();
  const block = {};
  near.draw(block, () => {});
  report(block, true);
  let drawn = 0;
  near.draw(block, () => { drawn += 1; });
  assert.equal(drawn, 1);
  assert.equal(queued.length, 0, "nothing waits for the paint");
});

test("a block off the screen is drawn after the paint, with the newest drawing only", () => {
  const { near, report, paint } = harness();
  const block = {};
  near.draw(block, () => {});
  report(block, false);
  const drawn = [];
  near.draw(block, () => drawn.push("first"));
  near.draw(block, () => drawn.push("second"));
  assert.deepEqual(drawn, [], "not in the edit's own task");
  paint();
  assert.deepEqual(drawn, ["second"], "once, the newest");
  paint();
  assert.deepEqual(drawn, ["second"], "not again");
});

test("a waiting block that comes near the screen is drawn then, and not again after the paint", () => {
  const { near, report, paint } = harness();
  const block = {};
  near.draw(block, () => {});
  report(block, false);
  const drawn = [];
  near.draw(block, () => drawn.push("late"));
  report(block, true);
  assert.deepEqual(drawn, ["late"]);
  paint();
  assert.deepEqual(drawn, ["late"]);
});

test("flush draws every waiting block at once (printing)", () => {
  const { near, report } = harness();
  const [a, b] = [{}, {}];
  near.draw(a, () => {});
  near.draw(b, () => {});
  report(a, false);
  report(b, false);
  const drawn = [];
  near.draw(a, () => drawn.push("a"));
  near.draw(b, () => drawn.push("b"));
  near.flush();
  assert.deepEqual(drawn.sort(), ["a", "b"]);
});

test("near is on the screen itself: a block just below it waits (at 1280 × 900 the projections start 66 px below)", () => {
  const { observers, near } = harness();
  near.draw({}, () => {});
  assert.equal(observers[0].options.rootMargin, "0px");
});

test("without IntersectionObserver (node, an old browser) every block is drawn at once", () => {
  const near = createNear({ Observer: undefined, afterPaint: () => assert.fail("nothing waits") });
  let drawn = 0;
  near.draw({}, () => { drawn += 1; });
  near.draw({}, () => { drawn += 1; });
  assert.equal(drawn, 2);
});
