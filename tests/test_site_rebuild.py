"""``micrograd site DIR`` over a folder that already holds something: a rebuild replaces
the files its own site.json lists and keeps every other file; a folder it did not write
is refused untouched; a build stopped half-way (SIGTERM, Ctrl-C, SIGKILL) leaves the
previous site as it was and its partial files are removed (at once, or at the next run);
a symlinked DIR is written through; missing parent folders are made."""

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from micrograd.cli import main

ROOT = Path(__file__).resolve().parent.parent
#: a bound on every wait for a subprocess (the waits poll; nothing is timed)
WAIT = 300


def snapshot(folder):
    """Every entry under ``folder``: a file's bytes, a folder as None, a link's target."""
    found = {}
    for p in sorted(Path(folder).rglob("*")):
        rel = p.relative_to(folder).as_posix()
        found[rel] = (("link", os.readlink(p)) if p.is_symlink() else
                      None if p.is_dir() else p.read_bytes())
    return found


def partials(folder):
    return sorted(p.relative_to(folder).as_posix() for p in Path(folder).rglob("*")
                  if p.name.endswith(".partial"))


def list_in_manifest(out, rel):
    """Add the file ``out/rel`` to site.json as if the build had written it."""
    manifest = json.loads((out / "site.json").read_text())
    data = (out / rel).read_bytes()
    manifest["files"][rel] = len(data)
    if "sha256" in manifest:
        manifest["sha256"][rel] = hashlib.sha256(data).hexdigest()
    (out / "site.json").write_text(json.dumps(manifest))


@pytest.fixture
def teacher_site(tmp_path, capsys):
    """A site (sources only: quick) with a teacher's lesson beside it and a folder and a
    style of their own, one of them inside the site's static/."""
    out = tmp_path / "out"
    assert main(["site", str(out), "--no-bytecode"]) == 0
    (out / "my_lesson.html").write_text("<p>my lesson</p>")
    (out / "mine").mkdir()
    (out / "mine" / "notes.html").write_text("<p>notes</p>")
    (out / "static" / "teacher.css").write_text("p { color: teal }")
    capsys.readouterr()
    return out


def test_a_rebuild_keeps_the_teachers_files_and_replaces_only_the_sites(teacher_site,
                                                                          capsys):
    out = teacher_site
    (out / "static" / "retired.js").write_text("// a file an older build wrote")
    list_in_manifest(out, "static/retired.js")
    (out / "index.html").write_text("an older page")  # as an older build wrote it
    list_in_manifest(out, "index.html")
    assert main(["site", str(out), "--no-bytecode"]) == 0
    assert (out / "my_lesson.html").read_text() == "<p>my lesson</p>"
    assert (out / "mine" / "notes.html").read_text() == "<p>notes</p>"
    assert (out / "static" / "teacher.css").read_text() == "p { color: teal }"
    assert not (out / "static" / "retired.js").exists()  # listed, and no longer built
    assert "micrograd-door" in (out / "index.html").read_text()
    listed = json.loads((out / "site.json").read_text())["files"]
    assert "my_lesson.html" not in listed and "static/teacher.css" not in listed
    assert sorted(p.name for p in out.parent.iterdir()) == ["out"]  # nothing beside it
    assert partials(out) == []


def test_a_build_killed_while_moving_its_files_in_is_finished_by_the_next(teacher_site,
                                                                         tmp_path, capsys):
    # the state a build killed outright half-way through its renames leaves: some files
    # new, some old, and site.json listing both versions of each path
    out = teacher_site
    new = tmp_path / "new"
    assert main(["site", str(new)]) == 0  # compiled: other bytes than out's sources
    old = json.loads((out / "site.json").read_text())
    assert (new / "micrograd.zip").read_bytes() != (out / "micrograd.zip").read_bytes()
    (out / "micrograd.zip").write_bytes((new / "micrograd.zip").read_bytes())
    between = json.loads((new / "site.json").read_text())
    between["previous"] = {"files": old["files"], "sha256": old["sha256"]}
    (out / "site.json").write_text(json.dumps(between))
    (out / "lesson.html").unlink()  # removed, not yet replaced
    assert main(["site", str(out)]) == 0
    assert (out / "lesson.html").is_file()
    assert (out / "my_lesson.html").read_text() == "<p>my lesson</p>"
    assert "previous" not in json.loads((out / "site.json").read_text())


def forged(out):
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    (out / "site.json").write_text('{"format": "micrograd-site"}')


def lists_a_missing_file(out):
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    (out / "site.json").write_text(json.dumps(
        {"format": "micrograd-site", "files": {"index.html": 10}}))


def sizes_alone_in_a_later_format(out):
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    (out / "site.json").write_text(json.dumps(
        {"format": "micrograd-site", "files": {"notes.txt": 4}}))


