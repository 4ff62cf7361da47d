// Documents typeset on the server (POST /api/worksheet: worksheets and answer keys as PDF,
// or their typst source), fetched whole and saved under the name the server gives them.

import { el } from "./dom.js";

/** Save ``href`` as ``file``. Through <a download> with a data: URL, which needs no
 *  revoking (a blob: URL revoked too early cancels the download); chromium saves data: URLs
 *  of 30 MB without fuss. */
export function download(file, href) {
  const a = el("a", { href, download: file, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
}

/** The file name of a Content-Disposition header (``attachment; filename="key-row-17.pdf"``),
 *  or ``fallback``. */
export function fileNameOf(disposition, fallback) {
  const found = /filename="([^"]+)"/.exec(disposition ?? "");
  return found ? found[1] : fallback;
}

const dataURL = (blob) => new Promise((resolve, reject) => {
  const reader = new FileReader();
  reader.onload = () => resolve(reader.result);
  reader.onerror = () => reject(reader.error);
  reader.readAsDataURL(blob);
});

/** POST ``body`` as JSON to ``url`` and save the document it answers. Resolves to null
 *  once saved, or to a sentence saying why not (the server's own message for a 422). A
 *  server typesetting as many documents as it may answers 503 with Retry-After: sent
 *  again after it, as often as it says so. */
export async function saveTypeset(url, body, fallback, fetchFn = globalThis.fetch,
  sleep = (ms) => new Promise((r) => setTimeout(r, ms))) {
  let response;
  for (;;) {
    try {
      response = await fetchFn(url, {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      });
    } catch {
      return "The server cannot be reached; nothing was made. Try again.";
    }
    const wait = response.status === 503 && Number(response.headers?.get?.("Retry-After"));
    if (!wait) break;
    await sleep(1000 * wait);
  }
  if (!response.ok) {
    const sent = await response.json().catch(() => null);
    return sent?.error?.message ?? `The server answered ${response.status}; nothing was made.`;
  }
  const file = fileNameOf(response.headers.get("Content-Disposition"), fallback);
  download(file, await dataURL(await response.blob()));
  return null;
}
