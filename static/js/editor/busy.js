// aria-busy on the results while they are being recomputed: from the moment an edit's
// request leaves until its answer (or its error) is on screen, the working that is
// typeset after the paint included. A screen reader waits for it before reading the new
// numbers; the browser tests wait for it instead of for a fixed time (helpers.py).
// (is-stale, the visible mark, is set only once an answer is known to be out of date,
// so that a quick answer does not flash a stripe on every keystroke.)

import { afterPaint } from "../lib/later.js";

/** createBusy(element) → {start(), done()}: start() marks ``element`` busy; done() clears
 *  it after the next paint and the background work queued before it (results.js's
 *  working), unless start() was called again meanwhile (a newer edit, still waiting). */
export function createBusy(element) {
  let ticket = 0;
  return {
    start() {
      ticket += 1;
      element.setAttribute("aria-busy", "true");
    },
    done() {
      const mine = ticket;
      afterPaint(() => {
        if (mine === ticket) element.removeAttribute("aria-busy");
      });
    },
  };
}
