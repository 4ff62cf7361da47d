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

  get nodeValue() { return this.data; }
  set nodeValue(value) { this.data = String(value); }
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
  get dataset() {  // data-* attributes, as dataset does (one level of camelCase is enough here)
    const self = this;
    return new Proxy({}, {
      get: (_, key) => self.getAttribute(`data-${String(key)}`) ?? undefined,
      set: (_, key, value) => { self.setAttribute(`data-${String(key)}`, value); return true; },
    });
  }

  append(...nodes) {
    for (const n of nodes) {
      const node = typeof n === "string" ? new Text(n) : n;
      node.parentNode = this;
      this.childNodes.push(node);
    }
  }

  replaceChildren(...nodes) { this.childNodes = []; this.append(...nodes); }
  replaceChild(next, old) {
    this.childNodes[this.childNodes.indexOf(old)] = next;
    next.parentNode = this;
  }

  remove() {
    if (this.parentNode) this.parentNode.childNodes = this.parentNode.childNodes.filter((n) => n !== this);
  }

  closest() { return null; }
  /** Only "[data-tex]" is understood: what tex.js looks for. */
  querySelectorAll(selector) {
    if (selector !== "[data-tex]") throw new Error(`the fake DOM has no selector ${selector}`);
    const found = [];
    const walk = (n) => n.childNodes?.forEach((c) => {
      if (c.nodeType === 1 && c.hasAttribute("data-tex")) found.push(c);
      walk(c);
    });
    walk(this);
    return found;
  }
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
