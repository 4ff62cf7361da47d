// What the export panel's parts do: the preview follows the page, Download and Copy give
// the matrix chosen, the heatmap is saved as SVG or PNG, a configuration is exported or
// imported. The page never tells the panel about edits, so every number comes from
// page.get() at the moment it is shown or used; nothing computed is kept for later.

import { el } from "../../lib/dom.js";
import { download, saveTypeset } from "../../lib/typeset.js";
import { urls } from "../../lib/config.js";
import { configToJSON, heatmapToSVG, readConfig } from "./export.js";
import { available, exportMatrix, INVALID, matrixExport } from "./exportmatrix.js";

// A textarea holding megabytes (A at 512 tokens) makes every refresh slow; the preview
// shows the start, while Download and Copy always use the whole text.
const PREVIEW_MAX = 60000;

// Text files get a final newline, as text files have.
const textURL = (text, type) => `data:${type};charset=utf-8,${encodeURIComponent(text + "\n")}`;

/** Draw the SVG on a canvas at twice its size (less if that would pass the canvas limits)
 *  and return a PNG data: URL. The image is a data: URL, which img-src allows. */
async function svgToPNG(svg) {
  const img = new Image();
  img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
  await img.decode();
  const scale = Math.min(2, 16384 / Math.max(img.naturalWidth, img.naturalHeight));
  const canvas = el("canvas", {
    width: Math.round(img.naturalWidth * scale), height: Math.round(img.naturalHeight * scale),
  });
  canvas.getContext("2d").drawImage(img, 0, 0, canvas.width, canvas.height);
  return canvas.toDataURL("image/png");
}

/** Make the built ``panel`` (exportpanel.js's controls) act for ``page`` (see mountExport).
 *  Returns {changed}. */
export function wireExport(host, panel, page) {
  const warn = (text) => void page.say(text, { warning: true });  // → undefined: nothing to export
  const preview = createPreview(panel, page);
  panel.matrix.addEventListener("change", () => preview.refresh());
  panel.format.addEventListener("change", () => preview.refresh());
  // Whenever the panel is used, when it comes on screen, and — while it is on screen —
  // whenever the page redraws (the page calls the returned changed()). Off screen the
  // preview waits, so typing at 256 tokens pays nothing for it.
  host.addEventListener("focusin", () => preview.refresh());
  host.addEventListener("pointerenter", () => preview.refresh());
  let visible = false;
  new IntersectionObserver(([entry]) => {
    visible = entry.isIntersecting;
    if (visible) preview.refresh();
  }).observe(host);
  preview.refresh({ choicesOnly: true });  // the choices at once; the preview when it is seen
  wireMatrixButtons(panel, page, preview, warn);
  wireHeatmapButtons(panel, page, warn);
  wireTypeset(panel, page);
  wireConfig(panel, page, warn);
  // The choices follow every redraw (cheap); the preview's text only while it is seen.
  return { changed: () => preview.refresh({ choicesOnly: !visible }) };
}

/** The preview of the matrix and format chosen. refresh({choicesOnly}): the choices follow
 *  the page, and (unless choicesOnly) the preview too, when anything it shows changed.
 *  exportNow(now): the export chosen, for the page as it is, which the preview and a
 *  Download or Copy right after it share (one fetch of a whole matrix); a failed fetch is
 *  forgotten, so the next try fetches again. */
function createPreview(panel, page) {
  const { matrix, format } = panel;
  let shown = {};  // what the preview was computed from, compared by identity: cheap
  let ticket = 0;  // the newest preview: a fetch that comes back late is not shown
  let last = { key: [], result: null };
  function exportNow(now) {
    const key = [now.state, now.body, matrix.value, format.value];
    if (!key.every((k, i) => k === last.key[i])) {
      const result = exportMatrix(now, matrix.value, format.value, page.fetch);
      last = { key, result };
      result.then((out) => { if (!out.ok && last.result === result) last = { key: [], result: null }; });
    }
    return last.result;
  }
  function refresh({ choicesOnly = false } = {}) {
    const now = page.get();
    showChoices(matrix, available(now));
    if (choicesOnly) return;
    if (shown.state === now.state && shown.body === now.body && shown.matrix === matrix.value
        && shown.format === format.value) return;
    shown = { state: now.state, body: now.body, matrix: matrix.value, format: format.value };
    const mine = ++ticket;
    const out = matrixExport(now, matrix.value, format.value);
    if (!out.fetch) {
      showPreview(panel, out);
      return;
    }
    showPreview(panel, { ok: false, message: "Fetching the whole matrix…" });
    exportNow(now).then((whole) => {
      if (mine === ticket) showPreview(panel, whole);
    });
  }
  return { refresh, exportNow };
}

