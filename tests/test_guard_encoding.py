"""The body cap comes before the refusal of compressed bodies: an oversized request gets
413 whatever its ``Content-Encoding``; a compressed body within the cap gets 415.

Through a real ``micrograd serve --port 0`` (uvicorn) over raw sockets on 127.0.0.1, with
the body declared by its length or sent chunked, read in parallel with the sending (the
server may answer and hang up before the body ends).
"""

import gzip
import random
import threading

import pytest
from test_web_hardening import (connect, read_response, start_server, status_and_json,
                                stop_server)

from micrograd.web import limits

CAP = limits.MAX_BODY_BYTES
WALK = b'{"preset": "square"}'


@pytest.fixture(scope="module")
def server():
    proc, port = start_server()
    yield port
    stop_server(proc)


def small_gzip():
    return gzip.compress(WALK)


def big_gzip():
    """A real gzip stream over the cap: incompressible bytes do not shrink."""
    return gzip.compress(random.Random(0).randbytes(CAP + 4096))


def big_plain():
    return WALK + b" " * (CAP + 4096)  # valid JSON, over the cap


def post(port, body, encodings=(), chunked=False, piece=16384):
    """POST ``body`` to /api/walk with one ``Content-Encoding`` line per item of
    ``encodings``; (status, JSON answer, bytes sent)."""
    lines = ["POST /api/walk HTTP/1.1", f"host: 127.0.0.1:{port}",
             "content-type: application/json", "connection: close"]
    lines += [f"content-encoding: {e}" for e in encodings]
    lines.append("transfer-encoding: chunked" if chunked else f"content-length: {len(body)}")
    s = connect(port)
    got = []
    reader = threading.Thread(target=lambda: got.append(read_response(s)))
    sent = 0
    try:
        s.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        reader.start()
        for i in range(0, len(body), piece):
            part = body[i:i + piece]
            s.sendall(b"%x\r\n%s\r\n" % (len(part), part) if chunked else part)
            sent += len(part)
        if chunked:
            s.sendall(b"0\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError):
        pass
    reader.join(20)
    s.close()
    return (*status_and_json(got[0] if got else b""), sent)


def too_big(status, answer):
    assert status == 413, (status, answer)
    assert "cap" in answer["error"] and str(CAP) in answer["error"]


def compressed(status, answer, named):
    assert status == 415, (status, answer)
    msg = answer["error"]
    assert "compressed body" in msg and "send plain JSON" in msg and named in msg, msg


SPELLINGS = ["gzip", "GZIP", "  Gzip ", "br", "deflate"]
LISTS = [("gzip, identity",), ("identity, gzip",), ("identity,GZIP",),
         ("identity", "gzip")]  # the last: two header lines


@pytest.mark.parametrize("chunked", [False, True], ids=["declared", "chunked"])
@pytest.mark.parametrize("encoding", SPELLINGS)
def test_an_oversized_compressed_body_is_413(server, encoding, chunked):
    status, answer, _ = post(server, big_gzip(), [encoding], chunked=chunked)
    too_big(status, answer)


@pytest.mark.parametrize("chunked", [False, True], ids=["declared", "chunked"])
@pytest.mark.parametrize("encodings", LISTS, ids=" + ".join)
def test_an_oversized_body_in_a_list_of_encodings_is_413(server, encodings, chunked):
    status, answer, _ = post(server, big_gzip(), encodings, chunked=chunked)
    too_big(status, answer)


def test_a_chunked_compressed_body_is_not_read_past_the_cap(server):
    body = gzip.compress(random.Random(1).randbytes(8 * 1024 * 1024), compresslevel=1)
    status, answer, sent = post(server, body, ["gzip"], chunked=True, piece=65536)
    too_big(status, answer)
    assert sent < len(body)  # the server hung up long before the end


@pytest.mark.parametrize("chunked", [False, True], ids=["declared", "chunked"])
@pytest.mark.parametrize("encoding", SPELLINGS)
def test_a_small_compressed_body_is_415(server, encoding, chunked):
    status, answer, _ = post(server, small_gzip(), [encoding], chunked=chunked)
    compressed(status, answer, encoding.strip())


@pytest.mark.parametrize("chunked", [False, True], ids=["declared", "chunked"])
@pytest.mark.parametrize("encodings", LISTS, ids=" + ".join)
def test_a_small_body_naming_any_coding_in_a_list_is_415(server, encodings, chunked):
    status, answer, _ = post(server, small_gzip(), encodings, chunked=chunked)
    compressed(status, answer, "gzip" if "gzip" in str(encodings) else "GZIP")


IDENTITY = [(), ("identity",), ("IDENTITY",), (" identity ",), ("identity, identity",),
            ("identity", "identity")]


@pytest.mark.parametrize("chunked", [False, True], ids=["declared", "chunked"])
@pytest.mark.parametrize("encodings", IDENTITY, ids=lambda e: " + ".join(e) or "none")
def test_an_oversized_identity_body_is_413(server, encodings, chunked):
    status, answer, _ = post(server, big_plain(), encodings, chunked=chunked)
    too_big(status, answer)


@pytest.mark.parametrize("chunked", [False, True], ids=["declared", "chunked"])
@pytest.mark.parametrize("encodings", IDENTITY, ids=lambda e: " + ".join(e) or "none")
def test_a_small_identity_body_is_answered(server, encodings, chunked):
    status, answer, _ = post(server, WALK, encodings, chunked=chunked)
    assert status == 200 and answer["graph"]["nodes"], (status, answer)


def test_a_body_just_at_the_cap_is_judged_by_its_encoding(server):
    """At exactly the cap the body is within it: 415 when compressed, read otherwise."""
    body = WALK + b" " * (CAP - len(WALK))
    status, answer, _ = post(server, body, ["gzip"])
    compressed(status, answer, "gzip")
    status, answer, _ = post(server, body, ["identity"], chunked=True)
    assert status == 200, (status, answer)
