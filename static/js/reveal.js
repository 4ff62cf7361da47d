// Until the page has drawn its first view, the page below the controls is not drawn
// (index.html comes with html.is-loading, see app.css): the first paint needs no script,
// and the inputs and the numbers appear in one frame. For the default view that is at
// once (its answer came with the page); for any other, when its first answer is in, or
// anyway when the server cannot be reached, or after REVEAL_MS.

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
}
