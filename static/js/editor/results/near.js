// Drawing the blocks below the screen after the frame that paints an edit's new numbers.
// benchmarks/bench_browser.py (3 tokens, 1280 × 900) asked for it: the projections, the
// scores and the outputs start just below the first screen, within the margin in which
// the browser lays out and paints a content-visibility: auto block, so an edit that
// rewrote them made its own frame restyle, lay out and paint them too. A block on or near
// the screen is drawn at once, as before; one farther off is drawn once that frame has
// painted, or as soon as it comes near the screen, whichever is first. It is never left
// undrawn for long: the results stay aria-busy until it is drawn (busy.js clears them
// after the same paint, and later), so a screen reader, find-in-page, the walk and the
// export all meet the new numbers; a print draws every waiting block first.

import { afterPaint as afterThePaint } from "../../lib/later.js";

// The screen itself: at 1280 × 900 the blocks start 66 px below it, and any margin that
// reached them would draw them in the edit's frame again. One scrolled in while it waits
// is drawn by the observer's report, before the paint after the edit's.
const MARGIN = "0px";

/** createNear({Observer, afterPaint}) → {draw(block, fn), flush()}. draw runs ``fn`` (the
 *  drawing of what ``block`` holds) now when the block is on or near the screen, or not
 *  yet known to be off it; else it keeps the newest ``fn`` of that block and runs it after
 *  the next paint or when the block comes near, whichever is first. flush() runs every
 *  drawing still waiting. Without IntersectionObserver everything is drawn at once. */
export function createNear({ Observer = globalThis.IntersectionObserver, afterPaint = afterThePaint } = {}) {
  const near = new Map();     // block → on or near the screen, as last reported
  const waiting = new Map();  // block → its newest drawing, not run yet
  const run = (block) => {
    const draw = waiting.get(block);
    waiting.delete(block);
    draw?.();
  };
  const watch = Observer && new Observer((entries) => {
    for (const { target, isIntersecting } of entries) {
      near.set(target, isIntersecting);
      if (isIntersecting) run(target);
    }
  }, { rootMargin: MARGIN });

  function draw(block, fn) {
    if (!watch || near.get(block) !== false) {
      if (watch && !near.has(block)) {
        near.set(block, true);  // until the observer's first report
        watch.observe(block);
      }
      waiting.delete(block);
      fn();
      return;
    }
    if (!waiting.has(block)) afterPaint(() => run(block));
    waiting.set(block, fn);
  }

  const flush = () => [...waiting.keys()].forEach(run);
  return { draw, flush };
}
