// The server's limits, the API's URLs and the answer's fields the page asks for, as the
// page was sent them: the JSON block
// <script id="config"> of templates/index.html, built by attention_api/pages/routes.py
// (page_config) from the app's configuration and url_for. This module is the one place the
// page learns them, so nothing here has a value of its own: outside a page (node's unit
// tests) the seven objects are empty, and a test fills in the values it means to test.
//
// limits = {tokens: n and m at most, model_dim: d_model at most, dim: d_k, d_v and W_O's
//           width at most, label: characters
//           in one token label, heads: at most, body_bytes: a request body at most,
//           answer_cells: the numbers of one answer at most, after fields and corners,
//           position: position_offset, window and sinks at most}
// lab    = {max_draws: samples × d_k of one sample at most,
//           curve_d_k_max: the widest d_k GET scaling answers (d_k = 1, 2, 4 … up to it)}
// urls   = {attention, scaling, scaling_sample, models, model_attention, model (the
//           real-model view's page), …}: the API's routes and pages, with the app's prefix,
//           and katex: KaTeX's build (tex.js loads it)
// answer = {whole, head, beside: the editor's asks of the whole answer's fields, of each
//           head's and of those beside heads, grouped by how it asks them (ask, corner,
//           small, heatmap, heatmap_big, readout_big, every_head: see
//           attention_api/attention/answer_fields.py, Field.page); working: the working's parts the
//           page's working draws; model: {run, decoder, head, working}, the Real model
//           view's asks}. Read when a request is made, so a test may fill it in after import.
// exercise = {view_levels: {level: what it asks}, the levels at which an example of one's
//           own is worked by hand (the editor's worksheet of the selected row)}
// number = {fixed_limit: fixed decimals while a number rounds below it, then scientific;
//           decimals: of every number computed; figures: significant figures of a
//           scientific number and of e^s and their sums}: how every number prints (format.js),
//           attention_core/prose.py's rule, which the hints and worksheets print by
// settings = {fields: the request's fields that "Export configuration" saves, in the API's
//           order (attention_api/attention/request.py's SETTINGS)}

const block = globalThis.document?.getElementById("config");
const sent = block ? JSON.parse(block.textContent) : {};

export const limits = { ...sent.limits };
export const lab = { ...sent.lab };
export const urls = { ...sent.urls };
export const answer = { ...sent.answer };
export const exercise = { ...sent.exercise };
export const number = { ...sent.number };
export const settings = { ...sent.settings };
