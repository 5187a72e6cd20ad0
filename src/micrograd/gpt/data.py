"""The names a GPT learns from, and its character tokenizer, as microgpt reads them.

    >>> from micrograd.gpt.data import read_names, Tokenizer
    >>> names = read_names()            # the packaged list: 5,163 census first names
    >>> len(names), names[:3]
    (5163, ['aaron', 'abbey', 'abbie'])
    >>> tok = Tokenizer.from_names(names)
    >>> tok.vocab_size, tok.encode("emma")
    (27, [26, 4, 12, 12, 0, 26])

A names file is UTF-8 text, one name a line; blank lines are skipped and each line is
stripped, as microgpt does. Reading it refuses (``NamesFileError``, a ``ValueError``
whose message names the file and says what is wrong) a path that is not a regular file,
a file over ``MAX_NAMES_BYTES``, a binary file (a NUL or another control character), a
file that is not UTF-8, a file with no name in it, and one with more than ``MAX_CHARS``
distinct characters. The tokenizer is microgpt's: the distinct characters, sorted, are
the tokens ``0 .. n-1`` and ``BOS`` (``n``) begins and ends every name; a character it
never saw is refused (``UnknownCharacterError``) with the character named.
"""

from __future__ import annotations

import os

from ..files import NotRegularFileError, read_capped

__all__ = ["NAMES_FILE", "MAX_NAMES_BYTES", "MAX_CHARS", "NamesFileError",
           "UnknownCharacterError", "Tokenizer", "read_names", "parse_names",
           "read_capped", "NotRegularFileError"]

#: the packaged names: the 1990 US census first names (names.README.md beside it)
NAMES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "names.txt")

#: a names file is read whole into memory and every name becomes a training step's
#: graph: 4 MB is 100 times makemore's names.txt
MAX_NAMES_BYTES = 4 * 2**20
#: the vocabulary's size: each character is a row of the embedding and of the head
MAX_CHARS = 256

#: control characters that mark a binary file (tab, newline and carriage return are text)
_CONTROL = frozenset(chr(c) for c in range(32)) - {"\t", "\n", "\r"} | {"\x7f"}


class NamesFileError(ValueError):
    """A names file that cannot be read: the message names the file and the problem."""


class UnknownCharacterError(ValueError):
    """A character the tokenizer (the model) never saw."""


def parse_names(raw, where="names file"):
    """The names in ``raw`` (bytes of UTF-8 text, one name a line), each stripped, blank
    lines left out; ``NamesFileError`` for binary, non-UTF-8 or empty input."""
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise NamesFileError(f"{where}: not UTF-8 text (it is UTF-16); save it as UTF-8, "
                             f"one name a line")
    if b"\0" in raw:
        raise NamesFileError(f"{where}: a binary file (it holds NUL bytes), not a text "
                             f"file of names")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise NamesFileError(f"{where}: not UTF-8 text (an invalid byte at offset "
                             f"{err.start}); save it as UTF-8, one name a line") from err
    control = next((c for c in text if c in _CONTROL), None)
    if control is not None:
        raise NamesFileError(f"{where}: a binary file (it holds the control character "
                             f"{control!r}), not a text file of names")
    # microgpt: open().read().strip().split('\n'), each line stripped, blank ones left out
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    names = [line.strip() for line in lines if line.strip()]
    if not names:
        raise NamesFileError(f"{where}: no names in it (the file is empty or blank); "
                             f"give a text file with one name a line")
    chars = set("".join(names))
    if len(chars) > MAX_CHARS:
        raise NamesFileError(f"{where}: {len(chars):,} distinct characters, over the cap "
                             f"of {MAX_CHARS} (each character is a token of the model)")
    return names


def read_names(path=None, max_bytes=MAX_NAMES_BYTES):
    """The names of the file at ``path`` (the packaged list when None), in file order."""
    path = NAMES_FILE if path is None else os.fspath(path)
    try:
        raw = read_capped(path, max_bytes)
    except FileNotFoundError:
        raise NamesFileError(f"{path}: no such file") from None
    except NotRegularFileError as err:
        raise NamesFileError(f"{err}; give a text file with one name a line") from None
    except ValueError as err:
        raise NamesFileError(f"{err} for a names file") from None
    except OSError as err:
        raise NamesFileError(f"{path}: cannot read the file "
                             f"({err.strerror or err})") from None
    return parse_names(raw, path)


class Tokenizer:
    """microgpt's tokenizer: ``chars`` (distinct, sorted) are the tokens ``0..n-1``,
    ``bos`` = n begins and ends a name; ``vocab_size`` = n + 1."""

    def __init__(self, chars):
        chars = "".join(chars)
        if list(chars) != sorted(set(chars)):
            raise ValueError("a tokenizer's characters are distinct and sorted")
        if not chars:
            raise ValueError("a tokenizer needs at least one character")
        self.chars = chars
        self.bos = len(chars)
        self.vocab_size = len(chars) + 1
        self._index = {c: i for i, c in enumerate(chars)}

    @classmethod
    def from_names(cls, names):
        """The tokenizer of a list of names: its distinct characters, sorted."""
        return cls(sorted(set("".join(names))))

    def check(self, text, what="the text"):
        """Raise ``UnknownCharacterError`` if ``text`` holds a character not in the
        vocabulary (the first one named, with where it is)."""
        for i, c in enumerate(text):
            if c not in self._index:
                known = self.chars if len(self.chars) <= 60 else self.chars[:60] + "..."
                raise UnknownCharacterError(
                    f"{what} holds the character {c!r} (at position {i + 1} of "
                    f"{text[:40]!r}), which the model never saw; it knows {known!r}")

    def encode(self, name):
        """``[BOS] + the name's tokens + [BOS]``."""
        self.check(name, f"the name {name[:40]!r}")
        return [self.bos] + [self._index[c] for c in name] + [self.bos]

    def decode(self, tokens):
        """The characters of ``tokens`` (BOS left out)."""
        return "".join(self.chars[t] for t in tokens if t != self.bos)
