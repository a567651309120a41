"""The early refusals read a request head that comes a byte at a time in linear work: each call of
:func:`jobschema.serve.protocol.head_problem` searches for the head's end only where the last one
stopped (a slowloris peer sending 16 KiB a byte at a time cost about 1 s of CPU, once per byte the
whole head again), and answers what a search of the whole head answers."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobschema.serve import protocol
from jobschema.serve.protocol import head_problem


class _Counting:
    """``_HEAD_END`` that counts the bytes each search is given to look at."""

    def __init__(self, pattern: Any) -> None:
        self.pattern = pattern
        self.looked = 0

    def search(self, text: bytes, pos: int = 0) -> Any:
        self.looked += len(text) - pos
        return self.pattern.search(text, pos)


def _head(headers: int) -> bytes:
    lines = b"".join(b"X-Header-%d: %s\r\n" % (i, b"v" * 40) for i in range(headers))
    return b"GET /api/v1/workloads/distributed/x HTTP/1.1\r\n" + lines


def _looked_byte_by_byte(head: bytes, monkeypatch: pytest.MonkeyPatch) -> int:
    counting = _Counting(protocol._HEAD_END)
    monkeypatch.setattr(protocol, "_HEAD_END", counting)
    searched = 0
    for end in range(1, len(head) + 1):
        assert head_problem(head[:end], searched) is None
        searched = end
    return counting.looked


def test_a_head_sent_a_byte_at_a_time_is_searched_in_linear_work(monkeypatch: pytest.MonkeyPatch) -> None:
    small, large = _head(50), _head(200)
    looked_small = _looked_byte_by_byte(small, monkeypatch)
    looked_large = _looked_byte_by_byte(large, monkeypatch)
    assert looked_small <= 4 * len(small)
    assert looked_large <= 4 * len(large)  # (quadratic: about len² / 2, 60 times this at 200 headers)


HEADS = [
    b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nabc",
    b"GET / HTTP/1.0\r\nTransfer-Encoding: chunked\n\nx",
    b"GET / HTTP/1.1\r\nAuthorization: a\r\nAuthorization: b\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET / HTTP/2.0\r\n\r\n",
    b"\x16\x03\x01\x02\x00\x01\x00",
]


@settings(max_examples=300, derandomize=True, database=None)
@given(st.sampled_from(HEADS), st.lists(st.integers(min_value=1, max_value=7), min_size=1, max_size=40))
def test_searching_in_pieces_answers_as_searching_the_whole(head: bytes, pieces: list[int]) -> None:
    """Fed in pieces of any sizes, the first answer (a refusal, or the head whole and served) comes at
    the same piece, and is the same, as when each call is given the whole of what came."""
    searched, end = 0, 0
    for size in pieces:
        end = min(len(head), end + size)
        piecewise, whole = head_problem(head[:end], searched), head_problem(head[:end])
        assert piecewise == whole
        searched = end
        if whole is not None or protocol._HEAD_END.search(head[:end]) or end == len(head):
            break