def of_the_first_format(out):
    """A site an older micrograd site wrote: sizes, no digests; its sample lesson edited
    to the same length (sizes alone would take it for the build's)."""
    assert main(["site", str(out), "--no-bytecode"]) == 0
    manifest = json.loads((out / "site.json").read_text())
    del manifest["sha256"]
    (out / "site.json").write_text(json.dumps(dict(manifest, version=1)))
    lesson = (out / "lesson.html").read_text()
    (out / "lesson.html").write_text(lesson.replace("<", "{", 1))  # the same size


def lists(*paths, sizes=None):
    """A folder of someone else's files whose site.json lists ``paths`` (each with the
    size and digest of a file ``victim`` beside the folder, made to match)."""
    def make(out):
        out.mkdir()
        (out / "notes.txt").write_text("mine")
        victim = out.parent / "victim.txt"
        victim.write_text("a file outside the folder")
        data = victim.read_bytes()
        (out / "site.json").write_text(json.dumps({
            "format": "micrograd-site", "version": 2,
            "files": {p: len(data) for p in paths},
            "sha256": {p: hashlib.sha256(data).hexdigest() for p in paths}}))
    return make


def a_listed_folder_made_a_link(out):
    """A real site whose static/ was replaced by a link to a folder outside."""
    assert main(["site", str(out), "--no-bytecode"]) == 0
    elsewhere = out.parent / "elsewhere"
    (out / "static").rename(elsewhere)
    (out / "static").symlink_to(elsewhere, target_is_directory=True)


def a_listed_file_made_a_link(out):
    assert main(["site", str(out), "--no-bytecode"]) == 0
    (out / "lesson.html").rename(out.parent / "my_lesson.html")
    (out / "lesson.html").symlink_to(out.parent / "my_lesson.html")


def a_listed_file_made_a_folder(out):
    assert main(["site", str(out), "--no-bytecode"]) == 0
    (out / "lesson.html").unlink()
    (out / "lesson.html").mkdir()
    (out / "lesson.html" / "mine.txt").write_text("mine")


def a_stage_folder_of_someone_elses(out):
    """A folder named as the build's stage, but with no mark of the build in it."""
    out.mkdir()
    (out / ".micrograd-site.partial").mkdir()
    (out / ".micrograd-site.partial" / "important").write_text("keep")
    (out / "notes.txt").write_text("mine")


def a_stage_folder_of_someone_elses_in_a_site(out):
    assert main(["site", str(out), "--no-bytecode"]) == 0
    (out / ".micrograd-site.partial").mkdir()
    (out / ".micrograd-site.partial" / "important").write_text("keep")


def a_listed_file_changed(out):
    assert main(["site", str(out), "--no-bytecode"]) == 0
    (out / "lesson.html").write_text("the sample lesson, rewritten by its teacher")


def the_build_would_overwrite_an_unlisted_file(out):
    assert main(["site", str(out), "--no-bytecode"]) == 0
    manifest = json.loads((out / "site.json").read_text())
    for key in ("files", "sha256"):
        manifest.get(key, {}).pop("lesson.html", None)
    (out / "site.json").write_text(json.dumps(manifest))
    (out / "lesson.html").write_text("a teacher's own lesson.html")


@pytest.mark.parametrize("make, says", [
    (forged, "site.json lists no files"),
    (lists_a_missing_file, "lists 1 files and none of them is there"),
    (sizes_alone_in_a_later_format, "lists 'notes.txt' without its digest"),
    (a_listed_file_changed, "'lesson.html', which was changed"),
    (of_the_first_format, "was written by an older micrograd site, whose site.json keeps "
                          "no digests"),
    (lists("../victim.txt"), "lists '../victim.txt', not a path inside it"),
    (lists("a/../../victim.txt"), "not a path inside it"),
    (lists("/tmp/victim.txt"), "not a path inside it"),
    (lists("a\x00b"), "not a path inside it"),
    (lists("notes.txt", "site.json"), "lists 'site.json', not a path inside it"),
    (a_listed_folder_made_a_link, "under 'static', which is now a link or a file"),
    (a_listed_file_made_a_link, "'lesson.html', which is now a folder or a link"),
    (a_listed_file_made_a_folder, "'lesson.html', which is now a folder or a link"),
    (a_stage_folder_of_someone_elses, "it has no site.json"),
    (a_stage_folder_of_someone_elses_in_a_site, ".micrograd-site.partial is not a folder "
                                                "micrograd site made"),
    (the_build_would_overwrite_an_unlisted_file,
     "would replace 'lesson.html', which it did not write"),
])
def test_a_folder_the_build_did_not_write_is_refused_untouched(tmp_path, capsys, make, says):
    out = tmp_path / "out"
    make(out)
    capsys.readouterr()
    before = snapshot(tmp_path)
    assert main(["site", str(out), "--no-bytecode"]) == 2
    err = capsys.readouterr().err
    assert says in err, err
    assert snapshot(tmp_path) == before


