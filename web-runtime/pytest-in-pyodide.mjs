// Run micrograd's tests on Pyodide's Python (CPython compiled to WebAssembly) in node.
//
//   node web-runtime/pytest-in-pyodide.mjs [pytest args...]
//
// Loads Pyodide from this folder's node_modules (installed by `npm ci`; nothing is
// fetched at run time), unpacks the pinned pytest wheels (web-runtime/wheels, checked
// against the hashes in pyodide-test-requirements.txt) into its site-packages, copies the
// package (src/micrograd), the tests, the docs and pyproject.toml into its file system
// and runs pytest there. With no arguments it runs the test files listed in PURE_TESTS below; the
// exit status is pytest's.

import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, "..");
const WHEELS = path.join(HERE, "wheels");
const REQUIREMENTS = path.join(HERE, "pyodide-test-requirements.txt");
const PYODIDE_DIR = path.join(HERE, "node_modules", "pyodide");

// The test files that need neither NumPy nor torch at import: the engine, nn, the op
// table and autodiff, the engine's standard-library side (the expression language, the
// walk, graph views, model files, the lecture's listings) on Python 3.14. Their tests that
// compare against PyTorch or feed NumPy numbers ask for the `torch` or `np` fixture
// (tests/conftest.py), which imports it on use; those are left out here (NEEDS_FIXTURES).
export const PURE_TESTS = [
  "tests/test_autodiff.py",
  "tests/test_autodiff_api.py",
  "tests/test_autodiff_random.py",
  "tests/test_checks.py",
  "tests/test_draw_dot.py",
  "tests/test_engine.py",
  "tests/test_engine_layout.py",
  "tests/test_expr.py",
  "tests/test_io.py",
  "tests/test_nn.py",
  "tests/test_ops_reference.py",
  "tests/test_pow_huge.py",
  "tests/test_readme.py",
  "tests/test_seed_listings.py",
  "tests/test_smoke.py",
  "tests/test_viz.py",
  "tests/test_walk.py",
];

// The fixtures that import what Pyodide has not: a test that asks for one is left out.
const NEEDS_FIXTURES = ["torch", "np"];

// The tests in those files that need what Pyodide has not, by reason. A test id without
// brackets leaves out all its parametrized cases.
const NEEDS = {
  "NumPy or torch inside the test": [
    "tests/test_checks.py::test_traced_adam_refuses_eps_zero_like_adam",
    "tests/test_engine_layout.py::test_a_neuron_builds_the_operators_graph",
    "tests/test_seed_listings.py::test_002_the_same_thing_in_pytorch",
    "tests/test_expr.py::test_seed002_program_builds_labelled_graph_with_torch_grads",
    "tests/test_expr.py::test_single_expression_with_values_matches_torch",
    "tests/test_expr.py::test_override_against_hand_values_and_torch",
    "tests/test_walk.py::test_no_zero_grad_seed002_numbers",
  ],
  "FastAPI (the served page's leaf edits)": [
    "tests/test_expr.py::test_override_matches_the_web_pages_leaf_edits",
    "tests/test_expr.py::test_override_refuses_names_that_are_not_leaves",
    "tests/test_expr.py::test_a_name_assigned_twice_is_not_an_editable_leaf",
  ],
  "matplotlib or Pillow (PNG pictures), IPython": [
    "tests/test_draw_dot.py::test_png_note_adds_a_band",
    "tests/test_draw_dot.py::test_jupyter_display",
    "tests/test_draw_dot.py::test_render_format_by_argument_or_extension",
    "tests/test_draw_dot.py::test_render_default_format_png",
    "tests/test_draw_dot.py::test_readme_draw_dot_example_runs",
    "tests/test_viz.py::test_png_is_written",
    "tests/test_readme.py::test_demo_table_is_what_the_demo_prints",
  ],
  "a second process or a thread (Pyodide starts neither)": [
    "tests/test_smoke.py::test_the_engine_page_example_prints_what_the_page_says",
    "tests/test_engine_layout.py::test_threads_running_backward_on_one_graph_finish_and_leave_it_usable",
    "tests/test_engine_layout.py::test_importing_the_engine_changes_no_collector_setting_and_leaves_no_node",
    "tests/test_engine.py::test_validation_under_python_O",
    "tests/test_engine.py::test_importing_the_engine_does_not_import_numpy",
  ],
  "file modes, umask, devices and fifos (Emscripten's in-memory file system has none)": [
    "tests/test_io.py::test_save_onto_a_folder_or_unwritable_place_names_the_users_path",
    "tests/test_io.py::test_save_respects_the_umask_and_keeps_an_existing_files_mode",
    "tests/test_io.py::test_save_refuses_non_regular_targets",
    "tests/test_io.py::test_load_refuses_a_pipe_or_a_device_before_opening_it",
  ],
  // Freeing a chain of about 4,500 Values, or json's decoder on 50,000 nested brackets,
  // overflows the WebAssembly stack before Python's recursion limit: a fatal error that
  // ends the interpreter (node's default stack; a browser's worker is no larger).
  "graphs or JSON thousands of levels deep (the WebAssembly stack)": [
    "tests/test_draw_dot.py::test_trace_is_iterative",
    "tests/test_engine_layout.py::test_memory_per_node_is_its_object_and_its_number",
    "tests/test_io.py::test_deeply_nested_file_is_a_model_file_error",
    "tests/test_engine.py::test_a_million_op_chain_backpropagates_each_node_once",
    "tests/test_engine.py::test_deep_chain_under_a_small_recursion_limit",
    "tests/test_autodiff_api.py::test_deep_graph_needs_no_recursion",
  ],
};

