// The baseline page's one job: on each edit of its input, POST window.baselineRequest
// (set by the benchmark: the app's own request body) with X[0][0] set to the input's
// value, and write the weights of the answer into #heatmap, one table per head, or a canvas
// when the answer sends the weights as bytes (the app asks for bytes beyond 24 tokens).

// The app's own decoder, at any version: an unknown one is answered with today's file.
import { decodeArray } from "/assets/baseline/js/lib/arrays.js";

const host = document.getElementById("heatmap");
let newest = 0;

/** Write one head's weights (n × m, numbers) into the k-th table, cell by cell. */
function drawTable(k, weights) {
  let table = host.children[k];
  if (!table || table.tagName !== "TABLE") {
    table = document.createElement("table");
    for (const row of weights) {
      const tr = table.insertRow();
      for (let j = 0; j < row.length; j++) tr.insertCell();
    }
    host.append(table);
  }
  weights.forEach((row, i) => row.forEach((w, j) => { table.rows[i].cells[j].textContent = w.toFixed(2); }));
}

/** Paint one head's weights as bytes (n × m, 0–255), one grey pixel per weight. */
function drawCanvas(k, bytes) {
  const [n, m] = [bytes.length, bytes[0].length];
  let canvas = host.children[k];
  if (!canvas) {
    canvas = Object.assign(document.createElement("canvas"), { width: m, height: n });
    host.append(canvas);
  }
  const image = new ImageData(m, n);
  bytes.forEach((row, i) => row.forEach((b, j) => {
    image.data.fill(255 - b, 4 * (i * m + j), 4 * (i * m + j) + 3);
    image.data[4 * (i * m + j) + 3] = 255;
  }));
  canvas.getContext("2d").putImageData(image, 0, 0);
  canvas.dataset.drawn = String(newest);  // a canvas's pixels are no DOM change: say it is drawn
}

document.querySelector("input").addEventListener("input", async (e) => {
  const seq = ++newest;
  const request = window.baselineRequest;
  request.X[0][0] = Number(e.target.value);
  const response = await fetch("/api/attention", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(request),
  });
  const answer = await response.json();
  if (seq !== newest) return;
  (answer.heads ?? [answer]).forEach((head, k) => {
    if (head.weights) drawTable(k, decodeArray(head.weights));
    else drawCanvas(k, decodeArray(head.weights_u8));
  });
});

// The real-model view's cases (bench_browser.py's "model view"): the least a page can do
// for a head or row switch, and for "Open in the editor".

/** The weights of an answer of POST /api/model/attention: the head's n × n, or for a row
 *  switch (only the row's working asked) that row's, drawn as a table or beyond 24 tokens
 *  as a canvas, as the view draws them. */
function drawWeights(weights) {
  const shape = `${weights.length}×${weights[0].length}`;
  if (host.dataset.shape !== shape) host.replaceChildren();  // a head's, then a row's
  host.dataset.shape = shape;
  if (weights.length <= 24 && weights[0].length <= 24) drawTable(0, weights);
  else drawCanvas(0, weights.map((row) => row.map((w) => Math.round(255 * w))));
}

/** A head or row switch: POST the view's own request and draw the weights it brings. */
window.baselineModel = async (request) => {
  const seq = ++newest;
  const response = await fetch("/api/model/attention", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(request),
  });
  const answer = await response.json();
  if (seq !== newest) return;
  drawWeights(answer.weights ? decodeArray(answer.weights) : [decodeArray(answer.working.weights)]);
};

/** "Open in the editor": the page opened with "#open=" and the editor's own request for a
 *  model's head (JSON) fetches the head's inputs, sends them to POST /api/attention and
 *  draws the weights, one pixel each: the two round trips the editor makes, and no more. */
async function openHead(source) {
  const response = await fetch("/api/model/attention", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(source),
  });
  const head = await response.json();
  const inputs = Object.fromEntries(["X", "W_Q", "W_K", "W_V"].map((k) => [k, decodeArray(head[k])]));
  const rope = head.positional === "rope" ? { positional: "rope", rope_base: head.rope_base } : {};
  const answered = await fetch("/api/attention", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ tokens: head.tokens, ...inputs, causal: true, ...rope, fields: ["weights_u8"], encoding: "base64" }),
  });
  drawCanvas(0, decodeArray((await answered.json()).weights_u8));
}

if (location.hash.startsWith("#open=")) openHead(JSON.parse(decodeURIComponent(location.hash.slice(6))));
