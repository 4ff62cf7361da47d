// Talking to POST /api/attention: only the newest request's answer is ever delivered,
// and a lost connection, or a server busy with large answers (503), is retried on its own
// until the server answers. An answer
// that comes but cannot be read (a proxy's HTML error page, a malformed body) is not a
// lost connection: it is delivered once as an error saying what came back.

import { decodeArrays } from "./arrays.js";
import { urls } from "./config.js";

// An edit changes one row of one matrix; the other rows keep their (parsed, never mutated)
// arrays, so their JSON is written once and reused: at 256 tokens this halves the time
// from a keystroke to the request leaving. The edit of benchmarks/bench_browser.py's
// "256 tokens, d = 64" needs it: the request's JSON takes 4.4 ms written whole, 0.3 ms
// with one row new (node, median of 15).
const rowText = new WeakMap();

/** JSON.stringify(value), with each row of numbers written once per array. */
export function requestJSON(value) {
  if (Array.isArray(value)) {
    if (value.length && typeof value[0] === "number") {
      let text = rowText.get(value);
      if (text === undefined) {
        text = JSON.stringify(value);
        rowText.set(value, text);
      }
      return text;
    }
    return `[${value.map(requestJSON).join(",")}]`;
  }
  if (value !== null && typeof value === "object") {
    const parts = [];
    for (const [key, v] of Object.entries(value)) {
      if (v !== undefined) parts.push(`${JSON.stringify(key)}:${requestJSON(v)}`);
    }
    return `{${parts.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

const RETRY_MS = [500, 1000, 2000, 4000];  // then every 4 s

/** The answer as {status, body}. A body that is not a JSON object (or, asked in base64,
 *  does not decode) becomes the body of an error naming the status and content type, with
 *  ``unreadable: true``. A network failure while the body arrives still throws (TypeError). */
async function readAnswer(response, base64, decode = decodeArrays) {
  const { status } = response;
  try {
    const raw = await response.json();
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new SyntaxError("not a JSON object");
    return { status, body: base64 ? decode(raw) : raw };
  } catch (err) {
    if (err instanceof TypeError) throw err;
    const type = response.headers?.get?.("Content-Type") || "no content type";
    const message = `The server's answer could not be read (status ${status}, ${type}); ` +
      "try again, or reload the page.";
    return { status, body: { error: { message, field: null } }, unreadable: true };
  }
}

/** createApi({fetch, onConnection, url, decode}) → {compute(request)}; url is the API's
 *  (config.js), decode what reads a base64 answer (arrays.js's decodeArrays by default).
 *  compute resolves to {status, body} for the newest request (an unreadable answer as
 *  readAnswer gives it), or null when a newer call has superseded it (its answer would be
 *  out of date, so it is dropped). onConnection(false) is called once when the server
 *  cannot be reached and onConnection(true) once when it answers again. */
export function createApi({ fetch = globalThis.fetch.bind(globalThis), onConnection = () => {},
  url = urls.attention, sleep = (ms) => new Promise((r) => setTimeout(r, ms)), decode = decodeArrays } = {}) {
  let newest = 0;
  let controller = null;
  let connected = true;

  function setConnected(value) {
    if (value !== connected) {
      connected = value;
      onConnection(value);
    }
  }

  async function compute(request) {
    const seq = ++newest;
    controller?.abort();
    const mine = new AbortController();
    controller = mine;
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await fetch(url, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: requestJSON(request),
          signal: mine.signal,
        });
        const answer = await readAnswer(response, request.encoding === "base64", decode);
        if (seq !== newest) return null;
        setConnected(true);  // something answered, readable or not
        if (response.status !== 503) return answer;
        // Busy with other large answers (admission.py): the old numbers stay while it waits.
        await sleep(1000 * (Number(response.headers?.get?.("Retry-After")) || 1));
        if (seq !== newest) return null;
      } catch (err) {
        if (err.name === "AbortError" || seq !== newest) return null;
        if (!(err instanceof TypeError)) throw err;  // fetch's network failure is a TypeError
        setConnected(false);
        await sleep(RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]);
        if (seq !== newest) return null;
      }
    }
  }

  return { compute };
}

/** One request outside the page's main sequence (a demonstration, an import's check, an
 *  export's whole matrix, a lesson's side request): {status, body} as readAnswer gives it;
 *  a network failure throws. Its rows' JSON is the main request's (requestJSON): a real
 *  model's head (128 × 576 inputs) took ~40 ms to write whole, for each of the three side
 *  requests of its RoPE lesson, after every edit. */
export async function postOnce(request, { fetch = globalThis.fetch.bind(globalThis), url = urls.attention } = {}) {
  const response = await fetch(url, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: requestJSON(request),
  });
  return readAnswer(response, request.encoding === "base64");
}

/** A panel's one request (a generation, a row's tiles, the costs): the answer's body, or an
 *  Error to show, whose message is the server's sentence (``field``: the field it names, or
 *  null) or says the server cannot be reached. */
export async function askServer(request, url) {
  let reply;
  try {
    reply = await postOnce(request, { url });
  } catch {
    throw new Error("The server cannot be reached; try again.");
  }
  if (reply.status !== 200) {
    throw Object.assign(new Error(reply.body.error?.message ?? `The server answered ${reply.status}.`),
      { field: reply.body.error?.field ?? null });
  }
  return reply.body;
}
