/* A set-up's link, read and written from the description of its fields alone: the
 * `fields` of a set-up's spec (micrograd.walk_setup.WalkSetup.spec(), and the
 * Playground's micrograd.experiment.Experiment.spec()), each {name, url, kind, default,
 * sep, pair, old_keys, always}. No set-up's names are written here: one codec for every
 * set-up whose spec says how its link is written; the Python side reads and checks the
 * same texts (WalkSetup.from_url, Experiment.from_dict) and says what it cannot use.
 *
 *   linkTexts(fields, get)  a link's texts by their keys, for the Python side: each
 *                           field's by its key (`url`) or, as an element's attribute, by
 *                           its name; the older keys a field names (`old_keys`) as given
 *   encode(fields, setup)   a set-up ({name: value}, or some of its fields) as texts by
 *                           field name, null where a link leaves the field out (at its
 *                           default, unless `always`)
 *   byKey(fields, texts)    texts by field name as a link's keys (`url`), the older keys
 *                           null (a link written now says the field itself)
 *   byName(fields, texts)   the same as an element's attributes: by field name, a
 *                           field's other keys null
 *   decode(fields, texts)   a set-up from a link's texts by key, each field by its kind;
 *                           a number that is not one reads as NaN (an empty item of a
 *                           list of choices is passed over), so the Python side,
 *                           checking what it is sent, refuses it with the field named
 *
 * Each kind is read and written by the link's own marks from the spec (a list's `sep`,
 * a leaf value's or a point's `pair`); a leaf's name is encoded as encodeURIComponent
 * does, a number written as String(x) (micrograd.urltext: the Python side writes them
 * alike). Nothing here is parsed as HTML.
 */

const asText = { read: (t) => t, write: String };
const number = (t) => (t.trim() === "" ? NaN : Number(t));
const asNumber = { read: number, write: String };
/** a list's items: none for an empty text; an empty item of a list of choices passed
 *  over, of a list of numbers read as NaN */
const items = (t, f) => t.split(f.sep).map((x) => x.trim()).filter((x) => x !== "");
const parts = (t, sep) => (t === "" ? [] : t.split(sep));
const numbers = {
  read: (t, f) => parts(t, f.sep).map(number),
  write: (v, f) => v.map(String).join(f.sep),
};
const KINDS = {
  text: asText,
  choice: asText,
  int: asNumber,
  number: asNumber,
  bool: { read: (t) => t === "1" || t === "true", write: (v) => (v ? "1" : "0") },
  ints: numbers,
  indices: numbers,
  choices: { read: items, write: (v, f) => v.join(f.sep) },
  points: {
    read: (t, f) => parts(t, f.sep).map((p) => parts(p, f.pair).map(number)),
    write: (v, f) => v.map((p) => p.map(String).join(f.pair)).join(f.sep),
  },
  values: {
    read: (t, f) => {
      const out = {};
      for (const part of t.split(f.sep)) {
        const i = part.lastIndexOf(f.pair), x = Number(part.slice(i + 1)), name = unescaped(part.slice(0, i));
        if (i > 0 && name && part.slice(i + 1).trim() !== "" && isFinite(x)) out[name] = x;
      }
      return out;
    },
    write: (v, f) => Object.entries(v).map(([k, x]) => encodeURIComponent(k) + f.pair + String(x)).join(f.sep),
  },
};

/** a name as encodeURIComponent wrote it, or null when it is not such a text */
function unescaped(text) {
  try { return decodeURIComponent(text); } catch (e) { return null; }
}

const kind = (f) => KINDS[f.kind] || asText;
const absent = (t) => t === null || t === undefined;

export function linkTexts(fields, get) {
  const texts = {};
  for (const f of fields) {
    const t = get(f.url) ?? get(f.name);
    if (!absent(t)) texts[f.url] = String(t);
    for (const key of Object.keys(f.old_keys || {})) {
      const old = get(key);
      if (!absent(old)) texts[key] = String(old);
    }
  }
  return texts;
}

export function encode(fields, setup) {
  const out = {};
  for (const f of fields) {
    if (!(f.name in setup)) continue;
    const v = setup[f.name];
    const idle = absent(v) || (!f.always && JSON.stringify(v) === JSON.stringify(f.default));
    out[f.name] = idle ? null : kind(f).write(v, f);
  }
  return out;
}

/** texts by field name under one key of each field (`as`), its other keys null */
function keyed(fields, texts, as) {
  const out = {};
  for (const f of fields.filter((x) => x.name in texts)) {
    for (const key of [f.name, f.url, ...Object.keys(f.old_keys || {})]) out[key] = null;
    out[f[as]] = texts[f.name];
  }
  return out;
}

export const byKey = (fields, texts) => keyed(fields, texts, "url");
export const byName = (fields, texts) => keyed(fields, texts, "name");

export function decode(fields, texts) {
  const out = {};
  for (const f of fields) {
    const t = texts[f.url];
    if (absent(t)) continue;
    const v = kind(f).read(t, f);
    if (v !== undefined) out[f.name] = v;
  }
  return out;
}
