"""micrograd.gpt's files: the packaged names, a names file's refusals, the tokenizer, and
the weights file (saved bit for bit, refused whole when wrong, nothing changed)."""

from __future__ import annotations

import json
import os
import random

import pytest

from micrograd.gpt.data import (MAX_NAMES_BYTES, NAMES_FILE, NamesFileError, Tokenizer,
                                UnknownCharacterError, read_names)
from micrograd.gpt.model import GPT, GPTConfig
from micrograd.gpt.weights import ModelFileError, load, save, to_dict


def test_the_packaged_names_are_the_census_lists_merged():
    names = read_names()
    assert len(names) == len(set(names)) == 5163
    assert names == sorted(names) and names[:2] == ["aaron", "abbey"]
    assert set("".join(names)) == set("abcdefghijklmnopqrstuvwxyz")
    assert {"mary", "james", "emma", "zula"} <= set(names)
    folder = os.path.dirname(NAMES_FILE)
    with open(os.path.join(folder, "names.README.md"), encoding="utf-8") as f:
        note = f.read()
    assert "names==0.3.0" in note and "public domain" in note.lower()


def test_a_names_file_is_read_as_microgpt_reads_it(tmp_path):
    path = tmp_path / "n.txt"
    path.write_bytes("\ufeffAnna \r\n\r\n  bo\rzoë\n\n".encode())
    assert read_names(path) == ["Anna", "bo", "zoë"]


def write(tmp_path, data):
    path = tmp_path / "names.txt"
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("data, message", [
    (b"", "no names in it"),
    (b"\n  \n\t\n", "no names in it"),
    (b"anna\n\x00\x01bob\n", "a binary file (it holds NUL bytes)"),
    (b"\x89PNG\r\n\x1a\n", "not UTF-8 text (an invalid byte at offset 0)"),
    (b"anna\n\x1b[31mbob\n", "a binary file (it holds the control character '\\x1b')"),
    ("anna\nbob\xe9\n".encode("latin-1"), "not UTF-8 text (an invalid byte at offset 8)"),
    ("".join(chr(0x4e00 + i) + "\n" for i in range(300)).encode(),
     "300 distinct characters, over the cap of 256"),
])
def test_bad_names_files_are_refused_with_one_line(tmp_path, data, message):
    path = write(tmp_path, data)
    with pytest.raises(NamesFileError) as err:
        read_names(path)
    assert message in str(err.value) and str(path) in str(err.value)
    assert "\n" not in str(err.value)


def test_a_huge_names_file_is_refused_before_it_is_read_whole(tmp_path):
    path = write(tmp_path, b"anna\n" * (MAX_NAMES_BYTES // 5 + 1))
    with pytest.raises(NamesFileError, match="larger than the cap of 4,194,304 bytes"):
        read_names(path)
    assert len(read_names(path, max_bytes=os.path.getsize(path))) > 800_000


def test_a_folder_a_pipe_and_a_missing_file_are_refused(tmp_path):
    with pytest.raises(NamesFileError, match="it is a folder"):
        read_names(tmp_path)
    with pytest.raises(NamesFileError, match="no such file"):
        read_names(tmp_path / "nowhere.txt")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(NamesFileError, match="it is a named pipe"):
        read_names(fifo)  # refused before it is opened: never blocks


def test_the_tokenizer_is_microgpts():
    tok = Tokenizer.from_names(["bob", "ann"])
    assert (tok.chars, tok.bos, tok.vocab_size) == ("abno", 4, 5)
    assert tok.encode("anna") == [4, 0, 2, 2, 0, 4]
    assert tok.decode([4, 1, 3, 1, 4]) == "bob"
    with pytest.raises(UnknownCharacterError, match="the character 'z' .* never saw"):
        tok.encode("zoe")
    with pytest.raises(ValueError, match="distinct and sorted"):
        Tokenizer("ba")


# ---- the weights file ----------------------------------------------------------------


def small(seed=0, chars="abc", **shape):
    tok = Tokenizer(chars)
    return GPT(GPTConfig(vocab_size=tok.vocab_size, **shape), random.Random(seed)), tok


def test_saved_weights_load_bit_for_bit(tmp_path):
    model, tok = small(n_embd=8, n_head=2, n_layer=2, block_size=5)
    path = tmp_path / "gpt.json"
    save(model, tok, path, meta={"steps": 3})
    again, tok2, meta = load(path)
    assert again.config == model.config and tok2.chars == tok.chars and meta == {"steps": 3}
    assert [p.data.hex() for p in again.params] == [p.data.hex() for p in model.params]
    lines = path.read_text().splitlines()
    assert lines[1] == '  "format": "micrograd-gpt",' and len(lines) > 3 + 8 * 6


def test_a_weight_that_is_not_finite_is_never_saved(tmp_path):
    model, tok = small()
    model.params[5].data = float("nan")
    path = tmp_path / "gpt.json"
    with pytest.raises(ValueError, match="wte has a weight that is not a finite number"):
        save(model, tok, path)
    assert not path.exists()


def broken(doc, change):
    doc = json.loads(json.dumps(doc))
    change(doc)
    return json.dumps(doc)


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(format="micrograd-mlp"), "not a micrograd GPT file"),
    (lambda d: d.update(version=2), "format version 2 is newer"),
    (lambda d: d["config"].update(n_head=3), "must be a multiple of n_head"),
    (lambda d: d["config"].update(n_embd=0), "config n_embd must be an int from 1 to 1024"),
    (lambda d: d["config"].update(n_layer=60, n_embd=512), "over the cap of 2,000,000"),
    (lambda d: d.update(chars="cba"), "distinct and sorted"),
    (lambda d: d["weights"]["wte"].pop(), "wte must be 4 rows of 16 numbers"),
    (lambda d: d["weights"].pop("lm_head"), "'weights' must hold exactly the matrices"),
    (lambda d: d["weights"]["wpe"][2].__setitem__(3, "x"), r"wpe\[2\]\[3\] is not a finite"),
    (lambda d: d["weights"]["wpe"][2].__setitem__(3, True), r"wpe\[2\]\[3\] is not a finite"),
])
def test_a_wrong_file_is_refused_whole(tmp_path, change, message):
    model, tok = small()
    path = tmp_path / "gpt.json"
    path.write_text(broken(to_dict(model, tok), change))
    with pytest.raises(ModelFileError, match=message):
        load(path)


@pytest.mark.parametrize("text, message", [
    ("", "the file is empty"),
    ('{"format": "micrograd-gpt", "version"', "not valid JSON"),
    ('{"w": NaN}', "NaN is not a JSON number"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('[1, 2]', "expected a JSON object at the top, found a list"),
])
def test_a_file_that_is_no_model_is_refused(tmp_path, text, message):
    path = tmp_path / "gpt.json"
    path.write_text(text)
    with pytest.raises(ModelFileError, match=message):
        load(path)


def test_other_refusals_of_load(tmp_path):
    with pytest.raises(FileNotFoundError, match="no model file"):
        load(tmp_path / "none.json")
    with pytest.raises(ModelFileError, match="it is a folder"):
        load(tmp_path)
    path = tmp_path / "big.json"
    path.write_text(" " * 2000)
    with pytest.raises(ModelFileError, match="larger than the cap of 1,000 bytes"):
        load(path, max_bytes=1000)
    path.write_bytes(b"\xff\xfe{}")
    with pytest.raises(ModelFileError, match="not a text .UTF-8. file"):
        load(path)
