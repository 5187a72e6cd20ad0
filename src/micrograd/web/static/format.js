/* The page's number formats: formatting a number for display is the only arithmetic the
 * page does (every number arrives from the Python side).
 *   fmt(x)      the Playground's figures: 6 significant digits, no trailing zeros
 *   fmtCell(x)  a graph record's cell (micrograd.viz measured its cells for this format)
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

export function fmtCell(x) {
  if (x === null || x === undefined) return "·";
  if (typeof x === "string") return x;
  const a = Math.abs(x);
  if (a !== 0 && (a >= 1e7 || a < 1e-4)) return x.toExponential(3);
  return x.toFixed(4);
}
