// The lessons block: which lessons the answered request calls for, their side requests
// (the same request with one thing changed, asking only the fields shown) and their
// drawing. paint.js draws them after the frame that paints the main answer, and a side
// request leaves after the next, so neither delays it; an answer to a request the view
// no longer wants is dropped.

import { postOnce, requestJSON } from "../../lib/api.js";
import { morph } from "../../lib/morph.js";
import { el } from "../../lib/dom.js";
import { afterPaint } from "../../lib/later.js";
import { kvReaders, lessonKinds, ropeOffsets, sideRequests } from "./lessons.js";
import { alibiLesson, biasLesson, gqaLesson, ropeLesson, windowLesson } from "./lessonviews.js";
import { drawableHead, shownHead } from "../results/results.js";
import { typeset } from "../../draw/tex.js";

/** createLessons(host, {post}) → {draw({request, answer, head, row})}: ``request`` is the
 *  one ``answer`` answers (the page's POST /api/attention body), ``head`` and ``row`` the
 *  ones selected. The block around ``host`` is hidden while no lesson applies. */
export function createLessons(host, { post = postOnce, quietMs = QUIET_MS } = {}) {
  const block = host.closest("section") ?? host;
  // JSON of a side request → {pending: true} | {body} | {error}: only the ones the newest
  // drawing wants are kept.
  const sides = new Map();
  let view = null;
  // A large view's side requests, waiting for the edits to pause (see QUIET_MS).
  let waiting = [];
  let timer = null;

  function draw(next) {
    const body = shownHead(next.answer, next.head);
    // A new selection's numbers arrive with the next answer; until then the old ones stay.
    if (next.row !== null && body.working?.row !== next.row) return;
    view = next;
    const kinds = lessonKinds(next.request);
    block.hidden = kinds.length === 0;
    const wanted = wantedSides(kinds, next);
    for (const key of sides.keys()) if (!wanted.has(key)) sides.delete(key);
    for (const [key, request] of wanted) if (!sides.has(key)) ask(key, request);
    render(kinds, body, wanted);
  }

  function ask(key, request) {
    sides.set(key, { pending: true });
    const settle = (value) => {
      if (!sides.has(key)) return;  // no longer wanted: a newer view asked for others
      sides.set(key, value);
      draw(view);
    };
    const send = () => {
      if (!sides.has(key)) return;  // a newer view no longer wants it: never sent
      post(request).then(
        ({ status, body, unreadable }) => settle(status === 200 && !unreadable ? { body } : { error: body.error?.message ?? `the server answered ${status}.` }),
        () => settle({ error: "the server cannot be reached." }));
    };
    if (inputCells(request) <= QUIET_CELLS) {
      afterPaint(send);
      return;
    }
    waiting.push(send);
    clearTimeout(timer);
    timer = setTimeout(() => {
      const now = waiting;
      waiting = [];
      now.forEach((go) => afterPaint(go));
    }, quietMs);
  }

  function render(kinds, body, wanted) {
    const side = (kind, name) => {
      const key = wanted.byName.get(`${kind}.${name}`);
      const got = key === undefined ? undefined : sides.get(key);
      return got?.pending ? undefined : got;
    };
    morph(host, kinds.map((kind) => lessonOf(kind, view, body, (name) => side(kind, name))));
    typeset(host);
  }

  return { draw };
}

// Beyond QUIET_CELLS inputs a lesson's side requests leave once the edits have paused for
// QUIET_MS, and only those the view then still wants. A real model's head (SmolLM2: 184,320
// inputs, ~0.8 to 3.8 MB a request) has three for its RoPE lesson: sent after every edit
// they were three times the main request's work at the server, and held up the next
// edit's answer (benchmarks/bench_browser.py: ~120 ms from a keystroke to the answer,
// against ~37 ms for the main request alone).
export const QUIET_CELLS = 50000;
export const QUIET_MS = 400;

const ids = new WeakMap();
let lastId = 0;
const idOf = (request) => {
  if (!ids.has(request)) ids.set(request, ++lastId);
  return ids.get(request);
};

/** The numbers of a request's input matrices and bias rows (its body's size, roughly). */
export function inputCells(request) {
  const heads = [...(request.heads ?? [request]), ...(request.kv_heads ?? [])];
  const size = (m) => (Array.isArray(m) ? m.length * (Array.isArray(m[0]) ? m[0].length : 1) : 0);
  return size(request.X) + size(request.X_kv) + size(request.W_O)
    + heads.reduce((sum, h) => sum + ["W_Q", "W_K", "W_V", "b_Q", "b_K", "b_V"].reduce((s, k) => s + size(h[k]), 0), 0);
}

/** The side requests the lessons of ``kinds`` want: a Map JSON → request, with byName
 *  "kind.name" → JSON. None without a selected row (the comparisons are of its numbers). */
function wantedSides(kinds, { request, answer, head, row }) {
  const wanted = new Map();
  wanted.byName = new Map();
  if (row === null) return wanted;
  const h = drawableHead(answer, head);
  // A large request's side requests are keyed by the request they vary and what they ask,
  // not by their JSON: three 3.7 MB texts per drawing took ~20 ms of each edit of a
  // SmolLM2 head (benchmarks/bench_browser.py). (The page's request is one object per
  // state, request.js's requestOf(); two views then share no side request, which costs nothing.)
  const large = inputCells(request) > QUIET_CELLS;
  for (const kind of kinds) {
    for (const [name, side] of Object.entries(sideRequests(kind, request, h))) {
      const key = large ? `${idOf(request)}:${h}:${kind}.${name}` : requestJSON(side);
      wanted.set(key, side);
      wanted.byName.set(`${kind}.${name}`, key);
    }
  }
  return wanted;
}

/** The numbers a side answer holds for head ``h``, read by ``pick``; a failure as is. */
function read(side, h, pick) {
  if (!side || side.error) return side;
  return { value: pick(side.body.heads ? side.body.heads[h] : side.body) };
}

const scoresOf = (a) => ({ q: a.working.q, dots: a.working.dots });

function lessonOf(kind, { request, answer }, body, side) {
  const w = body.working;
  const h = body.head ?? 0;
  const keys = body.tokens_kv ?? body.tokens;
  if (kind === "gqa") {
    return gqaLesson({ H: request.heads.length, G: request.kv_heads.length, d_k: body.d_k, d_v: body.V[0].length,
      tokens: keys.length, readers: answer.heads ? kvReaders(answer.heads) : null });
  }
  if (kind === "window") {
    return windowLesson({ band: { window: request.window, sinks: request.sinks ?? 0 }, mask: body.mask, keys });
  }
  if (!w) return el("section", { class: "lesson", "data-lesson": kind }, el("p", { class: "prompt", text: "Select a row of the heatmap to see this lesson with its numbers." }));
  const i = w.row + 1;
  if (kind === "rope") {
    return ropeLesson({ i, offsets: ropeOffsets(request), here: scoresOf({ working: w }),
      rope: read(side("rope"), h, scoresOf), sinA: read(side("sinA"), h, scoresOf), sinB: read(side("sinB"), h, scoresOf) });
  }
  if (kind === "bias") {
    return biasLesson({ w, i, K: body.K, rope: request.positional === "rope", noKeyBias: read(side("noKeyBias"), h, (a) => a.working.weights) });
  }
  return alibiLesson({ w, i, keys, plain: read(side("plain"), h, (a) => a.working.weights) });
}
