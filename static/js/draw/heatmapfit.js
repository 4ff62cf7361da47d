// A canvas heatmap fitted to the screen. Its picture is as wide as its box gives (app.css)
// and, in the editor, no taller than the first screen leaves under its top (--map-room,
// written here), so that the whole map is in view at once, its colour bar beside it: at
// 64 tokens the map was 34rem wide in a box of 25rem, and the keys past the 24th were
// hidden under the colour bar. Whatever changes the map's drawn size (its axis labels'
// spacing, its caption's scale) is told it by observeSize.

const MARGIN = 8;  // px left between the map's foot and the first screen's
const live = new Set();  // the views of the canvas maps fitted, dropped once off the page
let frame = 0;
const later = () => {
  cancelAnimationFrame(frame);
  frame = requestAnimationFrame(refit);
};
// Whatever above a map changes height (the controls' group opening, a head's caption, the
// window) moves its top, and with it the page's height: fitted again in the next frame, as
// presentfit.js does, since a fit inside the observer's callback would change what it reports.
const pageSize = globalThis.ResizeObserver ? new ResizeObserver(later) : null;

/** Keep the map of ``view`` (a canvas heatmap's view, holding its .bigmap) within the first
 *  screen from now on, from the next frame (before it paints). */
export function fitToScreen(view) {
  if (!pageSize) return;
  if (!live.size) {
    pageSize.observe(document.body);
    addEventListener("resize", later);
  }
  live.add(view);
  later();
}

/** The room under each map's top on the first screen (the document's: scrolling changes
 *  nothing), written only when it changes (a write lays the page out again). */
function refit() {
  for (const view of live) {
    if (!view.isConnected) live.delete(view);
    const box = view.querySelector(".bigmap");
    if (!view.isConnected || !box.getClientRects().length) continue;  // gone, or not laid out
    const top = box.getBoundingClientRect().top + scrollY;
    const room = `${Math.floor(document.documentElement.clientHeight - top - MARGIN)}px`;
    if (view.style.getPropertyValue("--map-room") !== room) view.style.setProperty("--map-room", room);
  }
  if (live.size) return;
  pageSize.disconnect();
  removeEventListener("resize", later);
}

const sizing = new WeakMap();  // a map's box → its ResizeObserver

/** Call ``onSize(width, height)`` with the drawn size of ``box`` (a map's .bigmap) each
 *  time it changes, once it is laid out; forget(box) stops it. */
export function observeSize(box, onSize) {
  const observer = new ResizeObserver(() => {
    const { width, height } = box.getBoundingClientRect();
    if (width) onSize(width, height);  // not laid out (a hidden block): keep what it was
  });
  observer.observe(box);
  sizing.set(box, observer);
}

export const forget = (box) => sizing.get(box)?.disconnect();
