// Drawing the editor from its store: the inputs and the controls from the state, the
// results from the answer beside it, and what the pointer lights. It reads the state and
// the view and never writes the state; of the view it writes only the pointer's focus, kept
// inside the heatmap the answer draws.

import { keptInside, showCell } from "../draw/heatmap.js";
import { outlineTile } from "../draw/heatmaptile.js";
import { readoutText } from "../draw/readout.js";
import { tileNote } from "../draw/tiles.js";
import { setProp, setText } from "../lib/dom.js";
import { afterPaint } from "../lib/later.js";
import { drawControls } from "./inputs/controls.js";
import { renderInputErrors, renderInputs } from "./inputs/inputs.js";
import { renderLink } from "./results/link.js";
import { marksNote } from "./modelhead/marks.js";
import { requestOf } from "./request.js";
import { drawAnswer, drawWaiting, shownHead } from "./results/results.js";
import { drawStale } from "./stale.js";
import { grouped, shapes } from "./state.js";
import { say } from "./status.js";

const $ = (id) => document.getElementById(id);

/** The inputs' marks: the state's own (request.js) and the server's on the newest request. */
function errors({ state, view }) {
  const all = new Map(requestOf(state).errors);
  for (const [f, m] of view.marks) all.set(f, m);
  return all;
}

/** What ␣ and ↵ stand for, under the heatmap, while the labels show them (a real model's
 *  tokens keep the space before a word). */
function drawMarks(state) {
  const note = marksNote([...state.tokens, ...(state.tokens_kv ?? [])]);
  setText($("token-marks"), note);
  setProp($("token-marks"), "hidden", note === "");
}

/** createPaint(store, {walk, lessons, presetOf, modelHeads, panels}) → {inputs({later}),
 *  results({workingWhenNear}), link(), tile(), stale()}. ``panels`` is told, after each
 *  redraw, to tell the panels mounted on the store (main.js). */
export function createPaint(store, { walk, lessons, presetOf, modelHeads, panels }) {
  /** The inputs and the controls; true while inputs of ``later`` are left to draw. */
  function inputs({ later = null } = {}) {
    const { state, view } = store;
    const marked = errors(store);
    const waiting = renderInputs($("inputs"), state, marked, { later, pages: view.pages });
    const refused = drawControls(state, marked, presetOf(state));
    renderInputErrors($("input-errors"), new Map([...marked, ...refused]), grouped(state));
    modelHeads.drawNote();
    drawMarks(state);
    panels.schedule();
    return waiting;
  }

  /** Draw the last answer for the current selection; the walk and the status follow. */
  function results({ workingWhenNear = false } = {}) {
    const { state, view: { answer, answered, pointer } } = store;
    const body = shownHead(answer, state.head);
    const focus = keptInside(pointer.focus, body.tokens.length, (body.tokens_kv ?? body.tokens).length);
    store.look({ pointer: { ...pointer, focus } });
    const { warning } = drawAnswer(answer, { row: state.row, head: state.head, focus,
      link: pointer.link, workingWhenNear, d_model: shapes(answered).d_model, inputs: requestOf(answered).request,
      present: state.present });
    // The lessons after the frame that paints the numbers: they never hold it up.
    const lesson = { request: requestOf(answered).request, answer, head: state.head, row: state.row };
    afterPaint(() => lessons.draw(lesson));
    // The working is typeset after the paint, and lights the link it was given; by then the
    // pointer or an arrow key may have moved it.
    afterPaint(link);
    tile();
    if (walk.walking()) drawWaiting();  // a step may light, and scroll to, a block below the screen
    walk.draw();
    panels.schedule();
    if (warning) say(warning, { warning: true });
  }

  /** Light the parts of the linked weight, and read it out under a canvas heatmap. */
  function link() {
    const { state, view: { answer, pointer } } = store;
    renderLink($("page"), pointer.link);
    if (!answer) return;
    const body = shownHead(answer, state.head);
    const [n, m] = [body.tokens.length, (body.tokens_kv ?? body.tokens).length];
    const read = pointer.link ?? pointer.tapped;
    const cell = read && read.i < n && read.j < m ? read : null;
    for (const host of $("heatmap").querySelectorAll('.heatmap[data-mode="canvas"]')) {
      const mine = Number(host.closest("[data-head]").dataset.head) === (body.head ?? 0);
      showCell(host, mine ? cell : null, mine ? readoutText(body, cell) : "");
    }
  }

  /** Outline the tile "Step through the tiles" is at, in its head's heatmap (none in the
   *  others), and say under the heatmaps what the box is. */
  function tile() {
    const shownTile = store.view.tile;
    let shown = false;
    for (const host of $("heatmap").querySelectorAll(".heatmap")) {
      const head = Number(host.closest("[data-head]").dataset.head);
      outlineTile(host, shownTile?.head === head ? shownTile : null);
      shown ||= Boolean(host.querySelector(".tile-outline"));
    }
    setProp($("tile-note"), "hidden", !shown);
    setText($("tile-note"), shown ? tileNote(shownTile) : "");
  }

  const stale = () => drawStale(store, requestOf(store.state).request);

  return { inputs, results, link, tile, stale };
}
