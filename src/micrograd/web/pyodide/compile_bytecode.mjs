// Compiles the static site's Python modules with Pyodide's own Python, in node: what
// `micrograd site` runs once per Pyodide release and version of micrograd's sources
// (micrograd/commands/site.py keeps the results in a cache). The work is
// micrograd/web/pyodide/bytecode.py's, read from beside this file.
//
//   node compile_bytecode.mjs PYODIDE_DIR JOBS_JSON
//
// JOBS_JSON: [{"kind": "stdlib" | "sources", "input": path, "output": path,
//              "home": the sources' folder at run time (sources only)}, ...]
// Prints one JSON line: {"python": version, "tag": cache tag, "compiled": [n per job]}.
// Exit status 1 and the error on stderr if anything fails.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const [pyodideDir, jobsJson] = process.argv.slice(2);
const jobs = JSON.parse(jobsJson);
try {
  const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
  const py = await loadPyodide({ indexURL: pyodideDir + path.sep, stdout: () => {}, stderr: () => {} });
  const ns = py.globals.get("dict")();
  py.runPython(fs.readFileSync(path.join(HERE, "bytecode.py"), "utf8"), { globals: ns });
  py.FS.mkdirTree("/tmp/bytecode");
  const compiled = jobs.map((job, i) => {
    const input = `/tmp/bytecode/in${i}.zip`, output = `/tmp/bytecode/out${i}.zip`;
    py.FS.writeFile(input, new Uint8Array(fs.readFileSync(job.input)));
    let n;
    if (job.kind === "stdlib") {
      const where = py.runPython("import sys; next(p for p in sys.path if p.endswith('.zip'))");
      n = ns.get("compile_stdlib")(input, output, where);
    } else if (job.kind === "sources") {
      n = ns.get("compile_sources")(input, output, job.home);
    } else {
      throw new Error(`unknown job kind ${JSON.stringify(job.kind)}`);
    }
    fs.writeFileSync(job.output, py.FS.readFile(output));
    return n;
  });
  const [version, tag] = py.runPython(
    "import sys; [sys.version.split()[0], sys.implementation.cache_tag]").toJs();
  process.stdout.write(JSON.stringify({ python: version, tag, compiled }) + "\n");
} catch (err) {
  process.stderr.write(String(err && err.message || err).slice(0, 2000) + "\n");
  process.exit(1);
}
