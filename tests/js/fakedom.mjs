// Just enough of a DOM for the page's builders (dom.js's el, tex.js's math and prose) to
// run under node, and a reader of what they built: import this module first. No layout,
// no selectors: the tests read the tree as text, in document order.

class Text {
  constructor(data) {
    this.nodeType = 3;
    this.nodeName = "#text";
    this.data = String(data);
  }

  get textContent() {
    return this.data;
  }
}

class Element {
  constructor(tag) {
    this.nodeType = 1;
    this.nodeName = tag.toUpperCase();
    this.attrs = new Map();
    this.childNodes = [];
  }

  setAttribute(name, value) { this.attrs.set(name, String(value)); }
  getAttribute(name) { return this.attrs.get(name) ?? null; }
  hasAttribute(name) { return this.attrs.has(name); }
  removeAttribute(name) { this.attrs.delete(name); }
  get attributes() { return [...this.attrs].map(([name, value]) => ({ name, value })); }
  set className(value) { this.setAttribute("class", value); }
  get className() { return this.getAttribute("class") ?? ""; }
  get children() { return this.childNodes.filter((n) => n.nodeType === 1); }
  get firstChild() { return this.childNodes[0] ?? null; }
  get lastChild() { return this.childNodes.at(-1) ?? null; }
  get childElementCount() { return this.children.length; }
  append(...nodes) { for (const n of nodes) this.childNodes.push(typeof n === "string" ? new Text(n) : n); }
  replaceChildren(...nodes) { this.childNodes = []; this.append(...nodes); }
  set textContent(value) { this.childNodes = [new Text(value)]; }
  get textContent() { return this.childNodes.map((n) => n.textContent).join(""); }
}

globalThis.Node ??= { ELEMENT_NODE: 1, TEXT_NODE: 3 };
globalThis.document ??= {
  createElement: (tag) => new Element(tag),
  getElementById: () => null,
};

/** A built tree as text: words as they are, maths as $tex$, sub- and superscripts
 *  (dom.js's symbols) as _x and ^x. */
export function read(node) {
  if (node.nodeType === 3) return node.data;
  const tex = node.getAttribute("data-tex");
  if (tex !== null) return `$${tex}$`;
  const text = node.childNodes.map(read).join("");
  return { SUB: `_${text}`, SUP: `^${text}` }[node.nodeName] ?? text;
}

/** Every element under ``node`` (itself included) with this tag, in document order. */
export function all(node, tag) {
  const found = [];
  const walk = (n) => {
    if (n.nodeType !== 1) return;
    if (n.nodeName === tag.toUpperCase()) found.push(n);
    n.childNodes.forEach(walk);
  };
  walk(node);
  return found;
}

/** An empty element to draw into. */
export const host = () => globalThis.document.createElement("div");
