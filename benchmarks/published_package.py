"""micrograd's published package, in a side virtual environment of the benchmark's own.

The engine benchmark measures ours against the real thing: ``micrograd`` 0.1.0 as the
package index serves it, pinned by the hash of its wheel (pip's ``--require-hashes``
refuses any other file), never a rewrite. It lives in one virtual environment per
interpreter under a cache folder (``~/.cache/micrograd-bench/cpython-3.11.7`` and so
on; ``$XDG_CACHE_HOME`` is honoured, ``--cache`` moves it), made on first use and reused
after; nothing is asked of the user. The same environment holds what micrograd's demo
notebook imports (NumPy, scikit-learn, matplotlib), so that both engines run the notebook
under the same interpreter and libraries: the published engine from the environment's
site-packages, ours from this checkout's ``src/`` put first on the path (each worker
checks which file it imported).
"""

import contextlib
import json
import os
import shutil
import subprocess
import sys

MICROGRAD_WHEEL_SHA256 = "47d756d92043c7d7ef55372640dc1549780a8c22806b3a11cb3d4efc5937a4ae"
REQUIREMENT = f"micrograd==0.1.0 --hash=sha256:{MICROGRAD_WHEEL_SHA256}"
NOTEBOOK_LIBRARIES = ("numpy", "scikit-learn", "matplotlib")
READY = "micrograd-bench.json"  # written last: an environment without it is made again


def default_cache():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "micrograd-bench")


def _interpreter(python):
    """``(tag, executable)`` of an interpreter: ``cpython-3.11.7``, its real path."""
    probe = ("import json, sys, platform; print(json.dumps([platform.python_implementation()"
             ".lower(), platform.python_version(), sys.executable]))")
    try:
        done = subprocess.run([python, "-I", "-c", probe], capture_output=True, text=True,
                              check=False)
    except OSError as exc:
        raise SystemExit(f"--python {python}: cannot run it ({exc})") from None
    if done.returncode != 0:
        raise SystemExit(f"--python {python}: it failed to start:\n{done.stderr}")
    implementation, version, executable = json.loads(done.stdout)
    return f"{implementation}-{version}", executable


def _run(cmd, what):
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{what} failed ({' '.join(cmd)}):\n{done.stdout}{done.stderr}")
    return done.stdout


_DESCRIBE = """
import json, sys, sysconfig
import micrograd.engine, numpy, sklearn, matplotlib
print(json.dumps({
    "python": sys.version.split()[0],
    "site_packages": sysconfig.get_paths()["purelib"],
    "micrograd": micrograd.engine.__file__,
    "numpy": numpy.__version__, "scikit-learn": sklearn.__version__,
    "matplotlib": matplotlib.__version__}))
"""


def _wanted():
    return {"requirement": REQUIREMENT, "libraries": list(NOTEBOOK_LIBRARIES)}


@contextlib.contextmanager
def _locked(path):
    """One benchmark at a time makes a given environment (others wait, then reuse it)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".lock", "w") as lock:
        try:
            import fcntl
        except ImportError:  # not on POSIX: no second run to wait for is assumed
            yield
            return
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def side_venv(python, cache=None, say=print):
    """The side environment for interpreter ``python``: made (and filled) if missing,
    reused otherwise. Returns a dict: ``python`` (its interpreter), ``path``,
    ``site_packages``, ``micrograd`` (the file the published engine loads from) and the
    libraries' versions."""
    tag, _ = _interpreter(python)
    path = os.path.join(cache or default_cache(), tag)
    exe = os.path.join(path, "Scripts" if os.name == "nt" else "bin",
                       "python.exe" if os.name == "nt" else "python")
    ready = os.path.join(path, READY)
    with _locked(path):
        described = None
        if os.path.exists(ready) and os.path.exists(exe):
            with open(ready) as f:
                described = json.load(f)
            if described.get("wanted") != _wanted():
                described = None
        if described is None:
            say(f"making the side environment {path} (micrograd 0.1.0 by its hash, "
                f"{', '.join(NOTEBOOK_LIBRARIES)}): once per interpreter")
            shutil.rmtree(path, ignore_errors=True)
            _run([python, "-m", "venv", path], "making the virtual environment")
            requirements = os.path.join(path, "requirements-micrograd.txt")
            with open(requirements, "w") as f:
                f.write(REQUIREMENT + "\n")
            pip = [exe, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
            _run(pip + ["--require-hashes", "--no-deps", "-r", requirements],
                 "installing micrograd 0.1.0 (hash-checked)")
            _run(pip + list(NOTEBOOK_LIBRARIES), "installing the notebook's libraries")
            described = json.loads(_run([exe, "-I", "-c", _DESCRIBE],
                                        "importing the published package").strip())
            described["wanted"] = _wanted()
            with open(ready + ".tmp", "w") as f:
                json.dump(described, f, indent=1)
            os.replace(ready + ".tmp", ready)
    return {**described, "python_exe": exe, "path": path, "tag": tag}


if __name__ == "__main__":  # make (or show) the environment for one interpreter
    print(json.dumps(side_venv(sys.argv[1] if len(sys.argv) > 1 else sys.executable),
                     indent=1))
