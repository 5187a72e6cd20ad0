/* SVG helpers shared by the graph views and the network view. */

export const SVGNS = "http://www.w3.org/2000/svg";

/** A new SVG element with these attributes, appended to `parent` if given. */
export function svg(tag, attrs, parent) {
  const el = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  if (parent) parent.appendChild(el);
  return el;
}

/** The path of an edge through the layout's points: cubic pieces with tangents along the
 *  rank axis (as micrograd.viz's SVG draws them). */
export function curve(points) {
  let d = `M ${points[0][0]} ${points[0][1]}`;
  for (let i = 1; i < points.length; i++) {
    const [x0, y0] = points[i - 1], [x1, y1] = points[i], mx = (x0 + x1) / 2;
    d += ` C ${mx} ${y0}, ${mx} ${y1}, ${x1} ${y1}`;
  }
  return d;
}

/** A text made safe to place in markup (an attribute or an element's content). */
export function escapeMarkup(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
}
