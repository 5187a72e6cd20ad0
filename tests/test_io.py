"""Save / load: exact round trip, and every bad file refused with the model untouched."""

import json
import os
import random
import stat

import pytest

from micrograd import io
from micrograd.io import FORMAT, VERSION, ModelFileError, load, load_into, save, to_dict
from micrograd.nn import MLP


def weights(model):
    return [p.data for p in model.parameters()]


@pytest.fixture
def saved(tmp_path):
    model = MLP(2, [5, 3, 1], activation="relu", output_activation="linear", seed=4,
                bias_init="zero")
    for p in model.parameters():  # awkward floats: must come back bit for bit
        p.data = p.data / 3.0 + 1e-17
    path = tmp_path / "model.json"
    save(model, path, meta={"dataset": "moons", "acc": 0.97})
    return model, path


def test_round_trip_is_exact(saved):
    model, path = saved
    again, meta = load(path, with_meta=True)
    assert again.config() == model.config()
    assert weights(again) == weights(model)
    assert meta == {"dataset": "moons", "acc": 0.97}
    assert [again([0.3, -0.7]).data] == [model([0.3, -0.7]).data]


def test_file_is_plain_readable_json(saved):
    _, path = saved
    doc = json.loads(path.read_text())
    assert doc["format"] == FORMAT and doc["version"] == VERSION
    assert doc["config"]["nouts"] == [5, 3, 1]
    assert [len(layer) for layer in doc["layers"]] == [5, 3, 1]
    assert set(doc["layers"][0][0]) == {"w", "b"}
    assert len(path.read_text().splitlines()) > 9  # one line per neuron
    assert not [f for f in os.listdir(path.parent) if f.endswith(".tmp")]


def test_load_into_existing_model(saved):
    model, path = saved
    other = MLP(2, [5, 3, 1], activation="relu", output_activation="linear", seed=99,
                bias_init="zero")
    assert load_into(other, path) == {"dataset": "moons", "acc": 0.97}
    assert weights(other) == weights(model)


def test_load_does_not_touch_global_random(saved):
    _, path = saved
    random.seed(5)
    a = random.random()
    random.seed(5)
    load(path)
    assert random.random() == a


def test_one_hidden_neuron_model_loads_and_runs(tmp_path):
    model = MLP(2, [1, 1], seed=0)
    save(model, tmp_path / "m.json")
    again = load(tmp_path / "m.json")
    assert weights(again) == weights(model)
    assert isinstance(again([0.1, 0.2]).data, float)


def doc_of(path):
    return json.loads(path.read_text())


def corrupt(path, fn):
    doc = doc_of(path)
    fn(doc)
    path.write_text(json.dumps(doc))


BAD_DOCS = {
    "wrong format": (lambda d: d.update(format="something-else"),
                     "not a micrograd model file"),
    "newer version": (lambda d: d.update(version=VERSION + 1), "newer than"),
    "version not int": (lambda d: d.update(version="1"), "version must be an int"),
    "no config": (lambda d: d.pop("config"), "missing 'config'"),
    "unknown config key": (lambda d: d["config"].update(depth=3), "unknown keys"),
    "bad activation": (lambda d: d["config"].update(activation="swish"),
                       "not describe a valid MLP"),
    "bad nouts": (lambda d: d["config"].update(nouts=[5, 0, 1]), "positive ints"),
    "missing layer": (lambda d: d["layers"].pop(), "3 layers but the file holds weights for 2"),
    "missing neuron": (lambda d: d["layers"][1].pop(), "layer 2 should hold 3 neurons"),
    "missing weight": (lambda d: d["layers"][1][2]["w"].pop(),
                       "layer 2 neuron 3 should have 5 weights, found 4"),
    "extra weight": (lambda d: d["layers"][0][0]["w"].append(0.5), "should have 2 weights"),
    "string weight": (lambda d: d["layers"][0][1]["w"].__setitem__(0, "0.5"),
                      r"layer 1 neuron 2 w\[0\] is not a finite number"),
    "null bias": (lambda d: d["layers"][2][0].update(b=None), "neuron 1 b is not a finite"),
    "bool weight": (lambda d: d["layers"][0][0]["w"].__setitem__(1, True), "not a finite"),
    "huge int": (lambda d: d["layers"][0][0]["w"].__setitem__(1, 10**400), "not a finite"),
    "neuron not object": (lambda d: d["layers"][0].__setitem__(0, [1, 2, 3]),
                          "object with 'w' and 'b'"),
    "top level list": (None, "expected a JSON object"),
}


@pytest.mark.parametrize("case", list(BAD_DOCS))
def test_bad_content_refused_and_model_untouched(saved, case):
    model, path = saved
    fn, match = BAD_DOCS[case]
    if fn is None:
        path.write_text("[1, 2, 3]")
    else:
        corrupt(path, fn)
    before = weights(model)
    with pytest.raises(ModelFileError, match=match):
        load(path)
    with pytest.raises(ModelFileError, match=match):
        load_into(model, path)
    assert weights(model) == before


