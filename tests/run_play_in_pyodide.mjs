// Runs a Python script on Pyodide's Python in node, as the static site's worker runs it:
// this checkout's micrograd, and the Playground's executor port (web/pyodide/executor_port.js
// over web/static/lowered/executor.js) installed, so sessions train through the executor.
//
//   node tests/run_play_in_pyodide.mjs < script.py
//
// Prints what the script prints; exit status 1 and the Python error on stderr if it fails.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const PYODIDE = path.join(REPO, "web-runtime", "node_modules", "pyodide");
const WEB = path.join(REPO, "src", "micrograd", "web");

function copyTree(FS, from, to) {
  FS.mkdirTree(to);
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    if (entry.name === "__pycache__" || entry.name.startsWith(".")) continue;
    const src = path.join(from, entry.name);
    if (entry.isDirectory()) copyTree(FS, src, `${to}/${entry.name}`);
    else if (entry.isFile() && entry.name.endsWith(".py")) FS.writeFile(`${to}/${entry.name}`, fs.readFileSync(src));
  }
}

let script = "";
for await (const chunk of process.stdin) script += chunk;
const { loadPyodide } = await import(pathToFileURL(path.join(PYODIDE, "pyodide.mjs")).href);
const { load } = await import(pathToFileURL(path.join(WEB, "static", "lowered", "executor.js")).href);
const { executorPort } = await import(pathToFileURL(path.join(WEB, "pyodide", "executor_port.js")).href);
const out = [];
const pyodide = await loadPyodide({
  indexURL: PYODIDE + path.sep,
  stdout: (line) => out.push(line),
  stderr: (line) => process.stderr.write(line + "\n"),
});
copyTree(pyodide.FS, path.join(REPO, "src", "micrograd"), "/home/pyodide/src/micrograd");
pyodide.runPython('import sys; sys.path.insert(0, "/home/pyodide/src")');
pyodide.pyimport("micrograd.web.lowered_play").install(executorPort(load));
try {
  await pyodide.runPythonAsync(script);
} catch (e) {
  process.stderr.write(String(e.message || e) + "\n");
  process.exit(1);
}
process.stdout.write(out.join("\n") + "\n");