function fail(message) {
  process.stderr.write(`pytest-in-pyodide: ${message}\n`);
  process.exit(2);
}

function pinnedWheels() {
  const pins = [];
  for (const raw of fs.readFileSync(REQUIREMENTS, "utf8").split("\n")) {
    const line = raw.replace(/#.*/, "").trim();
    if (!line) continue;
    const m = /^([A-Za-z0-9_.-]+)==(\S+)\s+--hash=sha256:([0-9a-f]{64})$/.exec(line);
    if (!m) fail(`cannot read this line of ${REQUIREMENTS}: ${raw}`);
    pins.push({ name: m[1], version: m[2], sha256: m[3] });
  }
  const files = fs.existsSync(WHEELS) ? fs.readdirSync(WHEELS) : [];
  return pins.map((pin) => {
    const stem = `${pin.name.replace(/[-_.]+/g, "_").toLowerCase()}-${pin.version}-`;
    const file = files.find((f) => f.toLowerCase().startsWith(stem) && f.endsWith(".whl"));
    if (!file) {
      fail(`the wheel ${pin.name}==${pin.version} is not in ${WHEELS}; get the pinned ` +
           "wheels with: bash scripts/test.sh (or the pip download command at the top of " +
           `${path.basename(REQUIREMENTS)})`);
    }
    const bytes = fs.readFileSync(path.join(WHEELS, file));
    const digest = createHash("sha256").update(bytes).digest("hex");
    if (digest !== pin.sha256) {
      fail(`${file} has sha256 ${digest}, not the pinned ${pin.sha256}`);
    }
    return { file, bytes };
  });
}

// Copy a host folder into Pyodide's file system: .py files and the data files the
// package ships (the page's static files, widget.js), no caches.
function copyTree(FS, from, to) {
  FS.mkdirTree(to);
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    if (entry.name === "__pycache__" || entry.name.startsWith(".")) continue;
    const src = path.join(from, entry.name);
    const dst = `${to}/${entry.name}`;
    if (entry.isDirectory()) copyTree(FS, src, dst);
    else if (entry.isFile()) FS.writeFile(dst, fs.readFileSync(src));
  }
}

