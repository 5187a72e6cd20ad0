// Runs a Python script on the Python a built static site gives its page: Pyodide with
// the site's own pyodide/ folder (its standard library, compiled or not) and the site's
// micrograd.zip unpacked where the worker unpacks it. Before the script, the unpacked
// files named in SPOIL (comma separated, relative to that folder) are overwritten with
// a line that raises: a module still importable then came from its bytecode.
//
//   SPOIL=micrograd/engine.py node tests/run_site_python.mjs SITE_DIR < script.py
//
// Prints what the script prints; exit status 1 and the Python error on stderr if it fails.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const site = path.resolve(process.argv[2]);
const HOME = "/home/pyodide/site";  // pyodide_worker.js's
let script = "";
for await (const chunk of process.stdin) script += chunk;
const out = [];
try {
  const { loadPyodide } = await import(pathToFileURL(path.join(site, "pyodide", "pyodide.mjs")).href);
  const pyodide = await loadPyodide({
    indexURL: path.join(site, "pyodide") + path.sep,
    stdout: (line) => out.push(line),
    stderr: (line) => process.stderr.write(line + "\n"),
  });
  pyodide.unpackArchive(new Uint8Array(fs.readFileSync(path.join(site, "micrograd.zip"))), "zip",
                        { extractDir: HOME });
  for (const name of (process.env.SPOIL || "").split(",").filter(Boolean)) {
    pyodide.FS.writeFile(`${HOME}/${name}`, "raise ImportError('the source was compiled')\n");
  }
  pyodide.runPython(`import sys; sys.path.insert(0, ${JSON.stringify(HOME)})`);
  await pyodide.runPythonAsync(script);
} catch (e) {
  process.stderr.write(String(e.message || e).slice(-3000) + "\n");
  process.exit(1);
}
process.stdout.write(out.join("\n") + "\n");
