// Export and import: one matrix as text, the heatmap as SVG or PNG, the whole configuration
// as JSON. The page never tells this panel about edits, so every number comes from
// page.get() at the moment it is shown or used; nothing computed is kept for later.

import { el } from "./dom.js";
import {
  configToJSON, heatmapToSVG, matrixToCSV, matrixToJSON, matrixToLatex, matrixToNumpy, readConfig,
} from "./export.js";

// The matrices in the order of the calculation. `from`: the typed inputs (the request) or
// the engine's answer (the body). `rows`/`cols`: which labels name the rows and columns in
// CSV when they are tokens ("keys": the key/value tokens, the same ones in self-attention).
// `head`: with several heads, the shown head's own (under request.heads / body.heads);
// `several`: only with several heads. `name` is the file name and the Python variable.
const MATRICES = [
  { id: "X", text: "X (embeddings)", from: "request", rows: "tokens" },
  { id: "X_kv", text: "X_kv (key/value embeddings)", from: "request", rows: "keys" },
  ...["W_Q", "W_K", "W_V"].map((id) => ({ id, text: id, from: "request", head: true })),
  { id: "Q", text: "Q (queries)", from: "body", head: true, rows: "tokens" },
  { id: "K", text: "K (keys)", from: "body", head: true, rows: "keys" },
  { id: "V", text: "V (values)", from: "body", head: true, rows: "keys" },
  { id: "scores", text: "QKᵀ (scores)", from: "body", head: true, rows: "tokens", cols: "keys" },
  { id: "scaled_scores", text: "Scaled scores (the scale × QKᵀ)", from: "body", head: true, rows: "tokens", cols: "keys" },
  { id: "weights", name: "A", text: "A (weights)", from: "body", head: true, rows: "tokens", cols: "keys" },
  { id: "output", name: "Z", text: "Z (output)", from: "body", head: true, rows: "tokens" },
  { id: "concat", name: "Concat", text: "Concat (the heads' Z side by side)", from: "body", several: true, rows: "tokens" },
  { id: "W_O", text: "W_O", from: "request", several: true },
  { id: "final", key: "output", name: "output", text: "Output = Concat·W_O", from: "body", several: true, rows: "tokens" },
].map((m) => ({ key: m.id, name: m.id, ...m }));

const FORMATS = {
  csv: { text: "CSV", ext: "csv", type: "text/csv" },
  json: { text: "JSON", ext: "json", type: "application/json" },
  latex: { text: "LaTeX", ext: "tex", type: "application/x-tex" },
  numpy: { text: "NumPy", ext: "py", type: "text/x-python" },
};

// A textarea holding megabytes (A at 512 tokens) makes every refresh slow; the preview
// shows the start, while Download and Copy always use the whole text.
const PREVIEW_MAX = 60000;
const INVALID = "An input on the page is not a number yet: fix the marked cell, then export.";

/** One entry of MATRICES on this page: its matrix (or undefined), labels, name and text. */
function resolve({ state, request, body }, spec) {
  const k = spec.head && state.heads > 1 ? state.head : null;  // which head is shown
  const source = spec.from === "request" ? request : body;
  return {
    m: (k === null ? source : source?.heads?.[k])?.[spec.key],
    labels: { tokens: source?.tokens, keys: source?.tokens_kv ?? source?.tokens },
    name: k === null ? spec.name : `${spec.name}_${k + 1}`,
    text: k === null ? spec.text : `${spec.text}, head ${k + 1}`,
    field: k === null ? spec.key : `heads[${k}].${spec.key}`,  // its name in the API's fields
  };
}

/** [rows, cols] of a result as the request computes it (the page fetches only corners of
 *  some, and none of others beyond 16 tokens). */
function wholeShape({ state, request }, spec) {
  const head = request.heads ? request.heads[state.head] : request;
  const n = request.X.length;
  const m = request.X_kv?.length ?? n;
  const [d_k, d_v] = [head.W_Q[0].length, head.W_V[0].length];
  return {
    Q: [n, d_k], K: [m, d_k], V: [m, d_v], scores: [n, m], scaled_scores: [n, m], weights: [n, m],
    output: [n, d_v], concat: [n, (request.heads ?? [request]).reduce((w, h) => w + h.W_V[0].length, 0)],
    final: [n, request.X[0].length],
  }[spec.id];
}

/** The text of one matrix in one format: {ok, text, file, type, shape}, {ok: false, message}
 *  or, for a result the page's answer holds only in part, {ok: false, fetch: its API field}
 *  (exportMatrix fetches it). ``whole``: that result, fetched. */
