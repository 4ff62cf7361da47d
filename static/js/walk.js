// "Walk me through it": the calculation of one query, one block at a time, each step
// lighting the block and the numbers it uses. Steps are data; drawing is one function.

import { el } from "./dom.js";

const row = (key, k) => `figure[data-key="${key}"] tbody tr:nth-child(${k + 1})`;

/** Each step: the block it is in, what to light (given the query i and the keys it may
 *  read), and what to say. */
export const STEPS = [
  { block: ".block-inputs", light: (i) => [row("X", i)], say: (t, i) => `The query token “${t}” starts as its embedding: row ${i + 1} of X.` },
  { block: ".block-projections", light: (i) => [row("Q", i)], say: (t) => `Multiplying that embedding by W_Q gives its query vector q, the row of Q for “${t}”: what it is looking for.` },
  { block: ".block-projections", light: (i, keys) => keys.map((j) => row("K", j)), say: () => "Every token it may read is multiplied by W_K: the rows of K are the keys it will be compared with." },
  { block: ".block-scores", light: (i) => [row("S", i)], say: (t) => `The dot product of q with each key gives the raw scores of “${t}”: one row of QKᵀ.` },
  { block: ".block-scores", light: (i) => [row("SS", i)], say: () => "Each score is divided by √d_k, so their spread does not grow with the width of the vectors." },
  { block: ".block-weights", light: (i) => [`table.grid tbody tr:nth-child(${i + 1})`, `[role="row"][data-i="${i}"]`], say: () => "The softmax turns the scaled scores into weights: e^s for each key over their sum. They are positive and add up to 1." },
  { block: ".block-projections", light: (i, keys) => keys.map((j) => row("V", j)), say: () => "Every token it may read also gives a value vector: the rows of V, what it passes on." },
  { block: ".block-weights", light: (i) => [row("Z", i)], say: (t) => `The output z for “${t}” is the weighted sum of those values, each weighted by its row of A. That is the end of the calculation.` },
];

const LIT = "walk-lit";
const BLOCK = "walk-block";

/** Draw step ``k`` (0-based) for query ``i``, or clear the walk when ``k`` is null. */
export function renderWalk(root, panel, { k, i, token, keys }) {
  for (const node of root.querySelectorAll(`.${LIT}, .${BLOCK}`)) node.classList.remove(LIT, BLOCK);
  if (k === null) {
    panel.hidden = true;
    return;
  }
  const step = STEPS[k];
  root.querySelector(step.block)?.classList.add(BLOCK);
  for (const selector of step.light(i, keys)) {
    for (const node of root.querySelectorAll(selector)) node.classList.add(LIT);
  }
  panel.hidden = false;
  panel.querySelector(".walk-count").textContent = `Step ${k + 1} of ${STEPS.length}`;
  panel.querySelector(".walk-text").textContent = step.say(token, i);
  panel.querySelector(".walk-prev").disabled = k === 0;
  panel.querySelector(".walk-next").textContent = k === STEPS.length - 1 ? "Finish" : "Next";
}

/** The panel's fixed parts, built once. */
export function walkPanel() {
  return el("div", { class: "walk", role: "region", "aria-label": "Walk through the calculation", hidden: true },
    el("p", { class: "walk-count" }),
    el("p", { class: "walk-text", "aria-live": "polite" }),
    el("p", { class: "walk-buttons" },
      el("button", { type: "button", class: "walk-prev", text: "Previous" }),
      el("button", { type: "button", class: "walk-next", text: "Next" }),
      el("button", { type: "button", class: "walk-end", text: "End the walk" })));
}
