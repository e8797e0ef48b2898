"""A query vector passed along with a search: used only when it is of the
receiver's space, refused when malformed."""

from __future__ import annotations

import numpy as np
import pytest

from engram.v1 import common_pb2, embedder_pb2
from engram_kit.errors import InvalidArgument
from engram_kit.query_vector import accepted, from_reply

SPACE = ("minilm", 4)


def _vector(values: list[float], model: str = "minilm", dimension: int = 4):
    return common_pb2.QueryVector(vector_f32le=np.asarray(values, "<f4").tobytes(),
                                  model=model, dimension=dimension)


def test_a_vector_of_this_space_is_used():
    got = accepted(_vector([0.1, 0.2, 0.3, 0.4]), SPACE)
    assert got is not None and got.tolist() == pytest.approx([0.1, 0.2, 0.3, 0.4])


def test_none_or_another_space_means_encode_here():
    assert accepted(common_pb2.QueryVector(), SPACE) is None
    assert accepted(_vector([0.1] * 4, model="other"), SPACE) is None
    assert accepted(_vector([0.1] * 8, dimension=8), SPACE) is None


def test_a_malformed_vector_is_refused():
    short = common_pb2.QueryVector(vector_f32le=b"\0" * 12, model="minilm", dimension=4)
    with pytest.raises(InvalidArgument, match="4 float32 values"):
        accepted(short, SPACE)
    with pytest.raises(InvalidArgument, match="non-finite"):
        accepted(_vector([0.1, float("nan"), 0.3, 0.4]), SPACE)


def test_only_a_one_vector_reply_is_passed_along():
    one = embedder_pb2.EmbedResponse(vectors_f32le=b"\0" * 16, count=1, model="minilm",
                                     dimension=4)
    assert from_reply(one) == _vector([0.0] * 4)
    two = embedder_pb2.EmbedResponse(vectors_f32le=b"\0" * 32, count=2, model="minilm",
                                     dimension=4)
    assert from_reply(two) is None