export function matrixExport(now, id, format, whole = null) {
  const spec = MATRICES.find((m) => m.id === id);
  // With an invalid input the answer on screen is out of date too, so nothing is exported.
  if (!now.request) return { ok: false, message: INVALID };
  const { m: held, labels, name, text: title, field } = resolve(now, spec);
  if (spec.from === "body" && !now.body) return { ok: false, message: `${title} is not computed yet.` };
  let m = whole ?? held;
  if (spec.from === "body" && !whole) {
    const [rows, cols] = wholeShape(now, spec);
    if (!m || m.length !== rows || m[0].length !== cols) return { ok: false, fetch: field };
  }
  const text = format === "csv"
    ? matrixToCSV(m, { rowLabels: labels[spec.rows] ?? null, header: labels[spec.cols] ?? null })
    : format === "json" ? matrixToJSON(m)
      : format === "latex" ? matrixToLatex(m)
        : `import numpy as np\n\n${matrixToNumpy(name, m)}`;
  const { ext, type } = FORMATS[format];
  return { ok: true, text, file: `${name}.${ext}`, type, shape: `${m.length} × ${m[0].length}` };
}

/** matrixExport, fetching what the answer holds only in part with ``fetchFields(fields)``
 *  (→ a decoded answer holding those fields). Resolves to {ok, …} as matrixExport does. */
export async function exportMatrix(now, id, format, fetchFields) {
  const out = matrixExport(now, id, format);
  if (!out.fetch) return out;
  const spec = MATRICES.find((m) => m.id === id);
  try {
    const answer = await fetchFields([out.fetch]);
    return matrixExport(now, id, format, resolve({ ...now, body: answer }, spec).m);
  } catch (err) {
    return { ok: false, message: `${resolve(now, spec).text} could not be fetched (${err.message}); try again.` };
  }
}

/** The choices, [{id, text}]: the inputs always (even while one is invalid), the results
 *  once there is an answer. */
export function available(now) {
  const { state } = now;
  return MATRICES.filter((s) => (s.several ? state.heads > 1 : true) && (s.from === "body"
    ? now.body : s.id !== "X_kv" || state.X_kv))
    .map((s) => ({ id: s.id, text: resolve(now, s).text }));
}

