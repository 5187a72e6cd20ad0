// microgpt's GPT on Pyodide's Python (CPython compiled to WebAssembly) in node: the
// Pyodide side of benchmarks/gpt_pyodide.py, which starts it.
//
//   node benchmarks/gpt_in_pyodide.mjs PYODIDE_DIR SPEC_JSON
//
// PYODIDE_DIR is the pyodide npm package's folder (the pinned one of web-runtime/;
// nothing is fetched at run time). This checkout's src/micrograd (every file but
// caches: the packaged names too) is copied to /home/pyodide/src/micrograd in Pyodide's
// file system, and gpt_pyodide.py and microgpt_reference.py from benchmarks/ to
// /home/pyodide/bench; then gpt_pyodide.in_pyodide(SPEC_JSON) runs there. What it prints
// is printed line by line as it comes; exit status 1 and the error on stderr if it fails.

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, "..");
const BENCH_FILES = ["gpt_pyodide.py", "microgpt_reference.py"];

function copyTree(FS, from, to) {
  FS.mkdirTree(to);
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    if (entry.name === "__pycache__" || entry.name.startsWith(".")) continue;
    const source = path.join(from, entry.name);
    if (entry.isDirectory()) copyTree(FS, source, `${to}/${entry.name}`);
    else if (entry.isFile()) FS.writeFile(`${to}/${entry.name}`, fs.readFileSync(source));
  }
}

async function main() {
  const [pyodideDir, spec] = process.argv.slice(2);
  if (!pyodideDir || spec === undefined) {
    console.error("usage: node gpt_in_pyodide.mjs PYODIDE_DIR SPEC_JSON");
    process.exit(2);
  }
  const indexURL = path.resolve(pyodideDir) + path.sep;
  const { loadPyodide } = await import(pathToFileURL(path.join(indexURL, "pyodide.mjs")).href);
  const pyodide = await loadPyodide({
    indexURL,
    stdout: (line) => process.stdout.write(line + "\n"),
    stderr: (line) => process.stderr.write(line + "\n"),
  });
  copyTree(pyodide.FS, path.join(REPO, "src", "micrograd"), "/home/pyodide/src/micrograd");
  pyodide.FS.mkdirTree("/home/pyodide/bench");
  for (const name of BENCH_FILES) {
    pyodide.FS.writeFile(`/home/pyodide/bench/${name}`, fs.readFileSync(path.join(HERE, name)));
  }
  pyodide.globals.set("SPEC", spec);
  pyodide.globals.set("PYODIDE_VERSION", pyodide.version);
  await pyodide.runPythonAsync(`
import sys
sys.path[:0] = ["/home/pyodide/src", "/home/pyodide/bench"]
import gpt_pyodide
gpt_pyodide.in_pyodide(SPEC, PYODIDE_VERSION)
`);
}

main().catch((error) => {
  process.stderr.write(String(error && error.message ? error.message : error) + "\n");
  process.exit(1);
});
