// Tiny DOM helpers shared by the rendering modules. Text always goes in as text, never HTML.

/** app.css: below this width the stage is one column, the working under the heatmap. */
export const STACKED = "(max-width: 1023px)";

/** After a row of a heatmap is chosen: on a narrow screen, where the working stands under
 *  the heatmap, bring the working's block into view (its "Back to the heatmap" button
 *  returns). Side by side, nothing moves. */
export function showWorking(block) {
  if (matchMedia(STACKED).matches) block.scrollIntoView({ block: "start" });
}

/** The working's "Back to the heatmap": the heatmap's block at the top of the screen, the
 *  focus on its ``cell`` (the one it had), without a second jump. */
export function backToHeatmap(block, cell) {
  cell?.focus({ preventScroll: true });
  block.scrollIntoView({ block: "start" });
}

/** el("td", {class: "x", "aria-label": "…"}, child or text, …) */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child);
  }
  return node;
}

/** The element under ``host`` with this data-key, created by ``make`` the first time. */
export function keyed(host, key, make) {
  let node = host.querySelector(`:scope > [data-key="${key}"]`);
  if (!node) {
    node = make();
    node.dataset.key = key;
    host.append(node);
  }
  return node;
}

/** Text with TeX-like sub- and superscripts as nodes: "X·W_Q" → X·W<sub>Q</sub>,
 *  "d_model" → d<sub>model</sub>, "e^s" → e<sup>s</sup>. */
export function symbols(text) {
  // One letter or two capitals before the mark (d_k, PE_kv), so that is_causal stays a word.
  return text.split(/\b((?:[A-Za-z]|[A-Z]{2})[_^][A-Za-z0-9]+)/).map((part) => {
    const m = /^([A-Za-z]|[A-Z]{2})([_^])([A-Za-z0-9]+)$/.exec(part);
    return m ? el("span", {}, m[1], el(m[2] === "_" ? "sub" : "sup", { text: m[3] })) : part;
  }).filter((part) => part !== "");
}

/** Make ``node``'s text ``text``, writing only when it differs, and into the text node it
 *  already holds when it holds just one: a new node would be styled and laid out afresh.
 *  (An edit rewrites ~30 numbers. In chromium, rewriting the 42 numbers of the steps'
 *  matrices this way took their frame from 7.2 to 6.6 ms, median of 30.) */
export function setText(node, text) {
  const only = node.firstChild;
  if (only !== null && only === node.lastChild && only.nodeType === Node.TEXT_NODE) {
    if (only.data !== text) only.data = text;
  } else if (node.textContent !== text) {
    node.textContent = text;
  }
}

/** Set an attribute only when it differs (a write of the same value still restyles). */
export function setAttr(node, name, value) {
  if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}

/** Set node[prop] only when it differs: the controls are redrawn on every keystroke, and
 *  writing only what changed spares the browser a style and layout pass over them. */
export function setProp(node, prop, value) {
  if (node[prop] !== value) node[prop] = value;
}
