"""The engine benchmark's baseline: this project's own ``src/`` at a git revision.

``python benchmarks/engine.py --baseline REV`` measures this checkout's engine against
the same project as it was at ``REV``, to time a change before and after on the same
machine and interpreters. ``export`` writes the revision's ``src/`` (``git archive REV
src``) into ``<cache>/baseline-src/<full commit sha>/src`` and reuses it on a later run:
the files go to a temporary folder first and are renamed into place once complete, so an
interrupted export leaves nothing that a later run would take as done.
"""

import io
import os
import shutil
import subprocess
import tarfile
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENGINE = os.path.join("micrograd", "engine.py")  # what a worker must import, under src/


def _git(repo, args, what):
    try:
        done = subprocess.run(["git", "-C", repo, *args], capture_output=True, check=False)
    except OSError as exc:
        raise SystemExit(f"{what}: cannot run git ({exc})") from None
    if done.returncode != 0:
        error = done.stderr.decode(errors="replace").strip()
        raise SystemExit(f"{what}: git {' '.join(args)} failed in {repo}:\n{error}")
    return done.stdout


def resolve(rev, repo=REPO):
    """The full sha of the commit that ``rev`` names in ``repo``."""
    if not isinstance(rev, str) or not rev or rev.startswith("-"):
        raise SystemExit(f"--baseline {rev!r}: not a git revision")
    sha = _git(repo, ["rev-parse", "--verify", "--quiet", rev + "^{commit}"],
               f"--baseline {rev}: no such commit").decode().strip()
    return sha


def label(sha):
    """How the table names the baseline: ``baseline`` and the commit's first 7 hex."""
    return f"baseline {sha[:7]}"


def _extract(archive, into):
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        if hasattr(tarfile, "data_filter"):  # refuses links and paths outside ``into``
            tar.extractall(into, filter="data")
        else:
            tar.extractall(into)


def export(rev, cache, say=print, repo=REPO):
    """``rev``'s ``src/`` under ``cache``, exported once per commit. Returns a dict:
    ``sha`` (full), ``label``, ``src`` (the folder a worker puts first on its path) and
    ``engine`` (the engine file the baseline's workers must import)."""
    sha = resolve(rev, repo)
    home = os.path.join(cache, "baseline-src")
    final = os.path.join(home, sha)
    src = os.path.join(final, "src")
    if not os.path.isfile(os.path.join(src, ENGINE)):
        say(f"exporting src/ at {sha} to {final} (once per commit)")
        archive = _git(repo, ["archive", "--format=tar", sha, "src"],
                       f"--baseline {rev}: exporting src/ at {sha[:7]}")
        os.makedirs(home, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=f".{sha[:7]}-", dir=home)
        try:
            _extract(archive, tmp)
            if not os.path.isfile(os.path.join(tmp, "src", ENGINE)):
                raise SystemExit(f"--baseline {rev}: commit {sha[:7]} has no "
                                 f"src/{ENGINE.replace(os.sep, '/')}")
            shutil.rmtree(final, ignore_errors=True)  # an incomplete one, left by hand
            try:
                os.rename(tmp, final)
            except OSError:  # a run beside this one put it there first
                if not os.path.isfile(os.path.join(src, ENGINE)):
                    raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return {"sha": sha, "label": label(sha), "src": src,
            "engine": os.path.join(src, ENGINE)}
