// The scaling lab's plots as SVG, built with DOM calls (the CSP allows no HTML strings) and
// styled by lab.css: elements, the frame of a plot with its ticks and titles, its legend.

import { BOX, dkOf } from "./labmaths.js";

export const setAttrs = (node, attrs) => Object.entries(attrs).forEach(([a, v]) => node.setAttribute(a, v));
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  setAttrs(node, attrs);
  node.append(...children);
  return node;
}

/** "d_k" as SVG text: k smaller and lowered, and whatever follows back on the line. */
export const sub = (text) => text.split(/_(\w)/).map((part, k) =>
  (k % 2 ? svg("tspan", { class: "sub", dy: 3 }, part) : k ? svg("tspan", { dy: -3 }, part) : part));
export const dot = (x, y) => svg("circle", { class: "dot", cx: x, cy: y, r: 3 });
export const square = (x, y) => svg("rect", { class: "square", x: x - 3, y: y - 3, width: 6, height: 6 });

/** Plot area, grid, ticks and axis titles; ticks are [value, label] pairs. With ``clip``
 *  (an id), the plot area is also a clip path of that id, for lines that must not leave it. */
export function frame({ x, y }, xTicks, yTicks, xTitle, yTitle, clip = null) {
  const [x0, x1, y0, y1] = [BOX.left, BOX.width - BOX.right, BOX.height - BOX.bottom, BOX.top];
  const area = { x: x0, y: y1, width: x1 - x0, height: y0 - y1 };
  return svg("svg", { class: "lab-plot", viewBox: `0 0 ${BOX.width} ${BOX.height}`, width: BOX.width, height: BOX.height, role: "img" },
    ...(clip ? [svg("defs", {}, svg("clipPath", { id: clip }, svg("rect", area)))] : []),
    svg("rect", { class: "area", ...area }),
    ...yTicks.map(([v, t]) => svg("g", {}, svg("line", { class: "grid", x1: x0, x2: x1, y1: y(v), y2: y(v) }),
      svg("text", { x: x0 - 6, y: y(v) + 4, "text-anchor": "end" }, t))),
    ...xTicks.map(([v, t]) => svg("g", {}, svg("line", { class: "axis", x1: x(v), x2: x(v), y1: y0, y2: y0 + 4 }),
      svg("text", { x: x(v), y: y0 + 16, "text-anchor": "middle" }, t))),
    svg("polyline", { class: "axis", points: `${x0},${y1} ${x0},${y0} ${x1},${y0}` }),
    svg("text", { class: "title", x: (x0 + x1) / 2, y: BOX.height - 8, "text-anchor": "middle" }, ...sub(xTitle)),
    svg("text", { class: "title", transform: `translate(13 ${(y0 + y1) / 2}) rotate(-90)`, "text-anchor": "middle" }, ...sub(yTitle)));
}

/** Legend rows at (x, y): [line class, text, marker or null]. */
export const legend = (x, y, width, items) => svg("g", { class: "legend" },
  svg("rect", { class: "area", x: x - 4, y: y - 8, width, height: 16 * items.length }), ...items.map(([cls, text, mark], k) =>
  svg("g", { transform: `translate(${x} ${y + 16 * k})` }, svg("line", { class: cls, x1: 0, x2: 22, y1: 0, y2: 0 }),
    ...(mark ? [mark(11, 0)] : []), svg("text", { x: 28, y: 4 }, ...sub(text)))));

export const powerTicks = (exponents) => exponents.map((e) => [e, String(dkOf(e))]);
