/* Components: a root element filled from a template, its parts found by role.
 *
 * A template names its parts with data-role="name"; mount() gives each of them the id
 * prefix + name (unique per instance, so two components live on one page and a label's
 * `for` still works), and turns data-for / data-labelledby / data-describedby into the
 * attributes that point at those ids. Templates are the page's own text, never a text
 * from a URL or a server: those are always written with textContent.
 */

let instances = 0;

/** An id prefix no other component on this page has: "mg3-walk-". */
export function uniquePrefix(kind) {
  instances += 1;
  return `mg${instances}-${kind}-`;
}

/** Fill `root` from `template`; returns `part(role)`, the element of that role. */
export function mount(root, template, prefix) {
  root.innerHTML = template;
  const parts = {};
  for (const el of root.querySelectorAll("[data-role]")) {
    const role = el.dataset.role;
    if (parts[role]) throw new Error(`the template has two parts named ${role}`);
    parts[role] = el;
    el.id = prefix + role;
  }
  for (const [data, attr] of [["for", "for"], ["labelledby", "aria-labelledby"],
                              ["describedby", "aria-describedby"]]) {
    for (const el of root.querySelectorAll(`[data-${data}]`)) el.setAttribute(attr, prefix + el.dataset[data]);
  }
  return (role) => {
    const el = parts[role];
    if (!el) throw new Error(`no part ${role} in this component`);
    return el;
  };
}

/** An HTML element with these attributes (`text`: its text) and children. */
export function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

/** A <select>'s options: [value, text] pairs (or plain values). */
export function fillSelect(sel, items) {
  sel.textContent = "";
  for (const it of items) {
    const [value, text] = Array.isArray(it) ? it : [it, it];
    sel.appendChild(el("option", { value, text }));
  }
}
