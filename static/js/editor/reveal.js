// Until the page has drawn its first view, the page below the controls is not drawn
// (index.html comes with html.is-loading, see app.css): the first paint needs no script,
// and the inputs and the numbers appear in one frame. For the default view that is at
// once (its answer came with the page); for any other, when its first answer is in, or
// anyway when the server cannot be reached, or after REVEAL_MS.

import { afterPaint } from "../lib/later.js";

export const REVEAL_MS = 1500;

/** Show the page REVEAL_MS from now at the latest, whatever has come. */
export function revealByDeadline() {
  setTimeout(reveal, REVEAL_MS);
}

/** Show the page (once; later calls do nothing). */
export function reveal() {
  const root = document.documentElement.classList;
  if (!root.contains("is-loading")) return;
  root.remove("is-loading");
  // content-visibility: auto (app.css) finds an input matrix on screen only a frame after
  // it is first laid out: it would stay blank beside the numbers for that frame. Just
  // before the frame is drawn, those on screen are drawn regardless, for that one frame.
  const skippable = [...document.querySelectorAll("#inputs .matrix.skippable")];
  if (skippable.length) {
    requestAnimationFrame(() => {
      const onScreen = skippable.filter((figure) => {
        const { top, bottom } = figure.getBoundingClientRect();
        return bottom > 0 && top < window.innerHeight;
      });
      for (const figure of onScreen) figure.style.contentVisibility = "visible";
      afterPaint(() => onScreen.forEach((figure) => { figure.style.contentVisibility = ""; }));
    });
  }
}
