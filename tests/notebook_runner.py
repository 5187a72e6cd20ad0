"""Run a notebook from a clean kernel of the current interpreter (nbclient).

The kernel is ``sys.executable -m ipykernel_launcher``, described by a kernelspec in a
temporary folder, so CI's Python (and its installed packages) runs the notebook, never
some other ``python3`` on the PATH. The kernel gets this checkout's ``src`` first on
``PYTHONPATH``, so it imports the code under test.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
KERNEL_NAME = "micrograd-test-python"


def _kernel_env(tmp, extra_path=None):
    spec_dir = Path(tmp) / "kernels" / KERNEL_NAME
    spec_dir.mkdir(parents=True)
    (spec_dir / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "micrograd tests", "language": "python"}))
    env = dict(os.environ)
    env["JUPYTER_PATH"] = tmp
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    first = [extra_path] if extra_path else []
    env["PYTHONPATH"] = os.pathsep.join(first + [str(ROOT / "src")]
                                        + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def execute(nb, cwd, timeout=120, extra_path=None):
    """Execute the notebook node ``nb`` in place in folder ``cwd``; return it.
    ``extra_path``: a folder put first on the kernel's ``PYTHONPATH``."""
    from jupyter_client.kernelspec import KernelSpecManager
    from nbclient import NotebookClient

    with tempfile.TemporaryDirectory() as tmp:
        env = _kernel_env(tmp, extra_path)
        old = {k: os.environ.get(k) for k in ("JUPYTER_PATH", "JUPYTER_PLATFORM_DIRS")}
        os.environ["JUPYTER_PATH"] = tmp
        os.environ["JUPYTER_PLATFORM_DIRS"] = "1"
        try:
            spec = KernelSpecManager().get_kernel_spec(KERNEL_NAME)  # found via JUPYTER_PATH
            if spec.argv[0] != sys.executable:  # pragma: no cover - a shadowing kernelspec
                raise RuntimeError(f"kernel {KERNEL_NAME!r} runs {spec.argv[0]}, "
                                   f"not {sys.executable}")
            client = NotebookClient(nb, timeout=timeout, kernel_name=KERNEL_NAME,
                                    resources={"metadata": {"path": str(cwd)}})
            client.execute(env=env, cwd=str(cwd))
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
    return nb


def run(name, cwd, timeout=120, extra_path=None):
    """Read ``notebooks/<name>``, execute it from a clean kernel, return the node."""
    import nbformat

    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    return execute(nb, cwd, timeout, extra_path)


def stdout(nb):
    """All the text the notebook's cells printed (streams and text/plain results)."""
    out = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for o in cell.get("outputs", []):
            if o.output_type == "stream" and o.name == "stdout":
                out.append(o.text)
            elif o.output_type in ("execute_result", "display_data"):
                out.append(o.get("data", {}).get("text/plain", "") + "\n")
    return "".join(out)


def mimetypes(nb):
    """Every output mimetype of the executed notebook, in order."""
    return [m for cell in nb.cells if cell.cell_type == "code"
            for o in cell.get("outputs", []) for m in o.get("data", {})]