// Downloads go through <a download> with a data: URL, which needs no revoking (a blob: URL
// revoked too early cancels the download); chromium saves data: URLs of 30 MB without fuss.
// Text files get a final newline, as text files have.
function download(file, href) {
  const a = el("a", { href, download: file, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
}
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

const field = (id, text, control) =>
  el("div", { class: "export-field" }, el("label", { for: id, text }), control);

/** Build the export panel inside ``host``; ``page`` gives {state, request, body} (get),
 *  fetches the fields of an answer to that request (fetch), has the server check an
 *  imported request (check → null, or the server's message) and takes it (load).
 *  Returns {changed}: the page calls changed() after it redraws. */
export function mountExport(host, page) {
  const matrix = el("select", { id: "export-matrix" });
  const format = el("select", { id: "export-format" },
    ...Object.entries(FORMATS).map(([value, f]) => new Option(f.text, value)));
  const preview = el("textarea", {
    id: "export-preview", class: "export-preview", readonly: true, rows: 7, spellcheck: "false",
    "aria-describedby": "export-about",
  });
  const about = el("p", { id: "export-about", class: "export-about" });
  const button = (text) => el("button", { type: "button", text });
  const [save, copy, svgButton, pngButton, exportConfig, loadPasted] = ["Download", "Copy",
    "Download heatmap SVG", "Download heatmap PNG", "Export configuration", "Load pasted configuration"].map(button);
  const file = el("input", { id: "export-file", type: "file", accept: ".json,application/json" });
  const pasted = el("textarea", {
    id: "export-paste", class: "export-paste", rows: 4, spellcheck: "false", "aria-describedby": "export-message",
  });
  // The panel's own live region: an import's problem is read out where the person is.
  const message = el("p", { id: "export-message", class: "export-message", "aria-live": "polite" });

  const part = (key, title, note, ...children) =>
    el("section", { class: `export-part export-${key}`, "aria-labelledby": `export-h-${key}` },
      el("h3", { id: `export-h-${key}`, text: title }),
      note && el("p", { class: "export-note", text: note }), ...children);
  host.classList.add("export");
  host.append(
    part("matrix", "One matrix", null,
      el("div", { class: "export-choices" },
        field("export-matrix", "Matrix", matrix), field("export-format", "Format", format)),
      field("export-preview", "Export preview", preview), about,
      el("div", { class: "export-buttons" }, save, copy)),
    part("heatmap", "The heatmap", "The weights A as a picture, with the token labels and every " +
      "value: SVG to scale freely, PNG at twice the size for slides.",
    el("div", { class: "export-buttons" }, svgButton, pngButton)),
    part("config", "The whole configuration", "Tokens, X, W_Q, W_K, W_V, the mask and the " +
      "options as JSON (attention.json), in the API's format: importing it rebuilds this view.",
    el("div", { class: "export-buttons" }, exportConfig),
    el("div", { class: "export-config-grid" },
      field("export-file", "Import configuration file", file),
      el("div", {}, field("export-paste", "Paste a configuration", pasted),
        el("div", { class: "export-buttons" }, loadPasted))),
    message));

  const warn = (text) => void page.say(text, { warning: true });  // → undefined: nothing to export

  // ---- one matrix: the preview follows the page ----

  let shown = {};  // what the preview was computed from, compared by identity: cheap
  let ticket = 0;  // the newest preview: a fetch that comes back late is not shown
  // The export of the matrix and format chosen, for the page as it is: the preview and a
  // Download or Copy right after it share one fetch of a whole matrix. A failed fetch is
  // forgotten, so the next try fetches again.
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
    const choices = available(now);
    // (An <option>'s id is "", not its value: compare values.)
    const listed = [...matrix.options].map((o) => `${o.value}:${o.text}`).join();
    if (choices.map((c) => `${c.id}:${c.text}`).join() !== listed) {
      // Rebuilt only when the list changes, so an open select is not disturbed; the
      // choice stays when it is still there.
      const keep = matrix.value || "W_Q";
      matrix.replaceChildren(...choices.map((m) => new Option(m.text, m.id)));
      matrix.value = choices.some((m) => m.id === keep) ? keep : "X";
    }
    if (choicesOnly) return;
    if (shown.state === now.state && shown.body === now.body && shown.matrix === matrix.value
        && shown.format === format.value) return;
    shown = { state: now.state, body: now.body, matrix: matrix.value, format: format.value };
    const mine = ++ticket;
    const out = matrixExport(now, matrix.value, format.value);
    if (!out.fetch) {
      showPreview(out);
      return;
    }
    showPreview({ ok: false, message: "Fetching the whole matrix…" });
    exportNow(now).then((whole) => {
      if (mine === ticket) showPreview(whole);
    });
  }
  function showPreview(out) {
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
  matrix.addEventListener("change", refresh);
  format.addEventListener("change", refresh);
  // Whenever the panel is used, when it comes on screen, and — while it is on screen —
  // whenever the page redraws (the page calls the returned changed()). Off screen the
  // preview waits, so typing at 256 tokens pays nothing for it.
  host.addEventListener("focusin", refresh);
  host.addEventListener("pointerenter", refresh);
  let visible = false;
  new IntersectionObserver(([entry]) => {
    visible = entry.isIntersecting;
    if (visible) refresh();
  }).observe(host);
  refresh({ choicesOnly: true });  // the choices at once; the preview when it is seen

  const fresh = async () => {
    refresh();
    const out = await exportNow(page.get());
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
      preview.value = out.text;
      preview.focus();
      preview.select();
      page.say("The browser refused to copy: the text is selected, press Ctrl+C (⌘C) to copy it.");
    }
  });

  // ---- the heatmap ----

  /** {svg, file} of the heatmap the page shows (with several heads, the shown head's);
   *  beyond 24 tokens the page holds its weights as bytes, so the exact ones are fetched. */
  async function heatmapSVG() {
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
  svgButton.addEventListener("click", async () => {
    const out = await heatmapSVG();
    if (out) download(`${out.file}.svg`, textURL(out.svg, "image/svg+xml"));
  });
  pngButton.addEventListener("click", async () => {
    const out = await heatmapSVG();
    if (out) {
      svgToPNG(out.svg).then((png) => download(`${out.file}.png`, png),
        (err) => warn(`The PNG could not be drawn (${err.message}); try the SVG.`));
    }
  });

  // ---- the configuration ----

  exportConfig.addEventListener("click", () => {
    const { request } = page.get();
    if (!request) return warn(INVALID);
    return download("attention.json", textURL(configToJSON(request), "application/json"));
  });

  /** Read, have the server check, then load; on a problem the page is left exactly as it
   *  was, and the panel and the status line say why. */
  async function load(text, source) {
    const read = readConfig(text);
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
    await load(text, chosen.name);
  });
  loadPasted.addEventListener("click", () => {
    if (!pasted.value.trim()) {
      message.classList.add("is-warning");
      message.textContent = "Paste a configuration (the JSON of an exported attention.json) first.";
      return;
    }
    load(pasted.value, "the pasted configuration");
  });
  // The choices follow every redraw (cheap); the preview's text only while it is seen.
  return { changed: () => refresh({ choicesOnly: !visible }) };
}
