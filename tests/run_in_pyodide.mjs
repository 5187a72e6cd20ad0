// Runs a Python script on Pyodide's Python (the browser's: 3.14, standard library only,
// no NumPy) in node, with this checkout's micrograd, and prints what the script prints.
//
//   node tests/run_in_pyodide.mjs < script.py
//
// Pyodide comes from web-runtime/node_modules (npm ci --prefix web-runtime, which
// bash scripts/test.sh runs). Exit status 1 and the Python error on stderr if it fails.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const PYODIDE = path.join(REPO, "web-runtime", "node_modules", "pyodide");

function copyTree(FS, from, to) {
  FS.mkdirTree(to);
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    if (entry.name === "__pycache__" || entry.name.startsWith(".")) continue;
    const src = path.join(from, entry.name);
    if (entry.isDirectory()) copyTree(FS, src, `${to}/${entry.name}`);
    else if (entry.isFile()) FS.writeFile(`${to}/${entry.name}`, fs.readFileSync(src));
  }
}

let script = "";
for await (const chunk of process.stdin) script += chunk;
const { loadPyodide } = await import(pathToFileURL(path.join(PYODIDE, "pyodide.mjs")).href);
const out = [];
const pyodide = await loadPyodide({
  indexURL: PYODIDE + path.sep,
  stdout: (line) => out.push(line),
  stderr: (line) => process.stderr.write(line + "\n"),
});
copyTree(pyodide.FS, path.join(REPO, "src", "micrograd"), "/home/pyodide/src/micrograd");
try {
  await pyodide.runPythonAsync(`import sys; sys.path.insert(0, "/home/pyodide/src")\n${script}`);
} catch (e) {
  process.stderr.write(String(e.message || e) + "\n");
  process.exit(1);
}
process.stdout.write(out.join("\n") + "\n");
