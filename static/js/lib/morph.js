// Bring a host's children in line with a freshly built list of nodes, changing only what
// differs. After an edit the working's redraw changes some of its lines; the others keep
// their nodes, so the browser neither styles nor lays them out again, and KaTeX does not
// typeset them again.
//
// An element with a data-tex attribute stands for typeset maths: the same TeX means the
// same content, so its children are not compared. A new one arrives empty and is
// typeset by the caller once it is in place (see ``untypeset``). An element that is not
// maths but is built whole (a disclosure whose body is typeset when it opens) says what
// it holds in data-whole, and is kept or replaced whole in the same way.

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

/** What an element built whole holds (its TeX, or its data-whole), else null. */
function whole(node) {
  return node.getAttribute("data-tex") ?? node.getAttribute("data-whole");
}

function sameTex(a, b) {
  return a.nodeType !== Node.ELEMENT_NODE || whole(a) === whole(b);
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
  if (whole(next) === null) morph(current, [...next.childNodes]);
}
