// Bring a host's children in line with a freshly built list of nodes, changing only what
// differs. After an edit the working's redraw changes some of its lines; the others keep
// their nodes, so the browser neither styles nor lays them out again, and KaTeX does not
// typeset them again.
//
// An element with a data-tex attribute stands for typeset maths: the same TeX means the
// same content, so its children are not compared. A new one arrives empty and is
// typeset by the caller once it is in place (see ``untypeset``).

/** morph(host, nodes): host's children become ``nodes``, reusing the ones that match. */
export function morph(host, nodes) {
  const old = [...host.childNodes];
  nodes.forEach((node, k) => {
    const current = old[k];
    if (current === undefined) host.append(node);
    else if (current.nodeName === node.nodeName && sameTex(current, node)) update(current, node);
    else host.replaceChild(node, current);
  });
  for (let k = nodes.length; k < old.length; k++) old[k].remove();
}

/** The maths elements under host that still have to be typeset. */
export function untypeset(host) {
  return [...host.querySelectorAll("[data-tex]")].filter((node) => !node.firstChild);
}

function sameTex(a, b) {
  return a.nodeType !== Node.ELEMENT_NODE || a.getAttribute("data-tex") === b.getAttribute("data-tex");
}

function update(current, next) {
  if (current.nodeType !== Node.ELEMENT_NODE) {
    if (current.nodeValue !== next.nodeValue) current.nodeValue = next.nodeValue;
    return;
  }
  for (const { name, value } of [...next.attributes]) {
    if (current.getAttribute(name) !== value) current.setAttribute(name, value);
  }
  for (const { name } of [...current.attributes]) {
    if (!next.hasAttribute(name)) current.removeAttribute(name);
  }
  if (!next.hasAttribute("data-tex")) morph(current, [...next.childNodes]);
}
