// Until the first answer to a view the server did not send, the page below the controls
// is not drawn (html.is-loading, see app.css): the inputs and the numbers appear in one
// frame. It is shown anyway when the server cannot be reached, or after REVEAL_MS.

import { afterPaint } from "./later.js";

export const REVEAL_MS = 1500;

/** Hide the page below the controls until reveal(), or REVEAL_MS at the latest. */
export function hideUntilAnswered() {
  document.documentElement.classList.add("is-loading");
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
  requestAnimationFrame(() => {
    const onScreen = [...document.querySelectorAll("#inputs .matrix.editable")].filter((figure) => {
      const { top, bottom } = figure.getBoundingClientRect();
      return bottom > 0 && top < window.innerHeight;
    });
    for (const figure of onScreen) figure.style.contentVisibility = "visible";
    afterPaint(() => onScreen.forEach((figure) => { figure.style.contentVisibility = ""; }));
  });
}
