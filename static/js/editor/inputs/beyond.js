// "Beyond the basics": the controls that go beyond the textbook chapter (heads,
// cross-attention, biases, positions, window and sinks, seed), one click away behind a
// disclosure button, so that a beginner meets no control before the idea it controls.
//
// The group opens by itself when the view comes to use something in it (a link, an import,
// a preset, Back or Forward) or one of its controls is marked: nothing the numbers depend
// on, and nothing the page asks to be fixed, is out of sight. On a phone only a mark opens
// it: open, its seven lines of controls would take the first screen, which is the heatmap's,
// and the line under its button says what of it is in use. It never closes by itself.
// Whether it is open is not the view's, so it is in neither the state nor the URL: a link to
// a view that uses heads opens it whatever, and one that uses nothing in it has nothing
// there to show. The button's aria-expanded is where it is kept.

import { count } from "../../lib/words.js";

const $ = (id) => document.getElementById(id);

// app.css's phone: the bar's controls one under the other.
const PHONE = "(max-width: 600px)";

const POSITIONS = { sinusoidal: "sinusoidal positions", rope: "rotary positions", alibi: "ALiBi" };
const whole = (text) => /^\d+$/.test(text);

/** What of the group ``state`` uses, in the group's order, as [key, words]:
 *  [["heads", "2 heads"], ["positions rope", "rotary positions"]]. Pure. */
export function features(state) {
  const used = [];
  if (state.heads > 1) used.push(["heads", count(state.heads, "head")]);
  if (state.kvHeads < state.heads) used.push(["kv", count(state.kvHeads, "key/value head")]);
  if (state.X_kv) used.push(["cross", "cross-attention"]);
  if (state.biases) used.push(["biases", "biases"]);
  if (state.positional) used.push([`positions ${state.positional}`, POSITIONS[state.positional]]);
  if (state.window !== "") {
    const sinks = state.sinks !== "0" && state.sinks !== "";
    const words = whole(state.window) ? `a window of ${state.window}` : "a window";
    used.push([sinks ? "window sinks" : "window",
      sinks && whole(state.sinks) ? `${words} with ${count(Number(state.sinks), "sink")}` : words]);
  }
  return used;
}

const isOpen = () => $("beyond-toggle").getAttribute("aria-expanded") === "true";

function setOpen(open) {
  $("beyond-toggle").setAttribute("aria-expanded", String(open));
  $("beyond").hidden = !open;
}

/** Open the group, keeping the focused element where it is on the screen when it stands
 *  below the group (the import's button, at the page's foot: the group grows above it).
 *  Where the browser anchors scrolling (Chrome, Firefox) it has done so by the time the
 *  layout is read, and a scroll of under a pixel would only round it off by one; this is
 *  for the browsers that do not (Safari), and for a page at its top, where none does. */
function openByItself() {
  const held = document.activeElement;
  const below = held !== null && held !== document.body
    && Boolean($("beyond").compareDocumentPosition(held) & Node.DOCUMENT_POSITION_FOLLOWING);
  const top = below ? held.getBoundingClientRect().top : 0;
  setOpen(true);
  const moved = below ? held.getBoundingClientRect().top - top : 0;
  if (Math.abs(moved) >= 1) window.scrollBy(0, moved);
}

/** Draw the group for ``state``, after its controls are drawn and marked: opened by
 *  itself on what it newly holds that matters (a feature used, a control marked), and,
 *  closed, the hint beside its button says what is in use, or else what it holds. */
export function drawBeyond(state) {
  const group = $("beyond");
  const used = features(state);
  const marked = [...group.querySelectorAll('[aria-invalid="true"]')].map((input) => `marked ${input.id}`);
  const matters = [...used.map(([key]) => key), ...marked];
  const before = new Set((group.dataset.matters ?? "").split(",").filter(Boolean));
  group.dataset.matters = matters.join(",");
  const newly = matters.filter((key) => !before.has(key));
  const phone = matchMedia(PHONE).matches;
  if (!isOpen() && newly.some((key) => key.startsWith("marked") || !phone)) openByItself();
  const hint = $("beyond-hint");
  hint.dataset.contents ??= hint.textContent;  // the template's words: what the group holds
  const text = used.length ? `in use: ${used.map(([, words]) => words).join(", ")}` : hint.dataset.contents;
  if (hint.textContent !== text) hint.textContent = text;
  hint.classList.toggle("in-use", used.length > 0);
}

/** The button opens and closes the group. */
export function wireBeyond() {
  $("beyond-toggle").addEventListener("click", () => setOpen(!isOpen()));
}
