// The shuffle test: without positions attention cannot see order — shuffling the tokens
// only shuffles the rows of Z; with positions it changes the numbers themselves.

import { el } from "../../lib/dom.js";
import { formatNumber } from "../../lib/format.js";
import { rng } from "../state.js";

/** A shuffle of 0..n-1 from the seed that moves at least one token (for n > 1). */
export function permutation(n, seed) {
  const next = rng(seed * 31 + n);
  const p = [...Array(n).keys()];
  for (let k = n - 1; k > 0; k--) {
    const r = Math.floor(next() * (k + 1));
    [p[k], p[r]] = [p[r], p[k]];
  }
  if (n > 1 && p.every((v, k) => v === k)) p.push(p.shift());  // never the identity
  return p;
}

/** The request with its tokens (rows of X) in the order ``perm``: new row k is old perm[k]. */
export function shuffledRequest(request, perm, positional) {
  // Everything but the order-dependent parts: the causal mask, masks by hand, the window
  // and its sinks, the row; and the positions of the page's choice, whose settings go with
  // them (the test compares no positions with sinusoidal ones from 0).
  const ORDERED = ["causal", "mask", "window", "sinks", "row", "fields",
    "positional", "rope_base", "position_offset", "alibi_slopes"];
  const weights = Object.fromEntries(Object.entries(request).filter(([key]) => !ORDERED.includes(key)));
  return {
    ...weights, tokens: perm.map((k) => request.tokens[k]), X: perm.map((k) => request.X[k]),
    positional: positional ? "sinusoidal" : null, fields: ["output"],
  };
}

/** Do the shuffled outputs, put back in the original order, match the originals as shown? */
export function sameAsShown(Z, Zshuffled, perm) {
  return perm.every((k, row) => Zshuffled[row].every((v, c) => formatNumber(v) === formatNumber(Z[k][c])));
}

function table(Z, labels) {
  return el("table", { class: "cells shuffle-table" }, el("tbody", {}, ...Z.map((r, i) => el("tr", {},
    el("th", { scope: "row", text: labels[i] }), ...r.map((v) => el("td", { text: formatNumber(v) }))))));
}

/** Two columns, without and with positions: Z, the shuffled tokens' Z, and the verdict. */
export function renderShuffle(host, { tokens, perm, runs }) {
  const shuffled = perm.map((k) => tokens[k]);
  host.replaceChildren(...runs.map(({ title, Z, Zs }) => {
    const same = sameAsShown(Z, Zs, perm);
    return el("div", { class: "shuffle-run" },
      el("h3", { text: title }),
      el("div", { class: "shuffle-pair" },
        el("figure", { class: "matrix" }, el("figcaption", { text: "Z, tokens in order" }), el("div", { class: "scroll" }, table(Z, tokens))),
        el("figure", { class: "matrix" }, el("figcaption", { text: "Z, tokens shuffled" }), el("div", { class: "scroll" }, table(Zs, shuffled)))),
      el("p", { class: same ? "verdict same" : "verdict differs" },
        same ? "Each token's row is unchanged, only moved: without positions, order is invisible."
          : "The rows themselves change: with positions, order matters."));
  }));
}
