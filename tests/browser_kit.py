"""What the browser tests share: Debian's Chromium through playwright, ``micrograd serve``
started on a free port of loopback, and the static site written by ``micrograd site``
and served by ``python -m http.server``.

Not a test module (no ``test_`` prefix): the browser tests import it.
"""

import contextlib
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"  # screenshots and measured figures (gitignored)
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
#: where ``site_at`` writes the site under its folder: a sub-path, as a course page has
SUB = "course/micrograd"
#: every host name but this machine's resolves to nothing (the browser's own rule)
NO_OTHER_HOST = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost"


@contextlib.contextmanager
def chromium(*extra_args):
    """A headless Chromium (Debian's), closed afterwards; ARTIFACTS made for screenshots."""
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[*ARGS, *extra_args])
        try:
            yield browser
        finally:
            browser.close()


def _env():
    return dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep
                + os.environ.get("PYTHONPATH", ""))


def _stop(proc):
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:  # pragma: no cover
        proc.kill()
        proc.wait()
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


def _first_line(proc, seconds=30):
    """The process's first line of output, or "" if none came within ``seconds``."""
    first = []
    reader = threading.Thread(target=lambda: first.append(proc.stdout.readline()),
                              daemon=True)
    reader.start()
    reader.join(seconds)
    return first[0] if first else ""


@contextlib.contextmanager
def serve(*extra_args):
    """``micrograd serve --port 0 [extra_args]`` with this checkout's code; yields the
    address it prints (``http://127.0.0.1:PORT/``)."""
    with tempfile.TemporaryFile("w+") as log:  # a file: a pipe nobody reads could fill
        proc = subprocess.Popen([sys.executable, "-m", "micrograd", "serve", "--port", "0",
                                 *extra_args], stdout=subprocess.PIPE, stderr=log,
                                text=True, env=_env(), cwd=ROOT)
        try:
            line = _first_line(proc)
            m = re.search(r"http://127\.0\.0\.1:\d+/", line)
            if not m:
                proc.kill()
                proc.wait()
                log.seek(0)
                raise RuntimeError(f"micrograd serve did not print its address: {line!r} "
                                   f"{log.read()[-2000:]}")
            yield m.group(0)
        finally:
            _stop(proc)


class Server:
    """``micrograd serve`` on a fixed free port, so that it can be stopped and started
    again at the same address (a restart loses every session)."""

    def __init__(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "micrograd", "serve", "--port", str(self.port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env(), cwd=ROOT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url + "api/meta", timeout=1) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.1)
        raise RuntimeError("micrograd serve did not start")

    def stop(self):
        _stop(self.proc)


def build_site(top):
    """``micrograd site`` into TOP/course/micrograd/ (a sub-path); (folder, its output)."""
    out = top / SUB
    out.parent.mkdir(parents=True)
    proc = subprocess.run([sys.executable, "-m", "micrograd", "site", str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    if proc.returncode != 0:
        raise RuntimeError(f"micrograd site failed: {proc.stderr}")
    return out, proc.stdout


class StaticServer:
    """``python -m http.server 0 --bind 127.0.0.1 -d FOLDER``, its log kept in a file."""

    def __init__(self, folder, log):
        self.log = log
        self.log_file = open(log, "w")
        self.proc = subprocess.Popen(
            [sys.executable, "-u", "-m", "http.server", "0", "--bind", "127.0.0.1",
             "-d", str(folder)], stdout=subprocess.PIPE, stderr=self.log_file, text=True)
        m = re.search(r"port (\d+)", _first_line(self.proc))
        if not m:
            self.stop()
            raise RuntimeError("http.server did not say its port")
        self.url = f"http://127.0.0.1:{m.group(1)}/"

    def sent(self, path):
        """How many times the server sent ``path``'s body (status 200)."""
        return sum(1 for line in Path(self.log).read_text().splitlines()
                   if f'"GET {path} ' in line and '" 200 ' in line)

    def stop(self):
        _stop(self.proc)
        self.log_file.close()


def foreign(url):
    """Whether a request goes to another host than this machine."""
    parts = urlparse(url)
    return parts.scheme in ("http", "https", "ws", "wss") and \
        parts.hostname not in ("127.0.0.1", "localhost")


def guard(context):
    """Abort and count every request to another host; count the others. (Routing turns
    the browser's HTTP cache off: the cache test blocks other hosts by name instead.)"""
    seen = {"foreign": [], "local": []}

    def route(r):
        url = r.request.url
        if foreign(url):
            seen["foreign"].append(url)
            r.abort()
        else:
            seen["local"].append(url)
            r.continue_()

    context.route("**/*", route)
    return seen
