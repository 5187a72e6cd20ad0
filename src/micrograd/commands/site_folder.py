"""The folder ``micrograd site`` writes: which of its files the build owns, and how a new
build takes their place while every other file in the folder stays as it is.

The build owns exactly the paths its ``site.json`` lists (relative paths, sub-folders
allowed), each with its size and SHA-256 digest. A folder proves it holds a site the
build wrote when its ``site.json`` says the format, lists files, at least one of them is
there, and every listed file that is there is a regular file, reached through real
folders, with the listed size and digest. A listed file that is gone is fine: the build
writes it again. Any other non-empty folder is refused before any change, as is a build
that would replace a path site.json does not list, and a site of the first format
(``"version": 1``: sizes, no digests), where a file edited to the same size cannot be
told from the build's.

A new site is built whole in ``STAGE``, a folder inside DIR (same file system: every
move is a rename) that holds ``STAGE_MARK`` from its start, under a lock on DIR; then,
with SIGINT and SIGTERM held, site.json first lists the old and the new versions of
every path, the new files are renamed over the old one by one (the pages last), the old
files the new site lacks are removed, and site.json lists the new site alone. A build
killed during those renames leaves files that site.json still accounts for, so the next
run proves the folder and finishes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import stat
from pathlib import PurePosixPath

try:
    import fcntl
except ImportError:  # pragma: no cover - no advisory locks here: builds are not serialised
    fcntl = None

MANIFEST = "site.json"
FORMAT = "micrograd-site"
#: where a build puts the new site before it moves it in (inside DIR); a folder of this
#: name is the leftover of a build killed outright, removed at the next run
STAGE = ".micrograd-site.partial"
#: the file a build puts in STAGE first: a STAGE folder with anything else in it and not
#: this is someone else's, and stays
STAGE_MARK = ".made-by-micrograd-site"


class SiteError(Exception):
    """A refusal with its exit code and the one line that says why."""

    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


def file_digest(path):
    """(size, SHA-256 hex digest) of the file at ``path``."""
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
            size += len(chunk)
    return size, h.hexdigest()


def listing(folder):
    """The files under ``folder`` as site.json lists them: {path: size}, {path: digest}
    (the stage's mark aside)."""
    sizes, digests = {}, {}
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p != folder / STAGE_MARK:
            rel = p.relative_to(folder).as_posix()
            sizes[rel], digests[rel] = file_digest(p)
    return sizes, digests


def _safe(rel):
    if (not isinstance(rel, str) or not rel or "\\" in rel or "\0" in rel
            or rel.startswith("/")):
        return False
    parts = PurePosixPath(rel).parts
    return (all(part not in (".", "..") for part in parts) and rel != MANIFEST
            and parts[0] != STAGE and "//" not in rel)


def _versions(manifest):
    """{path: [(size, digest or None), ...]}: what each listed path may hold."""
    found = {}
    for part in (manifest, manifest.get("previous")):
        if not isinstance(part, dict):
            continue
        sizes, digests = part.get("files"), part.get("sha256")
        if not isinstance(sizes, dict):
            continue
        digests = digests if isinstance(digests, dict) else {}
        for rel, size in sizes.items():
            found.setdefault(rel, []).append((size, digests.get(rel)))
    return found


def _not_ours(out, why):
    return SiteError(f"{out} is not empty and is not a site written by micrograd site: "
                     f"{why}; give a new or empty folder", 2)


def _changed(out, rel, what):
    return SiteError(f"{out}: its {MANIFEST} lists {rel!r}, {what}; move it out of the "
                     "folder (or delete it) and build again", 2)


def _not_plain(real, rel):
    """The first folder on the way to ``rel`` inside ``real`` that is not a real folder
    (a link, a file), or None: a write through it would leave DIR."""
    here = real
    for part in PurePosixPath(rel).parts[:-1]:
        here = here / part
        try:
            if not stat.S_ISDIR(os.lstat(here).st_mode):
                return here.relative_to(real).as_posix()
        except FileNotFoundError:
            return None
    return None


def owned_files(real, out):
    """The files in the folder ``real`` the build wrote, {path: (size, digest)}, after
    proving the folder is a site it wrote; {} for an empty folder. SiteError (code 2)
    for any other non-empty folder, nothing touched."""
    entries = [p.name for p in real.iterdir() if p.name != STAGE]
    if not entries:
        return {}
    try:
        manifest = json.loads((real / MANIFEST).read_text("utf-8"))
    except FileNotFoundError:
        raise _not_ours(out, f"it has no {MANIFEST}") from None
    except (OSError, ValueError) as err:
        raise _not_ours(out, f"its {MANIFEST} cannot be read ({err})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise _not_ours(out, f"its {MANIFEST} is not one micrograd site writes")
    versions = _versions(manifest)
    if not versions:
        raise _not_ours(out, f"its {MANIFEST} lists no files")
    if manifest.get("version") == 1:  # sizes alone: a same-size edit would be lost
        raise SiteError(
            f"{out} was written by an older micrograd site, whose {MANIFEST} keeps no "
            "digests: a file you edited there cannot be told from one it wrote. Build "
            "into a new folder and move your own files (lessons beside the site) there",
            2)
    for rel in versions:
        if not _safe(rel):
            raise _not_ours(out, f"its {MANIFEST} lists {rel!r}, not a path inside it")
    owned = {}
    for rel, accepted in sorted(versions.items()):
        on_the_way = _not_plain(real, rel)
        if on_the_way is not None:
            raise _changed(out, rel, f"under {on_the_way!r}, which is now a link or a "
                                     "file, not the folder micrograd site made")
        try:
            mode = os.lstat(real / rel).st_mode
        except FileNotFoundError:
            continue  # gone: the build writes it again
        if not stat.S_ISREG(mode):
            raise _changed(out, rel, "which is now a folder or a link, not the file "
                                     "micrograd site wrote")
        accepted = [(s, d) for s, d in accepted if d is not None]
        if not accepted:
            raise _not_ours(out, f"its {MANIFEST} lists {rel!r} without its digest")
        size, digest = file_digest(real / rel)
        if not any(size == s and d == digest for s, d in accepted):
            raise _changed(out, rel, "which was changed since micrograd site wrote it")
        owned[rel] = (size, digest)
    if not owned:
        raise _not_ours(out, f"its {MANIFEST} lists {len(versions)} files and none of "
                             "them is there")
    return owned


def check_replaces(real, out, new, owned):
    """Refuse (SiteError, code 2) a new site that would replace, or write inside, a path
    in ``real`` that the build does not own."""
    for rel in sorted(new):
        here = real
        for part in PurePosixPath(rel).parts:
            here = here / part
            shown = here.relative_to(real).as_posix()
            try:
                mode = os.lstat(here).st_mode
            except (FileNotFoundError, NotADirectoryError):  # new, or under an old file
                break
            folder_on_the_way = shown != rel
            if folder_on_the_way and stat.S_ISDIR(mode):
                continue
            if shown in owned and stat.S_ISREG(mode):
                continue
            raise SiteError(
                f"{out}: the new site would replace {shown!r}, which it did not write "
                f"({MANIFEST} does not list it); move it out of the folder and build "
                "again", 2)


def make_stage(real):
    """The build's folder inside ``real``, with its mark in it first."""
    (real / STAGE).mkdir()
    (real / STAGE / STAGE_MARK).write_bytes(b"")
    return real / STAGE


def remove_stage(real, out):
    """Remove the build's folder inside ``real`` (this run's, or a killed run's): only a
    folder holding the build's mark, or nothing at all (a build killed as it made it).
    Anything else named so is someone else's: SiteError (code 2), nothing touched."""
    stage = real / STAGE
    try:
        mode = os.lstat(stage).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISDIR(mode) and (os.path.lexists(stage / STAGE_MARK) or not any(stage.iterdir())):
        shutil.rmtree(stage)
        return
    raise SiteError(f"{out}: {STAGE} is not a folder micrograd site made (it holds "
                    "neither its mark nor nothing); move it out of the folder and build "
                    "again", 2)


@contextlib.contextmanager
def locked(folder, out, wait):
    """Hold an advisory lock on ``folder`` (the folder itself, no lock file): one build
    at a time writes it. ``wait``: wait for the lock, or refuse (SiteError, code 1)."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                raise SiteError(f"another micrograd site is writing {out}; wait for it "
                                "to finish", 1) from None
            except OSError:  # a file system without locks: builds are not serialised
                pass
        yield
    finally:
        os.close(fd)


@contextlib.contextmanager
def signals_held():
    """SIGINT and SIGTERM held (delivered when the block ends): the moves run to the
    end once begun."""
    held = {signal.SIGINT, signal.SIGTERM}
    try:
        before = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    except (AttributeError, ValueError, OSError):  # pragma: no cover - no signal masks
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _write_manifest(real, manifest):
    tmp = real / STAGE / MANIFEST
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write(json.dumps(manifest, indent=1) + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, real / MANIFEST)


def _make_folders(real, rel):
    here = real
    for part in PurePosixPath(rel).parts[:-1]:
        here = here / part
        if here.is_symlink() or here.is_file():
            # an old file of the build where the new site has a folder (check_replaces
            # refused any other)
            here.unlink()
        here.mkdir(exist_ok=True)


def _remove_emptied(real, rel):
    """Remove the folders above ``rel`` that its removal left empty (DIR itself stays)."""
    here = (real / rel).parent
    while here != real:
        try:
            here.rmdir()
        except OSError:  # not empty: someone else's files, or the site's
            return
        here = here.parent


def move_in(real, manifest, owned):
    """Move the new site from ``real/STAGE`` over the files the build owns (see the
    module's docstring for the order); ``manifest``: the new site.json."""
    stage = real / STAGE
    new = manifest["files"]
    with signals_held():
        between = dict(manifest, previous={
            "files": {rel: size for rel, (size, _) in owned.items()},
            "sha256": {rel: digest for rel, (_, digest) in owned.items()}})
        _write_manifest(real, between)
        for rel in sorted(new, key=lambda rel: (rel.endswith(".html"), rel)):
            _make_folders(real, rel)
            os.replace(stage / rel, real / rel)
        for rel in sorted(set(owned) - set(new)):
            (real / rel).unlink(missing_ok=True)
            _remove_emptied(real, rel)
        _write_manifest(real, manifest)
