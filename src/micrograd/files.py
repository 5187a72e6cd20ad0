"""Writing output files safely: every file micrograd writes goes through here.

    >>> import os, tempfile
    >>> from micrograd.files import atomic_open, atomic_path
    >>> folder = tempfile.mkdtemp()
    >>> with atomic_open(os.path.join(folder, "history.json")) as f:
    ...     _ = f.write("{}")
    >>> sorted(os.listdir(folder))
    ['history.json']

A file is written under a temporary name in the folder of its target and renamed over
the target only once it is complete (``os.replace``, atomic on POSIX and Windows), so an
interruption (Ctrl-C, a full disk, a crash) leaves either the old file or the new one,
never a half-written one, and no temporary file behind. Like ``open(path, "w")``:

* a new file gets the usual permissions (0666 minus the umask); an existing file keeps
  its own;
* a symlink is written through: its target is replaced, the link stays;
* only regular files are written: a folder, a device node (``/dev/full``), a pipe or a
  socket as the target is refused with ``OSError`` before anything is written.

Every error is an ``OSError`` (``FileNotFoundError``, ``IsADirectoryError``,
``PermissionError``...) whose ``filename`` is the user's path and whose ``strerror``
says in words what is wrong; ``error_line(err)`` makes the one line a command prints.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from contextlib import contextmanager

__all__ = ["atomic_open", "atomic_path", "check_target", "error_line", "write_text"]

_KINDS = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"))


def check_target(path, example="out.json"):
    """Check that ``path`` can be written as a regular file; return the real path that
    will be replaced (symlinks resolved). Raises ``OSError`` (``filename`` = ``path``)
    if the folder is missing or the target is a folder or another non-regular file.
    ``example`` is a file name suggested when ``path`` is a folder."""
    path = os.fspath(path)
    real = os.path.realpath(path)
    try:
        st = os.stat(real)
    except FileNotFoundError:
        st = None
    except OSError as err:
        raise OSError(err.errno, f"cannot reach it ({err.strerror})", path) from err
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, f"it is a folder; give a file name "
                                    f"such as {example}", path)
        if not stat.S_ISREG(st.st_mode):
            kind = next((k for test, k in _KINDS if test(st.st_mode)), "not a regular file")
            raise OSError(errno.EINVAL, f"it is {kind}, not a regular file; micrograd "
                          f"writes only regular files", path)
    folder = os.path.dirname(real)
    if not os.path.isdir(folder):
        raise FileNotFoundError(errno.ENOENT, f"the folder {folder!r} does not exist", path)
    return real


def _reserve(real, path):
    """Create an empty temporary file beside ``real`` (same suffix, so writers that pick
    the format from the name still work); its mode is the target's, or 0666 - umask."""
    folder, base = os.path.split(real)
    stem, suffix = os.path.splitext(base)
    try:
        keep = stat.S_IMODE(os.stat(real).st_mode)
    except FileNotFoundError:
        keep = None
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = os.path.join(folder, f".{stem}.{secrets.token_hex(4)}.tmp{suffix}")
        try:
            fd = os.open(tmp, flags, 0o666)  # the kernel applies the umask
        except FileExistsError:
            continue
        except OSError as err:
            raise OSError(err.errno, f"cannot create a file in {folder!r} "
                          f"({err.strerror})", path) from err
        try:
            if keep is not None:
                os.fchmod(fd, keep)
        finally:
            os.close(fd)
        return tmp
    raise FileExistsError(errno.EEXIST, f"cannot find a free temporary name in {folder!r}",
                          path)  # pragma: no cover - 100 random collisions


def _sync(tmp):
    fd = os.open(tmp, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def atomic_path(path, example="out.json"):
    """Yield a temporary path to write ``path``'s content to (for writers that take a
    file name: matplotlib, Pillow); on success it replaces ``path``, on any exception
    (Ctrl-C included) it is removed and ``path`` is left as it was."""
    path = os.fspath(path)
    real = check_target(path, example)
    tmp = _reserve(real, path)
    try:
        yield tmp
        _sync(tmp)
        os.replace(tmp, real)
    except BaseException as err:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(err, OSError) and err.filename in (tmp, None):
            # name the user's path, never the temporary file
            raise OSError(err.errno, err.strerror or str(err), path) from err
        raise


@contextmanager
def atomic_open(path, mode="w", encoding="utf-8", example="out.json"):
    """``open(path, mode)`` for writing (``"w"`` or ``"wb"``), atomically: the file
    object writes a temporary file that replaces ``path`` when the block ends without
    an exception."""
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb', got {mode!r}")
    with atomic_path(path, example) as tmp:
        if mode == "wb":
            with open(tmp, "wb") as f:
                yield f
        else:
            with open(tmp, "w", encoding=encoding, newline="\n") as f:
                yield f


def write_text(path, text, example="out.json"):
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with atomic_open(path, "w", example=example) as f:
        f.write(text)


#: what a path is when it is not a regular file, for the message that refuses it
_NOT_REGULAR = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe"),
                (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                (stat.S_ISSOCK, "a socket"))


def not_regular(mode):
    """None for a regular file's ``st_mode``; else what the path is, for a message that
    refuses it (``"a folder"``, ``"a named pipe"``, ... or ``"not a regular file"``)."""
    if stat.S_ISREG(mode):
        return None
    return next((k for test, k in _NOT_REGULAR if test(mode)), "not a regular file")


class NotRegularFileError(OSError):
    """A path that is a folder, a pipe or a device, where a regular file is read;
    ``kind`` says which (``not_regular``)."""

    def __init__(self, path, kind):
        super().__init__(f"{path}: it is {kind}, not a regular file")
        self.kind = kind


class FileTooLargeError(ValueError):
    """A file over the cap its reader sets: nothing past the cap was read."""


def _check_regular(path, mode):
    kind = not_regular(mode)
    if kind is not None:
        raise NotRegularFileError(path, kind)


def read_capped(path, cap):
    """The bytes of the regular file ``path``, refused when over ``cap`` bytes: looked
    at before it is opened (a named pipe would block until some writer came), opened
    without blocking and looked at again (the path may have changed in between), and
    never more than ``cap + 1`` bytes read. Raises ``FileNotFoundError``,
    ``NotRegularFileError``, another ``OSError`` (unreadable) or ``FileTooLargeError``,
    each naming ``path``; a reader maps them to its own words."""
    path = os.fspath(path)
    _check_regular(path, os.stat(path).st_mode)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags | getattr(os, "O_BINARY", 0))
    with os.fdopen(fd, "rb") as f:
        _check_regular(path, os.fstat(f.fileno()).st_mode)
        raw = f.read(cap + 1)
    if len(raw) > cap:
        raise FileTooLargeError(f"{path}: the file is larger than the cap of {cap:,} bytes")
    return raw


def error_line(err, path=None):
    """One line for a command to print: ``cannot write 'x.png': <reason>``."""
    where = err.filename if err.filename is not None else path
    reason = err.strerror or str(err)
    return f"cannot write {where!r}: {reason}" if where is not None else reason