def test_a_symlinked_folder_is_written_through_the_link(tmp_path, capsys):
    real = tmp_path / "real"
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    assert main(["site", str(link), "--no-bytecode"]) == 0
    (real / "my_lesson.html").write_text("<p>my lesson</p>")
    assert main(["site", str(link), "--no-bytecode"]) == 0
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "real"]
    assert (real / "index.html").is_file() and (real / "site.json").is_file()
    assert (real / "my_lesson.html").read_text() == "<p>my lesson</p>"


def test_missing_parent_folders_are_made(tmp_path, capsys):
    out = tmp_path / "course" / "2025" / "micrograd"
    assert main(["site", str(out), "--no-bytecode"]) == 0
    assert (out / "index.html").is_file() and (out / "site.json").is_file()


def test_the_help_says_what_a_rebuild_replaces_and_what_it_keeps():
    out = subprocess.run([sys.executable, "-m", "micrograd", "site", "--help"],
                         capture_output=True, text=True, timeout=60, cwd=ROOT).stdout
    text = " ".join(out.split())
    assert "replaces only the files its own site.json lists" in text, text
    assert "keeps every other file" in text, text


def group_commands(pgid):
    """The command lines of the processes in the process group ``pgid`` (Linux's /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:  # gone meanwhile
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[2]) == pgid:
            found.append(cmdline)
    return found


def start_cold_build(out, cache):
    """``micrograd site out`` in a process group of its own, its cache empty: it spends
    seconds compiling in node. Returns the process once node runs."""
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    proc = subprocess.Popen([sys.executable, "-m", "micrograd", "site", str(out)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + WAIT
    while not any("compile_bytecode.mjs" in c for c in group_commands(proc.pid)):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"node never ran: {proc.communicate()}")
        time.sleep(0.02)
    return proc


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_build_stopped_mid_way_leaves_the_previous_site_and_no_partial_file(
        teacher_site, tmp_path, capsys, sig, code):
    out = teacher_site
    before = snapshot(tmp_path)
    cache = tmp_path.parent / f"{tmp_path.name}-cache"
    proc = start_cold_build(out, cache)
    try:
        if sig == signal.SIGTERM:  # meanwhile a second build into the same folder
            assert main(["site", str(out), "--no-bytecode"]) == 1
            assert "another micrograd site is writing" in capsys.readouterr().err
        assert partials(out) != [] or partials(out.parent) != []  # it was building
        os.kill(proc.pid, sig)
        _, err = proc.communicate(timeout=WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == code, err
    assert "Traceback" not in err, err
    assert snapshot(tmp_path) == before  # the previous site, the teacher's files
    assert partials(cache) == [] and partials(tmp_path) == []
    with pytest.raises(ProcessLookupError):  # node was stopped with it
        os.killpg(proc.pid, 0)


def test_a_killed_builds_partial_files_are_pruned_at_the_next_run(
        teacher_site, tmp_path, capsys, monkeypatch):
    out = teacher_site
    cache = tmp_path.parent / f"{tmp_path.name}-cache"
    (cache / "micrograd" / "site").mkdir(parents=True)
    (cache / "micrograd" / "site" / "notes.partial").write_text("not the build's")
    (out / ".mine.partial").write_text("not the build's either")
    list_before = snapshot(tmp_path)
    proc = start_cold_build(out, cache)
    os.kill(proc.pid, signal.SIGKILL)  # no clean-up possible
    proc.communicate(timeout=WAIT)
    deadline = time.monotonic() + WAIT
    while group_commands(proc.pid):  # node, orphaned, finishes and writes its output
        assert time.monotonic() < deadline, group_commands(proc.pid)
        time.sleep(0.05)
    mine = ["micrograd/site/notes.partial", "out/.mine.partial"]
    left = [p for p in partials(cache) + partials(tmp_path) if p not in mine]
    assert [p for p in left if p.startswith("micrograd/site/")], left  # compiled, cut
    assert [p for p in left if not p.startswith("micrograd/")], left  # the site's
    assert snapshot(tmp_path) != list_before
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    assert main(["site", str(out)]) == 0
    assert partials(cache) == ["micrograd/site/notes.partial"]
    assert partials(tmp_path) == ["out/.mine.partial"]
    assert json.loads((out / "site.json").read_text())["bytecode"] is True
    assert (out / "my_lesson.html").read_text() == "<p>my lesson</p>"