@pytest.mark.parametrize("text, match", [
    ("", "empty"),
    ("not json at all", "not valid JSON"),
    ('{"format": "micrograd-mlp", "version": 1, "config": {"nin": 2', "ends early"),
    ('{"a": NaN}', "NaN is not a JSON number"),
    ('{"a": Infinity}', "Infinity is not a JSON number"),
])
def test_unparseable_files(saved, text, match):
    model, path = saved
    path.write_text(text)
    before = weights(model)
    with pytest.raises(ModelFileError, match=match):
        load_into(model, path)
    assert weights(model) == before


def test_truncated_file(saved):
    model, path = saved
    text = path.read_text()
    path.write_text(text[: len(text) // 2])
    before = weights(model)
    with pytest.raises(ModelFileError, match=r"ends early \(truncated\?\)"):
        load_into(model, path)
    assert weights(model) == before


def test_binary_file(saved):
    model, path = saved
    path.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    with pytest.raises(ModelFileError, match="not a text"):
        load_into(model, path)


def test_missing_file_and_directory(tmp_path):
    model = MLP(2, [2, 1], seed=0)
    before = weights(model)
    with pytest.raises(FileNotFoundError, match="no model file at"):
        load_into(model, tmp_path / "nope.json")
    with pytest.raises(ModelFileError, match="it is a folder, not a model file"):
        load(tmp_path)
    assert weights(model) == before


def test_wrong_architecture(saved):
    _, path = saved
    for other in (MLP(2, [4, 1], seed=0),
                  MLP(2, [5, 3, 1], activation="tanh", seed=0),
                  MLP(3, [5, 3, 1], activation="relu", output_activation="linear",
                      bias_init="zero", seed=0)):
        before = weights(other)
        with pytest.raises(ModelFileError, match="different architecture"):
            load_into(other, path)
        assert weights(other) == before


def test_save_refuses_nan_and_non_models(tmp_path):
    model = MLP(2, [2, 1], seed=0)
    model.parameters()[6].data = float("nan")  # layer 2, neuron 1, w[0]
    with pytest.raises(ValueError, match="layer 2 neuron 1 has a weight that is not a finite"):
        save(model, tmp_path / "m.json")
    assert not os.listdir(tmp_path)
    with pytest.raises(TypeError, match="can only save an MLP"):
        to_dict(object())


@pytest.mark.parametrize("text", [
    "[" * 100_000 + "]" * 100_000,
    '{"format": "micrograd-mlp", "meta": ' + "{\"a\": " * 50_000 + "1" + "}" * 50_001,
], ids=["lists", "meta"])
def test_deeply_nested_file_is_a_model_file_error(saved, text):
    model, path = saved
    path.write_text(text)
    before = weights(model)
    with pytest.raises(ModelFileError, match=r"nested too deeply"):
        load_into(model, path)
    with pytest.raises(ModelFileError, match=str(path).replace("\\", "\\\\")):
        load(path)
    assert weights(model) == before


def test_save_into_a_missing_folder_names_the_users_path(tmp_path):
    model = MLP(2, [2, 1], seed=0)
    target = tmp_path / "nope" / "x.json"
    with pytest.raises(FileNotFoundError) as info:
        save(model, target)
    msg = str(info.value)
    assert str(target) in msg and "does not exist" in msg
    assert ".tmp" not in msg and ".micrograd-" not in msg
    assert not (tmp_path / "nope").exists()


def test_save_onto_a_folder_or_unwritable_place_names_the_users_path(tmp_path):
    model = MLP(2, [2, 1], seed=0)
    with pytest.raises(IsADirectoryError, match="is a folder"):
        save(model, tmp_path)
    with pytest.raises(OSError) as info:
        save(model, "/proc/x.json")  # the folder exists, nothing can be created in it
    assert "/proc/x.json" in str(info.value) and ".micrograd-" not in str(info.value)
    assert os.listdir(tmp_path) == []


# ---- how save writes: atomically, with the usual permissions, regular files only ----


def test_save_respects_the_umask_and_keeps_an_existing_files_mode(tmp_path):
    model = MLP(2, [2, 1], seed=0)
    old = os.umask(0o027)
    try:
        save(model, tmp_path / "new.json")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "new.json").st_mode) == 0o640  # 0666 - umask
    kept = tmp_path / "kept.json"
    kept.write_text("old")
    os.chmod(kept, 0o604)
    save(model, kept)
    assert stat.S_IMODE(os.stat(kept).st_mode) == 0o604
    assert load(kept).config() == model.config()


def test_save_writes_through_a_symlink_to_its_target(tmp_path):
    model = MLP(2, [2, 1], seed=0)
    target = tmp_path / "real" / "model.json"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    save(model, link)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert weights(load(target)) == weights(model)
    assert sorted(os.listdir(target.parent)) == ["model.json"]  # no temporary file left
    dangling = tmp_path / "dangling.json"  # a link to a file not there yet: created
    dangling.symlink_to(tmp_path / "real" / "later.json")
    save(model, dangling)
    assert dangling.is_symlink() and (target.parent / "later.json").is_file()


