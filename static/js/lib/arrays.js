// Reading an answer asked with "encoding": "base64" (see the API): each array arrives as
// {dtype, shape, base64}, its float64 (or bool) bytes in row-major order. Decoding gives
// back exactly the nested lists the JSON form would have, with its convention that a
// non-finite number (a masked −∞ score, an overflowing e^s) is null, so nothing
// downstream can tell the two forms apart. At 256 tokens this is half the bytes of
// printed digits, and no number is parsed from text.

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const SIXBITS = new Uint8Array(128);
for (let k = 0; k < ALPHABET.length; k++) SIXBITS[ALPHABET.charCodeAt(k)] = k;

/** The bytes of standard, padded base64 text (by hand where Uint8Array.fromBase64 is missing). */
export function base64Bytes(text) {
  if (Uint8Array.fromBase64) return Uint8Array.fromBase64(text);
  const pad = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - pad);
  let o = 0;
  for (let k = 0; k < text.length; k += 4) {
    const bits = (SIXBITS[text.charCodeAt(k)] << 18) | (SIXBITS[text.charCodeAt(k + 1)] << 12)
      | (SIXBITS[text.charCodeAt(k + 2)] << 6) | SIXBITS[text.charCodeAt(k + 3)];
    out[o++] = bits >> 16;
    if (o < out.length) out[o++] = (bits >> 8) & 255;
    if (o < out.length) out[o++] = bits & 255;
  }
  return out;
}

const LITTLE_ENDIAN = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;

/** The float64s of ``bytes`` (little-endian), as a typed array: a view where it can be. */
function float64s(bytes) {
  if (LITTLE_ENDIAN && bytes.byteOffset % 8 === 0) {
    return new Float64Array(bytes.buffer, bytes.byteOffset, bytes.length / 8);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Float64Array.from({ length: bytes.length / 8 }, (_, k) => view.getFloat64(8 * k, true));
}

/** One encoded array as nested lists: numbers (null where not finite), booleans or bytes. */
export function decodeArray({ dtype, shape, base64 }) {
  const bytes = base64Bytes(base64);
  const [rows, cols] = shape.length === 1 ? [1, shape[0]] : shape;
  const size = dtype === "float64" ? 8 : 1;
  if (bytes.length !== rows * cols * size) {
    throw new TypeError(`An encoded ${shape.join(" × ")} ${dtype} array has ${bytes.length} bytes, not ${rows * cols * size}.`);
  }
  const values = dtype === "float64" ? float64s(bytes) : bytes;  // bool and uint8: a byte each
  const out = new Array(rows);
  for (let i = 0; i < rows; i++) {
    const row = new Array(cols);
    const base = i * cols;
    if (dtype === "bool") {
      for (let j = 0; j < cols; j++) row[j] = values[base + j] !== 0;
    } else if (dtype === "uint8") {
      for (let j = 0; j < cols; j++) row[j] = values[base + j];
    } else {
      for (let j = 0; j < cols; j++) {
        const v = values[base + j];
        row[j] = v - v === 0 ? v : null;  // ±∞ - ±∞ is NaN: not finite
      }
    }
    out[i] = row;
  }
  return shape.length === 1 ? out[0] : out;
}

const isEncoded = (v) => v !== null && typeof v === "object" && !Array.isArray(v)
  && typeof v.base64 === "string" && Array.isArray(v.shape) && typeof v.dtype === "string";

/** An answer with every encoded array decoded (a JSON-form answer comes back unchanged). */
export function decodeArrays(value) {
  if (isEncoded(value)) return decodeArray(value);
  if (Array.isArray(value)) return value.map(decodeArrays);
  if (value !== null && typeof value === "object") {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = decodeArrays(v);
    return out;
  }
  return value;
}
