// Present mode's type size: 20 px, or the largest size below it at which the view fits
// the window with nothing scrolling either way. A projector cannot scroll for the room,
// and a view of 8 tokens, 4 heads or rotary positions holds more than the 3-token example.
// Everything in present mode is sized in rem (app.css), so one number scales it all.

import { keepRoom } from "./walkroom.js";

const SIZES = [20, 19, 18, 17, 16, 15, 14, 13, 12];  // px, the root's font-size, largest first
// Boxes that scroll sideways when their content is wider than they are: present mode
// shows none of them scrolled.
const SIDEWAYS = "#heatmap .heatmap, #qkv .scroll, #working li, #working .table-scroll";
const html = () => document.documentElement;

function fits() {
  const doc = document.scrollingElement;
  if (doc.scrollHeight > innerHeight || doc.scrollWidth > innerWidth) return false;
  return [...document.querySelectorAll(SIDEWAYS)].every((n) => n.scrollWidth <= n.clientWidth + 1);
}

/** Set the type to size k of SIZES; the walk's bar, whose height follows the type, is
 *  measured again before the page is. Returns whether the view then fits. */
function sizeFits(k, bar) {
  html().style.setProperty("--present-size", `${SIZES[k]}px`);
  if (!bar.hidden) keepRoom(bar);
  return fits();
}

/** Fit present mode's view to the window, starting from the size it has: up while the
 *  next size up fits, then down until one fits (12 px at the least). */
function fit(bar) {
  if (!html().classList.contains("present")) return;
  let k = Math.max(0, SIZES.indexOf(parseFloat(html().style.getPropertyValue("--present-size"))));
  while (k > 0 && sizeFits(k - 1, bar)) k -= 1;
  while (k < SIZES.length - 1 && !sizeFits(k, bar)) k += 1;
  sizeFits(k, bar);
}

/** Keep present mode fitted: while it is on, whenever the view, the walk's bar or the
 *  window changes size, the type is fitted again in the next frame (a fit inside the
 *  observer's own callback would change the sizes it reports). ``bar`` is the walk's. */
export function fitPresentMode(bar) {
  let frame = 0;
  const later = () => {
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(() => fit(bar));
  };
  const sizes = new ResizeObserver(later);
  const watched = () => [document.body, bar, ...["heatmap", "qkv", "working"].map((id) => document.getElementById(id))];
  const follow = () => {
    sizes.disconnect();
    removeEventListener("resize", later);
    if (!html().classList.contains("present")) {
      html().style.removeProperty("--present-size");
      return;
    }
    for (const node of watched()) sizes.observe(node);
    addEventListener("resize", later);
    later();
  };
  new MutationObserver(follow).observe(html(), { attributes: true, attributeFilter: ["class"] });
  follow();
}