/** The matrices to choose from, [{id, text}] (available's), in the select ``matrix``. */
function showChoices(matrix, choices) {
  // (An <option>'s id is "", not its value: compare values.)
  const listed = [...matrix.options].map((o) => `${o.value}:${o.text}`).join();
  if (choices.map((c) => `${c.id}:${c.text}`).join() === listed) return;
  // Rebuilt only when the list changes, so an open select is not disturbed; the choice
  // stays when it is still there.
  const keep = matrix.value || "W_Q";
  matrix.replaceChildren(...choices.map((m) => new Option(m.text, m.id)));
  matrix.value = choices.some((m) => m.id === keep) ? keep : "X";
}

/** Show an export ({ok, text, file, shape} or {ok: false, message}) in the preview. */
function showPreview({ preview, about, format }, out) {
  // CSV rows must not wrap or they stop looking like rows; one-line formats read better wrapped.
  preview.wrap = out.ok && format.value === "csv" ? "off" : "soft";
  preview.value = !out.ok ? out.message
    : out.text.length > PREVIEW_MAX ? `${out.text.slice(0, PREVIEW_MAX)}\n…` : out.text;
  preview.classList.toggle("is-problem", !out.ok);
  about.textContent = !out.ok ? "" : [out.file, out.shape,
    format.value === "latex" ? "3 decimals, 4 significant figures from 100000" : "full precision",
    out.text.length > PREVIEW_MAX ? "preview shortened: Download and Copy give all of it" : ""]
    .filter(Boolean).join(" · ");
}

/** Download and Copy of the matrix chosen. */
function wireMatrixButtons({ save, copy, preview: box }, page, preview, warn) {
  const fresh = async () => {
    preview.refresh();
    const out = await preview.exportNow(page.get());
    return out.ok ? out : warn(out.message);
  };
  save.addEventListener("click", async () => {
    const out = await fresh();
    if (out) download(out.file, textURL(out.text, out.type));
  });
  copy.addEventListener("click", async () => {
    const out = await fresh();
    if (!out) return;
    try {
      await navigator.clipboard.writeText(out.text);
      page.say("Copied", { clearAfter: 4000 });
    } catch {
      // No clipboard permission: hand over the whole text, selected, for Ctrl+C.
      box.value = out.text;
      box.focus();
      box.select();
      page.say("The browser refused to copy: the text is selected, press Ctrl+C (⌘C) to copy it.");
    }
  });
}

/** {svg, file} of the heatmap the page shows (with several heads, the shown head's), or
 *  undefined after a warning; beyond 24 tokens the page holds its weights as bytes, so the
 *  exact ones are fetched. */
async function heatmapSVG(page, warn) {
  const { state, request, body } = page.get();
  if (!request) return warn(INVALID);
  const k = state.heads > 1 ? state.head : null;
  let shown = k === null ? body : body?.heads?.[k];
  if (!shown?.mask) return warn("There are no weights yet.");
  if (!shown.weights) {
    const [weights, mask] = k === null ? ["weights", "mask"] : [`heads[${k}].weights`, `heads[${k}].mask`];
    try {
      const answer = await page.fetch([weights, mask]);
      shown = k === null ? answer : answer.heads[k];
    } catch (err) {
      return warn(`The weights could not be fetched (${err.message}); try again.`);
    }
  }
  const svg = heatmapToSVG(shown.weights, shown.mask, body.tokens, { keys: body.tokens_kv ?? body.tokens });
  return { svg, file: k === null ? "attention" : `attention-head-${k + 1}` };
}

