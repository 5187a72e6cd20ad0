// One engine, one workload, on Pyodide's Python (CPython compiled to WebAssembly) in node:
// the Pyodide side of benchmarks/engine.py.
//
//   node benchmarks/engine_in_pyodide.mjs PYODIDE_DIR --version
//   node benchmarks/engine_in_pyodide.mjs PYODIDE_DIR PACKAGE_DIR BENCH_DIR ENGINE WORKLOAD STEPS
//
// PYODIDE_DIR is the pyodide npm package's folder (nothing is fetched at run time).
// PACKAGE_DIR is a `micrograd` package folder on disk (this checkout's src/micrograd, or
// micrograd 0.1.0 as installed in the benchmark's side environment): its .py files are
// copied to /engine/micrograd in Pyodide's file system, and engine_worker.py and
// lecture_loop.py from BENCH_DIR to /bench. The worker's JSON line is printed as it is.

import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

function copyPythonTree(pyodide, from, to) {
  pyodide.FS.mkdirTree(to);
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    if (entry.isDirectory() && entry.name !== "__pycache__") {
      copyPythonTree(pyodide, source, `${to}/${entry.name}`);
    } else if (entry.isFile() && entry.name.endsWith(".py")) {
      pyodide.FS.writeFile(`${to}/${entry.name}`, fs.readFileSync(source));
    }
  }
}

async function main() {
  const [pyodideDir, ...rest] = process.argv.slice(2);
  if (!pyodideDir || rest.length === 0) {
    console.error("usage: node engine_in_pyodide.mjs PYODIDE_DIR (--version | " +
      "PACKAGE_DIR BENCH_DIR ENGINE WORKLOAD STEPS)");
    process.exit(2);
  }
  const indexURL = path.resolve(pyodideDir) + path.sep;
  const { loadPyodide } = await import(pathToFileURL(path.join(indexURL, "pyodide.mjs")).href);
  const pyodide = await loadPyodide({ indexURL });
  if (rest[0] === "--version") {
    const python = pyodide.runPython("import sys; sys.version.split()[0]");
    console.log(JSON.stringify({ pyodide: pyodide.version, python }));
    return;
  }
  const [packageDir, benchDir, engine, workload, steps] = rest;
  copyPythonTree(pyodide, packageDir, "/engine/micrograd");
  pyodide.FS.mkdirTree("/bench");
  for (const name of ["engine_worker.py", "lecture_loop.py"]) {
    pyodide.FS.writeFile(`/bench/${name}`, fs.readFileSync(path.join(benchDir, name)));
  }
  pyodide.globals.set("ARGS", pyodide.toPy([engine, workload, Number(steps)]));
  pyodide.runPython(`
import json, sys
sys.path.insert(0, "/bench")
import engine_worker
engine, workload, steps = ARGS
print(json.dumps(engine_worker.run(engine, workload, steps, root="/engine",
                                   bench_dir="/bench")))
`);
}

main().catch((error) => {
  console.error(String(error && error.message ? error.message : error));
  process.exit(1);
});
