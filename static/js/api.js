// Talking to POST /api/attention: only the newest request's answer is ever delivered,
// and a lost connection is retried on its own until the server answers again.

import { decodeArrays } from "./arrays.js";

// An edit changes one row of one matrix; the other rows keep their (parsed, never mutated)
// arrays, so their JSON is written once and reused: at 256 tokens this halves the time
// from a keystroke to the request leaving.
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

/** createApi({fetch, onConnection, url}) → {compute(request)}.
 *  compute resolves to {status, body} for the newest request, or null when a newer
 *  call has superseded it (its answer would be out of date, so it is dropped).
 *  onConnection(false) is called once when the server cannot be reached and
 *  onConnection(true) once when it answers again. */
export function createApi({ fetch = globalThis.fetch.bind(globalThis), onConnection = () => {},
  url = "/api/attention", sleep = (ms) => new Promise((r) => setTimeout(r, ms)) } = {}) {
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
        // 502–504 come from a proxy while the app restarts: as good as unreachable.
        if (response.status >= 502 && response.status <= 504) throw new TypeError("gateway");
        const raw = await response.json();
        if (seq !== newest) return null;
        const body = request.encoding === "base64" ? decodeArrays(raw) : raw;
        setConnected(true);
        return { status: response.status, body };
      } catch (err) {
        if (err.name === "AbortError" || seq !== newest) return null;
        if (!(err instanceof TypeError) && !(err instanceof SyntaxError)) throw err;
        setConnected(false);
        await sleep(RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]);
        if (seq !== newest) return null;
      }
    }
  }

  return { compute };
}

/** One request outside the page's main sequence (for a demonstration): {status, body}. */
export async function postOnce(request, { fetch = globalThis.fetch.bind(globalThis), url = "/api/attention" } = {}) {
  const response = await fetch(url, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(request),
  });
  return { status: response.status, body: await response.json() };
}
