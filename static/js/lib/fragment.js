// The URL's fragment, "#key=value&…", read and written: the one codec for both pages (the
// editor's view in url.js, the real-model view's in model/state.js, the link between them
// in source.js). Pure, unit-tested in tests/js/lib/fragment.test.mjs.
//
// Values are escaped with encodeURIComponent. A fragment is not a form: "+" is a plus (the
// writer spells a space %20). A value whose escape is malformed ("%zz", half a character)
// is read as null: the editor says the link cannot be read, the real-model view falls back
// for that key alone.

/** key → value of a fragment (with or without its "#"), values decoded (null for one
 *  whose escape is malformed); a key without "=" has the value "", and the first of a
 *  repeated key is the one read. */
export function readFragment(hash) {
  const pairs = new Map();
  for (const part of String(hash).replace(/^#/, "").split("&")) {
    if (!part) continue;
    const at = part.indexOf("=");
    const key = at < 0 ? part : part.slice(0, at);
    if (pairs.has(key)) continue;
    try {
      pairs.set(key, decodeURIComponent(at < 0 ? "" : part.slice(at + 1)));
    } catch {
      pairs.set(key, null);  // a malformed escape
    }
  }
  return pairs;
}

/** "key=value&…" (without "#") for [key, value] pairs, each value as text escaped with
 *  encodeURIComponent, except the characters of ``keep`` (the editor keeps its separators
 *  , ; | : literal for readability: readFragment reads them back alike). */
export function writeFragment(pairs, keep = "") {
  // One native pass a kept character: a 256-token view with 4 heads has ~82,000 of them.
  const literal = (text) => [...keep].reduce((t, c) => t.replaceAll(encodeURIComponent(c), c), text);
  return pairs.map(([key, value]) => `${key}=${literal(encodeURIComponent(String(value)))}`).join("&");
}