function wireHeatmapButtons({ svgButton, pngButton }, page, warn) {
  svgButton.addEventListener("click", async () => {
    const out = await heatmapSVG(page, warn);
    if (out) download(`${out.file}.svg`, textURL(out.svg, "image/svg+xml"));
  });
  pngButton.addEventListener("click", async () => {
    const out = await heatmapSVG(page, warn);
    if (out) {
      svgToPNG(out.svg).then((png) => download(`${out.file}.png`, png),
        (err) => warn(`The PNG could not be drawn (${err.message}); try the SVG.`));
    }
  });
}

/** Typeset on the server (typeset.js): the heatmap's and the selected row's slides
 *  (POST /api/slide) and the row's worksheet and key (POST /api/worksheet). What the
 *  server cannot make, it says why, in the panel's own live region, where the person is. */
function wireTypeset(panel, page) {
  const { message } = panel;
  const tell = (text, warning) => {
    message.classList.toggle("is-warning", warning);
    message.textContent = text;
  };
  const act = (button, url, bodyOf, done, needsRow) => button.addEventListener("click", async () => {
    const { state, request } = page.get();
    if (!request) return tell("Nothing to typeset: a cell is not a number.", true);
    if (needsRow && (request.row === null || request.row === undefined)) {
      return tell("Select a row first: click a row of the heatmap.", true);
    }
    button.disabled = true;
    tell("Typesetting…", false);
    const problem = await saveTypeset(url, bodyOf(request, state), "attention.pdf");
    button.disabled = false;
    tell(problem ?? done, Boolean(problem));
  });
  const slide = (what, format) => (request, state) => ({
    request, what, format, ...(state.heads > 1 ? { head: state.head } : {}),
  });
  act(panel.heatmapSlidePNG, urls.slide, slide("heatmap", "png"), "Heatmap slide saved.", false);
  act(panel.heatmapSlideSVG, urls.slide, slide("heatmap", "svg"), "Heatmap slide saved.", false);
  act(panel.workingSlidePNG, urls.slide, slide("working", "png"), "Working slide saved.", true);
  act(panel.workingSlideSVG, urls.slide, slide("working", "svg"), "Working slide saved.", true);
  const sheet = (key) => (request) => ({ request, level: panel.level.value, key });
  act(panel.worksheetButton, urls.worksheet, sheet(false), "Worksheet saved.", true);
  act(panel.keyButton, urls.worksheet, sheet(true), "Answer key saved.", true);
}

/** Export the configuration; import one from a file or pasted text. */
function wireConfig({ exportConfig, file, pasted, loadPasted, message }, page, warn) {
  exportConfig.addEventListener("click", () => {
    const { request } = page.get();
    if (!request) return warn(INVALID);
    return download("attention.json", textURL(configToJSON(request), "application/json"));
  });
  /** Read, have the server check, then load; on a problem the page is left exactly as it
   *  was, and the panel and the status line say why. ``source`` names the text in the
   *  status once imported ("Imported attention.json"), ``what`` in a problem's message. */
  async function load(text, source, what) {
    const read = readConfig(text, what);
    const problem = !read.ok ? read.message : (await page.check(read.request)) ?? page.load(read.request);
    message.classList.toggle("is-warning", Boolean(problem));
    message.textContent = problem ?? "";
    if (problem) return warn(problem);
    page.say(`Imported ${source}`, { clearAfter: 6000 });
  }
  file.addEventListener("change", async () => {
    const chosen = file.files[0];
    if (!chosen) return;
    const text = await chosen.text();
    file.value = "";  // choosing the same file again, after editing it, loads it again
    await load(text, chosen.name, `“${chosen.name}”`);
  });
  loadPasted.addEventListener("click", () => {
    if (!pasted.value.trim()) {
      message.classList.add("is-warning");
      message.textContent = "Paste a configuration (the JSON of an exported attention.json) first.";
      return;
    }
    load(pasted.value, "the pasted configuration", "The pasted text");
  });
}
