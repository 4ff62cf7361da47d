// The export panel: one matrix as text, the heatmap as SVG or PNG, the whole configuration
// as JSON, and the import of one. This module builds the panel; exportactions.js makes its
// parts act, and exportmatrix.js says what each matrix's text is.

import { postOnce } from "../../lib/api.js";
import { el } from "../../lib/dom.js";
import { wireExport } from "./exportactions.js";
import { FORMATS } from "./exportmatrix.js";
import { exercise } from "../../lib/config.js";
import { fromRequest, requestOf } from "../request.js";
import { say } from "../status.js";

const field = (id, text, control) =>
  el("div", { class: "export-field" }, el("label", { for: id, text }), control);

const part = (key, title, note, ...children) =>
  el("section", { class: `export-part export-${key}`, "aria-labelledby": `export-h-${key}` },
    el("h3", { id: `export-h-${key}`, text: title }),
    note && el("p", { class: "export-note", text: note }), ...children);

/** Build the export panel inside ``host`` and wire it; ``page`` gives {state, request, body}
 *  (get), fetches the fields of an answer to that request (fetch), has the server check an
 *  imported request (check → null, or the server's message), takes it (load) and speaks
 *  on the status line (say). Returns {changed}: the page calls changed() after it redraws. */
export function mountExport(host, page) {
  const panel = controls();
  host.classList.add("export");
  host.append(
    part("matrix", "One matrix", null,
      el("div", { class: "export-choices" },
        field("export-matrix", "Matrix", panel.matrix), field("export-format", "Format", panel.format)),
      field("export-preview", "Export preview", panel.preview), panel.about,
      el("div", { class: "export-buttons" }, panel.save, panel.copy)),
    part("heatmap", "The heatmap", "The weights A as a picture, with the token labels and every " +
      "value: SVG to scale freely, PNG at twice the size; or as a slide, 1920 × 1080, with a " +
      "title and the colour bar.",
    el("div", { class: "export-buttons" }, panel.svgButton, panel.pngButton, panel.heatmapSlidePNG,
      panel.heatmapSlideSVG)),
    part("row", "The selected row", "Its working as a slide, from the scores to z; or this " +
      "view's inputs and the row's working with blanks, typeset as a PDF worksheet to print, and " +
      "its answer key with every blank filled in (a worksheet: at most 8 tokens and d 8, no newer " +
      "variant).",
    el("div", { class: "export-buttons" }, panel.workingSlidePNG, panel.workingSlideSVG),
    el("div", { class: "export-choices" }, field("export-level", "Level", panel.level)),
    el("div", { class: "export-buttons" }, panel.worksheetButton, panel.keyButton)),
    part("config", "The whole configuration", "Tokens, X, W_Q, W_K, W_V, the mask and the " +
      "options as JSON (attention.json), in the API's format: importing it rebuilds this view.",
    el("div", { class: "export-buttons" }, panel.exportConfig),
    el("div", { class: "export-config-grid" },
      field("export-file", "Import configuration file", panel.file),
      el("div", {}, field("export-paste", "Paste a configuration", panel.pasted),
        el("div", { class: "export-buttons" }, panel.loadPasted))),
    panel.message));
  return wireExport(host, panel, page);
}

/** The panel's controls, by name, not yet placed. */
function controls() {
  const button = (text) => el("button", { type: "button", text });
  const [save, copy, svgButton, pngButton, heatmapSlidePNG, heatmapSlideSVG, workingSlidePNG,
    workingSlideSVG, worksheetButton, keyButton, exportConfig, loadPasted] = [
    "Download", "Copy", "Download heatmap SVG", "Download heatmap PNG", "Heatmap slide PNG",
    "Heatmap slide SVG", "Working slide PNG", "Working slide SVG", "Download worksheet PDF",
    "Download answer key PDF", "Export configuration", "Load pasted configuration"].map(button);
  return {
    matrix: el("select", { id: "export-matrix" }),
    format: el("select", { id: "export-format" },
      ...Object.entries(FORMATS).map(([value, f]) => new Option(f.text, value))),
    preview: el("textarea", {
      id: "export-preview", class: "export-preview", readonly: true, rows: 7, spellcheck: "false",
      "aria-describedby": "export-about",
    }),
    about: el("p", { id: "export-about", class: "export-about" }),
    level: el("select", { id: "export-level" },
      ...Object.entries(exercise.view_levels ?? {}).map(([value, text]) =>
        new Option(`${text[0].toUpperCase()}${text.slice(1)}`, value, value === "row", value === "row"))),
    save, copy, svgButton, pngButton, heatmapSlidePNG, heatmapSlideSVG, workingSlidePNG,
    workingSlideSVG, worksheetButton, keyButton, exportConfig, loadPasted,
    file: el("input", { id: "export-file", type: "file", accept: ".json,application/json" }),
    pasted: el("textarea", {
      id: "export-paste", class: "export-paste", rows: 4, spellcheck: "false", "aria-describedby": "export-message",
    }),
    // The panel's own live region: an import's problem is read out where the person is.
    message: el("p", { id: "export-message", class: "export-message", "aria-live": "polite" }),
  };
}

/** What the export panel may ask of the page (see mountExport): the view of ``store``,
 *  and an imported configuration handed to ``update``, the page's one path of a change. */
export function exportPage(store, update) {
  return {
    get: () => ({ state: store.state, request: requestOf(store.state).request, body: store.view.answer }),
    // Parts of the answer the page does not hold (whole matrices of which it drew a corner).
    fetch: async (fields) => {
      const { status, body, unreadable } = await postOnce({ ...requestOf(store.state).request, fields, encoding: "base64" });
      if (status !== 200 || unreadable) throw new Error(body.error?.message ?? `error ${status}`);
      return body;
    },
    check: async (request) => {  // the server's own check of an import: null, or its message
      try {
        const { status, body, unreadable } = await postOnce({ ...request, fields: [] });
        return status === 200 && !unreadable ? null : body.error?.message ?? `The server answered ${status}.`;
      } catch {
        return "The configuration could not be checked: the server cannot be reached. Try again.";
      }
    },
    load: (request) => {  // null when loaded, else why the page cannot show it
      try {
        update(fromRequest(request, store.state.seed), { urlNow: true });  // a link copied at once carries it
        return null;
      } catch (err) {
        return `The page cannot show this configuration: ${err.message}.`;
      }
    },
    say,
  };
}
