"""Where a request ends (attention_server/framing.py), byte by byte, on hand-written requests."""

import pytest

from attention_server.framing import MAX_HEAD_BYTES, FramingError, RequestFraming

HEAD = b"POST /api/attention HTTP/1.1\r\nHost: example\r\n"


def feed_bytewise(data: bytes, limit: int = 1000) -> tuple[RequestFraming, int]:
    """Feed ``data`` one byte at a time; return the framing and how many bytes it took
    until it said the request is complete (len(data) + 1 if it never did)."""
    framing = RequestFraming(limit)
    for i in range(len(data)):
        framing.feed(data[i:i + 1])
        if framing.complete:
            return framing, i + 1
    return framing, len(data) + 1


def test_a_request_without_a_body_ends_with_its_blank_line():
    request = b"GET /health HTTP/1.1\r\nHost: example\r\n\r\n"
    framing, taken = feed_bytewise(request + b"GET /next")
    assert taken == len(request) == 39
    assert framing.end == 39 and framing.body_bytes == 0


def test_content_length_frames_the_body_and_leaves_a_pipelined_request_after_it():
    request = HEAD + b"Content-Length: 5\r\n\r\nhello"
    framing, taken = feed_bytewise(request + b"GET / HTTP/1.1\r\n")
    assert taken == len(request)
    assert bytes(framing.buffer[framing.head_end:framing.end]) == b"hello"


def test_chunked_body_ends_after_the_last_chunk_and_the_trailers():
    body = b"3;ext=1\r\nabc\r\n10\r\n" + b"x" * 16 + b"\r\n0\r\nX-Trailer: 1\r\n\r\n"
    request = HEAD + b"Transfer-Encoding: chunked\r\n\r\n" + body
    framing, taken = feed_bytewise(request + b"GET")
    assert taken == len(request)
    assert framing.body_bytes == 3 + 16  # 0x10 is sixteen


def test_header_names_and_the_chunked_value_are_case_insensitive():
    request = HEAD + b"transfer-encoding: Chunked\r\n\r\n1\r\na\r\n0\r\n\r\n"
    framing, taken = feed_bytewise(request)
    assert taken == len(request) and framing.body_bytes == 1


@pytest.mark.parametrize(("body", "status", "words"), [
    (b"zz\r\nabc\r\n0\r\n\r\n", 400, "'zz' is not a hexadecimal"),
    (b"3\r\nabcXX0\r\n\r\n", 400, "not followed by CRLF"),
    (b"-1\r\n", 400, "'-1' is not a hexadecimal"),
    (b"1" * 1100, 400, "longer than 1024 bytes"),
    (b"3e9\r\n", 413, "over the limit of 1000 bytes"),  # 0x3e9 = 1001
    (b"1f4\r\n" + b"a" * 500 + b"\r\n1f5\r\n", 413, "over the limit of 1000 bytes"),
])
def test_broken_or_oversized_chunked_bodies_are_refused(body, status, words):
    with pytest.raises(FramingError) as refused:
        feed_bytewise(HEAD + b"Transfer-Encoding: chunked\r\n\r\n" + body)
    assert refused.value.status == status
    assert words in refused.value.message


def test_a_body_over_the_limit_is_refused_from_its_content_length_alone():
    framing = RequestFraming(1000)
    with pytest.raises(FramingError) as refused:
        framing.feed(HEAD + b"Content-Length: 1001\r\n\r\n")
    assert refused.value.status == 413
    assert refused.value.message == ("The request body is 1001 bytes, over the limit of "
                                     "1000 bytes.")


def test_a_head_that_never_ends_is_refused_past_its_limit():
    framing = RequestFraming(1000)
    framing.feed(b"GET / HTTP/1.1\r\nX: " + b"a" * (MAX_HEAD_BYTES - 30))
    assert not framing.complete
    with pytest.raises(FramingError) as refused:
        framing.feed(b"a" * 100)
    assert refused.value.status == 431


@pytest.mark.parametrize("head", [
    HEAD + b"Content-Length: 5\r\nContent-Length: 6\r\n\r\n",
    HEAD + b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
    HEAD + b"Transfer-Encoding: gzip, chunked\r\n\r\n",
    HEAD + b"Content-Length: +5\r\n\r\n",
    b"POST / HTTP/1.1\nHost: example\nContent-Length: 5\n\n",  # bare LF line ends
])
def test_unusual_framing_is_handed_on_at_the_end_of_its_head(head):
    """gunicorn's parser answers these (400 or 501); waiting for a body would be a guess."""
    framing, taken = feed_bytewise(head + b"hello")
    assert taken == len(head) and framing.end == len(head)


def test_expect_100_continue_is_noticed_on_http11_requests_with_a_body():
    with_body = RequestFraming(1000)
    with_body.feed(HEAD + b"Expect: 100-Continue\r\nContent-Length: 5\r\n\r\n")
    assert with_body.expects_continue and not with_body.complete
    old = RequestFraming(1000)
    old.feed(b"POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
    assert not old.expects_continue  # RFC 9110 10.1.1: ignored in HTTP/1.0
    empty = RequestFraming(1000)
    empty.feed(HEAD + b"Expect: 100-continue\r\nContent-Length: 0\r\n\r\n")
    assert empty.complete and not empty.expects_continue