async function main() {
  if (!fs.existsSync(path.join(PYODIDE_DIR, "pyodide.mjs"))) {
    fail(`Pyodide is not installed in ${PYODIDE_DIR}; install it with: ` +
         "npm ci --prefix web-runtime");
  }
  const wheels = pinnedWheels();
  const { loadPyodide } = await import(pathToFileURL(path.join(PYODIDE_DIR, "pyodide.mjs")).href);
  const started = performance.now();
  const pyodide = await loadPyodide({
    indexURL: PYODIDE_DIR + path.sep,
    env: { HYPOTHESIS_PROFILE: process.env.HYPOTHESIS_PROFILE || "dev" },
  });
  const FS = pyodide.FS;
  const site = pyodide.runPython("import site; site.getsitepackages()[0]");
  for (const { file, bytes } of wheels) {
    pyodide.unpackArchive(new Uint8Array(bytes), "wheel", { extractDir: site });
    process.stderr.write(`pytest-in-pyodide: unpacked ${file}\n`);
  }
  const root = "/home/pyodide/repo";
  copyTree(FS, path.join(REPO, "src", "micrograd"), `${root}/src/micrograd`);
  copyTree(FS, path.join(REPO, "tests"), `${root}/tests`);
  copyTree(FS, path.join(REPO, "docs"), `${root}/docs`);
  for (const file of ["pyproject.toml", "README.md"]) {
    FS.writeFile(`${root}/${file}`, fs.readFileSync(path.join(REPO, file)));
  }

  const args = process.argv.slice(2);
  const takesValue = new Set(["--deselect", "--ignore", "-k", "-m", "-p", "-o"]);
  const named = args.some((a, i) => a.startsWith("tests/") && !takesValue.has(args[i - 1]));
  const chosen = named ? args : [...PURE_TESTS, ...args];
  pyodide.globals.set("PYTEST_ARGS", pyodide.toPy(["-p", "no:cacheprovider", ...chosen]));
  pyodide.globals.set("LEFT_OUT", pyodide.toPy(Object.values(NEEDS).flat()));
  pyodide.globals.set("LEFT_OUT_FIXTURES", pyodide.toPy(NEEDS_FIXTURES));
  const code = await pyodide.runPythonAsync(`
import os, sys, platform
os.chdir(${JSON.stringify(root)})
sys.dont_write_bytecode = True
print(f"Python {platform.python_version()} on {sys.platform} (Pyodide)", flush=True)
import pytest

class LeaveOut:
    """Deselects the tests that need what Pyodide has not: those NEEDS names, and those
    that ask for a fixture of NEEDS_FIXTURES."""

    def __init__(self, ids, fixtures):
        self.ids, self.fixtures, self.seen = set(ids), set(fixtures), set()

    def pytest_collection_modifyitems(self, config, items):
        keep, out = [], []
        for item in items:
            base = item.nodeid.split("[")[0]
            hit = item.nodeid if item.nodeid in self.ids else base if base in self.ids else None
            if hit:
                self.seen.add(hit)
            needs = self.fixtures.intersection(getattr(item, "fixturenames", ()))
            (out if hit or needs else keep).append(item)
        if out:
            config.hook.pytest_deselected(items=out)
            items[:] = keep

leave_out = LeaveOut(LEFT_OUT, LEFT_OUT_FIXTURES)
code = int(pytest.main(list(PYTEST_ARGS), plugins=[leave_out]))
named = {a.split("::")[0] for a in PYTEST_ARGS if a.startswith("tests/")}
stale = sorted(i for i in leave_out.ids - leave_out.seen if i.split("::")[0] in named)
if stale:
    print("pytest-in-pyodide: left-out tests that no longer exist (drop them from NEEDS):",
          *stale, sep="\\n  ")
code
`);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stderr.write(`pytest-in-pyodide: ${seconds} s from loading Pyodide to the summary\n`);
  process.exit(code);
}

main().catch((err) => fail(err && err.stack ? err.stack : String(err)));
