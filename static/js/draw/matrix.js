// Draw a read-only matrix: bracketed, right-aligned, 3 decimals, token labels beside rows.
// Re-drawing a matrix of the same size only rewrites the numbers, so nothing jumps.

import { el, setProp, setText, symbols } from "../lib/dom.js";
import { formatNumber } from "../lib/format.js";

// Beyond this many rows or columns a matrix shows its top-left corner and says so:
// the heatmap still shows every weight, and the DOM stays small enough to redraw at once.
export const SHOWN = 16;

/** "Showing 16 of 300 rows and 16 of 40 columns.": only the dimensions that are cut. */
export function truncatedWords(rows, allRows, cols, allCols) {
  const cut = [rows < allRows ? `${rows} of ${allRows} rows` : null, cols < allCols ? `${cols} of ${allCols} columns` : null];
  return `Showing ${cut.filter(Boolean).join(" and ")}.`;
}

/** renderMatrix(figure, spec)
 *  spec: {data: rows of numbers (null = −∞), caption: [name, formula], shape: text,
 *         size: [rows, cols] of the whole matrix when data is only its top-left corner,
 *         rowLabels: [..], highlight: Set of row indices, masked: (i, j) => bool or null} */
export function renderMatrix(figure, spec) {
  const { data, rowLabels, highlight = new Set(), masked = null } = spec;
  const [allRows, allCols] = spec.size ?? [data.length, data[0].length];
  const rows = Math.min(allRows, SHOWN);
  const cols = Math.min(allCols, SHOWN);
  if (data.length < rows || data[0].length < cols) {
    throw new RangeError(`A ${data.length} × ${data[0].length} corner cannot show ${rows} × ${cols} numbers.`);
  }
  const size = `${rows}×${cols}`;
  if (figure.dataset.size !== size) {
    build(figure, rows, cols);
    figure.dataset.size = size;
  }
  const [name, formula] = spec.caption;
  if (figure.dataset.caption !== name + formula + spec.shape) {
    figure.dataset.caption = name + formula + spec.shape;
    figure.querySelector(".name").replaceChildren(...symbols(name));
    // An argument list belongs to its name, "Concat(Z_1, Z_2)"; a formula stands apart.
    figure.querySelector(".formula").replaceChildren(...(formula ? symbols(formula.startsWith("(") ? formula : ` ${formula}`) : []));
    figure.querySelector(".shape").replaceChildren(...symbols(spec.shape));
    nameScroll(figure.querySelector(".scroll"));
  }
  const note = figure.querySelector(".truncated");
  const hidden = allRows > rows || allCols > cols;
  setProp(note, "hidden", !hidden);  // an attribute written again, even unchanged, costs a style pass
  if (hidden) setText(note, truncatedWords(rows, allRows, cols, allCols));

  const labels = figure.querySelector(".row-labels").children;
  const trs = figure.querySelector("tbody").rows;
  for (let i = 0; i < rows; i++) {
    setText(labels[i], rowLabels[i]);
    setProp(labels[i], "title", rowLabels[i]);
    const on = highlight.has(i);
    labels[i].classList.toggle("hl", on);
    trs[i].classList.toggle("hl", on);
    const cells = trs[i].cells;  // cells[0] is the row's header, for screen readers
    setText(cells[0], rowLabels[i]);
    for (let j = 0; j < cols; j++) {
      setText(cells[j + 1], formatNumber(data[i][j]));
      cells[j + 1].classList.toggle("masked", Boolean(masked && masked(i, j)));
    }
  }
}

function build(figure, rows, cols) {
  figure.replaceChildren();
  delete figure.dataset.caption;  // the new caption's spans are empty
  const table = el("table", { class: "cells" });
  const tbody = el("tbody");
  for (let i = 0; i < rows; i++) {
    tbody.append(el("tr", {}, el("th", { scope: "row", class: "visually-hidden" }),
      ...Array.from({ length: cols }, () => el("td"))));
  }
  table.append(tbody);
  const labels = el("div", { class: "row-labels", "aria-hidden": "true" },
    ...Array.from({ length: rows }, () => el("span")));
  const wrap = el("div", { class: "grid-wrap" }, labels, el("div", { class: "brackets" }, table));
  // A tab stop until its first layout says it fits: see "overflowing" below.
  const scroll = el("div", { class: "scroll", tabindex: "0", role: "region" }, wrap);
  keyboardScroll(scroll, wrap);
  figure.append(
    el("figcaption", {}, el("span", { class: "name" }), el("span", { class: "formula" })),
    scroll,
    el("div", { class: "shape" }),
    el("p", { class: "truncated", hidden: true }),
  );
}

// A matrix wider than its box scrolls; only then is its box a tab stop (a named region),
// so the keyboard can scroll it too. A ResizeObserver tells after layout, so no edit
// forces one; the box and its content are both watched, as either may change. A block
// below the screen is laid out only as it nears it (content-visibility: auto), and until
// then the observer says nothing: a new box is a tab stop until its first layout, so a
// keyboard going down the page never passes a wide matrix it could not reach.
const overflowing = globalThis.ResizeObserver ? new ResizeObserver((entries) => {
  for (const scroll of new Set(entries.map((e) => e.target.closest(".scroll")))) {
    const wide = scroll.scrollWidth > scroll.clientWidth;
    if (String(wide) === scroll.dataset.wide) continue;
    scroll.dataset.wide = wide;
    if (wide) {
      scroll.setAttribute("tabindex", "0");
      scroll.setAttribute("role", "region");
      nameScroll(scroll);
    } else ["tabindex", "role", "aria-label"].forEach((k) => scroll.removeAttribute(k));
  }
}) : null;

/** The region's name: the matrix's, and whether it scrolls once that is known. */
function nameScroll(scroll) {
  if (!scroll.hasAttribute("role")) return;
  const name = scroll.closest("figure")?.querySelector(".name")?.textContent || "matrix";
  scroll.setAttribute("aria-label", scroll.dataset.wide === "true" ? `${name}, scrolls sideways` : name);
}

function keyboardScroll(scroll, wrap) {
  overflowing?.observe(scroll);
  overflowing?.observe(wrap);
}
