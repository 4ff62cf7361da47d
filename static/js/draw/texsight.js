// Maths typeset as it comes into sight. Typesetting is most of the cost of drawing a
// working (KaTeX builds ~20 elements a span, which the frame then styles and lays out),
// and much of a working may stand off screen: the real-model view's is under the
// heatmap on a phone, and beside it from 1024 px its softmax and z are under the first
// screen. A head or row switch typeset all of it before painting (benchmarks/
// bench_browser.py, "head switch" and "row switch"). typesetInSight(host) typesets now,
// in the drawing's own task, the spans on the screen, so the frame that paints the new
// numbers paints them typeset; each other span is typeset when it comes within half a
// screen (AHEAD) of it (at once after that frame if it is that near already; scrolled to,
// or its <details> opened), and one a newer drawing replaces first never is. The spans
// just under the screen wait for that frame because they were a third of its maths: in
// the real-model view at 1280 × 900, z's seven lines, the longest TeX of the working.
// A head switch, 40 each with this page and the last one in turn: median 89 → 81 ms,
// p95 115 → 98 (the goal: 100).

import { untypeset } from "../lib/morph.js";
import { typesetSpan } from "./tex.js";

export const AHEAD = 0.5;  // screens above and below the viewport typeset ahead of the eye

let later = null;  // the one observer of the spans waiting to come near
const waiting = new Set();  // the spans it observes, let go of once a drawing replaced them

function observer() {
  later ??= new IntersectionObserver((entries) => {
    for (const { target, isIntersecting } of entries) {
      if (!isIntersecting) continue;
      forget(target);
      if (target.isConnected && !target.firstChild) typesetSpan(target);
    }
  }, { rootMargin: `${AHEAD * 100}% 0px` });
  return later;
}

function forget(span) {
  later.unobserve(span);
  waiting.delete(span);
}

/** Whether a span is laid out (not in a closed <details>) on a viewport ``height`` px
 *  high, or within ``ahead`` screens of it. */
export function isNear(span, height, ahead = 0) {
  if (!span.getClientRects().length) return false;
  const { top, bottom } = span.getBoundingClientRect();
  return bottom >= -ahead * height && top <= (1 + ahead) * height;
}

/** Typeset the maths spans of ``host`` on the screen now, the others as they come near
 *  (all now where IntersectionObserver is missing). */
export function typesetInSight(host) {
  const spans = untypeset(host);
  if (!globalThis.IntersectionObserver) {
    spans.forEach(typesetSpan);
    return;
  }
  // A span off the page (replaced by a newer drawing) never comes near: it is let go of.
  for (const span of waiting) if (!span.isConnected) forget(span);
  // Every position read before any span is typeset: one layout, not one a span.
  const near = spans.map((span) => isNear(span, globalThis.innerHeight));
  spans.forEach((span, k) => {
    if (near[k]) typesetSpan(span);
    else {
      observer().observe(span);
      waiting.add(span);
    }
  });
}
