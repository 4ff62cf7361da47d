// The room the walk's bar leaves: its height, for app.css to keep the page's end and what
// a step scrolls to clear of it, and the scroll that shows a step's lit parts above it.

const html = () => document.documentElement;  // read when called: node's tests import this module

/** The bar's height as --walk-room on the html element, from which app.css keeps what a
 *  step scrolls to, and the page's end, clear of the bar. Measured as each step is drawn,
 *  and again whenever the bar's height changes (a narrower window wraps its text;
 *  presentfit.js changes the type). */
export function keepRoom(panel) {
  const measure = () => html().style.setProperty("--walk-room", `${panel.offsetHeight}px`);
  measure();
  if (observed.has(panel)) return;
  observed.add(panel);
  new ResizeObserver(measure).observe(panel);
}
const observed = new WeakSet();  // the panels whose height is followed

/** Scroll so that the first of the ``lit`` parts (those shown) is wholly in the room above
 *  the bar (the window less app.css's scroll padding), and no other is under the bar:
 *  each either wholly above it, or past the window's top or bottom. Of the scroll
 *  positions that do so, the one that shows the most parts wholly, then the nearest to
 *  the first part centred. A step that lights the heatmap's row and the working's softmax
 *  beside it shows both.
 *  The page above may still grow once scrolled (on a phone the working is typeset as it
 *  nears the screen, and each block below it laid out as it comes into view): until the
 *  person scrolls, presses a key or clicks, the parts are placed again whenever the
 *  page's height changes. */
export function showLit(lit) {
  kept = lit.length ? lit : null;
  if (!kept) return;
  lit[0].scrollIntoView({ block: "center", inline: "nearest" });  // and inside its scroll boxes
  place(lit);
  if (settling) return;
  settling = new ResizeObserver(() => {
    if (kept && html().classList.contains("walking")) place(kept);
  });
  settling.observe(document.body);
  for (const type of ["wheel", "touchmove", "keydown", "pointerdown"]) addEventListener(type, () => { kept = null; }, { passive: true });
}
let kept = null;  // the parts placed last, while the page may still move them
let settling = null;

function place(lit) {
  const [height, y] = [innerHeight, scrollY];
  const room = height - (parseFloat(getComputedStyle(html()).scrollPaddingBottom) || 0);
  const [first, ...others] = lit.map((node) => {
    const r = node.getBoundingClientRect();
    return { top: r.top + y, bottom: r.bottom + y };  // in the page
  });
  const most = document.scrollingElement.scrollHeight - height;
  const within = (s) => Math.min(Math.max(s, 0), most);
  const whole = (s, b) => b.top >= s && b.bottom <= s + room;
  const clear = (s, b) => b.bottom <= s + room || b.top >= s + height;
  const centred = within((first.top + first.bottom - room) / 2);
  const tries = [centred, first.bottom - room, first.top,
    ...others.flatMap((b) => [b.top, b.bottom - room, b.top - height])].map(within);
  let best = null;
  for (const s of tries) {
    if (!whole(s, first) || !others.every((b) => clear(s, b))) continue;
    const shown = others.filter((b) => whole(s, b)).length;
    if (!best || shown > best.shown || (shown === best.shown && Math.abs(s - centred) < Math.abs(best.s - centred))) {
      best = { s, shown };
    }
  }
  if (best && Math.abs(best.s - y) >= 1) scrollTo(0, best.s);
}
