/* The page's number formats: formatting a number for display is the only arithmetic the
 * page does (every number arrives from the Python side).
 *   fmt(x)      the Playground's figures: 6 significant digits, no trailing zeros
 *   fmtCell(x)  a graph record's cell (micrograd.viz measured its cells for this format)
 *   fmtShare(share, n)  an accuracy: "97.1%" and its count, "100 of 103"
 *   fmtShort(x)  a rate or an axis's end: 3 significant digits, as fmt writes them
 * "NaN", "Infinity" and "-Infinity" arrive as strings and are shown as they are; a
 * missing number is "·".
 */

export function fmt(x) {
  if (x === null || x === undefined) return "·";
  if (typeof x === "string") return x;
  if (!isFinite(x)) return String(x);
  if (x === 0) return "0";
  const a = Math.abs(x);
  if (a >= 1e6 || a < 1e-4) return x.toExponential(4);
  return String(Number(x.toPrecision(6)));
}

export function fmtShort(x) {
  if (typeof x !== "number" || !isFinite(x)) return fmt(x);
  return fmt(Number(x.toPrecision(3)));
}

export function fmtCell(x) {
  if (x === null || x === undefined) return "·";
  if (typeof x === "string") return x;
  const a = Math.abs(x);
  if (a !== 0 && (a >= 1e7 || a < 1e-4)) return x.toExponential(3);
  return x.toFixed(4);
}

/** An accuracy (a share in [0, 1] of `n` points) as a person reads it: a percent to one
 *  decimal ("97.1%", "100%", "50%"), never "100%" unless every point is right nor "0%"
 *  unless none is; and the count it stands for ("100 of 103": the share times n, the
 *  whole number it is). A missing share is "·". */
export function fmtShare(share, n) {
  if (typeof share !== "number" || !isFinite(share)) return { text: fmt(share), count: "" };
  const right = n ? Math.round(share * n) : null;
  let p = Math.round(share * 1000) / 10;
  if (right !== null && p === 100 && right < n) p = 99.9;
  if (right !== null && p === 0 && right > 0) p = 0.1;
  return { text: `${Number(p.toFixed(1))}%`, count: right === null ? "" : `${right} of ${n}` };
}