def a_char_device(tmp_path):
    """A character device node to write to: as root, a node of our own with /dev/full's
    numbers, so that a broken check replaces that node and never the machine's
    /dev/full (as root, an unchecked save once did); otherwise /dev/full itself, which
    a user who is not root cannot replace."""
    if os.geteuid() == 0:
        node = tmp_path / "full"
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
        return node
    return "/dev/full"


@pytest.mark.parametrize("kind", ["device", "fifo", "folder via a link"])
def test_save_refuses_non_regular_targets(tmp_path, kind):
    model = MLP(2, [2, 1], seed=0)
    if kind == "device":
        path, what = a_char_device(tmp_path), "a character device"
        before = os.stat(path)
    elif kind == "fifo":
        path, what = tmp_path / "pipe", "a named pipe"
        os.mkfifo(path)
        before = os.stat(path)
    else:
        (tmp_path / "d").mkdir()
        path, what = tmp_path / "link", "a folder"
        path.symlink_to(tmp_path / "d")
        before = os.stat(path)
    with pytest.raises(OSError, match=what) as info:
        save(model, path)
    assert info.value.filename == os.fspath(path)
    after = os.stat(path)  # still the same node, not replaced by a regular file
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)


def test_interrupted_save_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    model = MLP(2, [2, 1], seed=0)
    path = tmp_path / "model.json"
    save(model, path)
    before = path.read_bytes()
    other = MLP(2, [2, 1], seed=1)

    def ctrl_c(src, dst):  # Ctrl-C lands between the write and the rename
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        save(other, path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["model.json"]


# ---- caps on loading -------------------------------------------------------------------


def test_load_caps_the_file_size_and_leaves_the_model_alone(saved):
    model, path = saved
    size = os.path.getsize(path)
    before = weights(model)
    assert weights(load(path, max_bytes=size)) == before  # exactly at the cap: loads
    with pytest.raises(ModelFileError, match=f"larger than the cap of {size - 1:,} bytes"):
        load_into(model, path, max_bytes=size - 1)
    assert weights(model) == before
    big = path.parent / "big.json"
    big.write_bytes(b" " * (io.MAX_FILE_BYTES + 1))  # default cap: refused unparsed
    with pytest.raises(ModelFileError, match="larger than the cap"):
        load(big)


def test_load_caps_the_parameter_count_before_building(tmp_path):
    # the file: tiny weights, millions of parameters
    doc = {"format": FORMAT, "version": VERSION,
           "config": {"nin": 1_000, "nouts": [2_500]},
           "layers": [[{"w": [0] * 1_000, "b": 0}] * 2_500], "meta": {}}
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(doc, separators=(",", ":")))
    assert os.path.getsize(path) < 6 * 2**20
    with pytest.raises(ModelFileError, match="2,502,500 parameters, over the cap of "
                                             "1,000,000"):
        load(path)
    small = MLP(2, [5, 3, 1], seed=0)
    save(small, tmp_path / "small.json")
    n = len(small.parameters())
    assert len(load(tmp_path / "small.json", max_parameters=n).parameters()) == n
    with pytest.raises(ModelFileError, match=f"over the cap of {n - 1}"):
        load_into(small, tmp_path / "small.json", max_parameters=n - 1)


def load_in_a_thread(fn, *args):
    """Run ``fn(*args)`` in a thread; what it raised, or None; a call still blocked
    after 10 s is a failure (the thread is then let go: a daemon, so it cannot hang the
    run)."""
    import threading

    out = {}

    def run():
        try:
            fn(*args)
        except BaseException as err:  # noqa: BLE001 - handed back to the test
            out["err"] = err

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(10)
    return t.is_alive(), out.get("err")


@pytest.mark.parametrize("kind", ["fifo", "device", "link to a fifo"])
@pytest.mark.parametrize("how", ["load", "load_into"])
def test_load_refuses_a_pipe_or_a_device_before_opening_it(tmp_path, kind, how):
    model = MLP(2, [2, 1], seed=0)
    before = weights(model)
    if kind == "device":
        path, what = "/dev/zero", "a character device"  # reading it would never end
    else:
        path, what = tmp_path / "pipe", "a named pipe"  # opening it waits for a writer
        os.mkfifo(path)
        if kind == "link to a fifo":
            (tmp_path / "link").symlink_to(path)
            path = tmp_path / "link"
    blocked, err = load_in_a_thread(load if how == "load" else load_into,
                                    *([path] if how == "load" else [model, path]))
    if blocked:  # a writer lets the blocked open go, then the test fails
        with open(path, "wb"):
            pass
    assert not blocked, f"io.{how} blocked on {kind}"
    assert isinstance(err, ModelFileError), err
    assert f"it is {what}, not a model file" in str(err) and os.fspath(path) in str(err)
    assert weights(model) == before


def test_load_refuses_a_folder_by_name(tmp_path):
    model = MLP(2, [2, 1], seed=0)
    before = weights(model)
    (tmp_path / "d").mkdir()
    for call in (lambda: load(tmp_path / "d"), lambda: load_into(model, tmp_path / "d")):
        with pytest.raises(ModelFileError, match=r"d: it is a folder, not a model file \("
                                                 r"a model file is a regular file; nothing "
                                                 r"was read\)"):
            call()
    assert weights(model) == before
