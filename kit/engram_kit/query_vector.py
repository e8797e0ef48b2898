"""A query's vector passed along with a search (QueryVector, common.proto):
encoded once by the caller that fans one search out to several services,
checked by each receiver before it ranks by it."""

from __future__ import annotations

import numpy as np

from engram.v1 import common_pb2, embedder_pb2

from .errors import InvalidArgument


def from_reply(reply: embedder_pb2.EmbedResponse) -> common_pb2.QueryVector | None:
    """The one vector of an Embed reply, as passed along; None unless it
    holds exactly one."""
    if reply.count != 1 or len(reply.vectors_f32le) != 4 * reply.dimension:
        return None
    return common_pb2.QueryVector(vector_f32le=reply.vectors_f32le, model=reply.model,
                                  dimension=reply.dimension)


def accepted(given: common_pb2.QueryVector,
             expected: tuple[str, int]) -> np.ndarray | None:
    """The vector, when it is of this store's space; None (encode the query
    here) when none came or it is of another model or dimension. Malformed
    bytes are refused: a wrong vector would rank silently wrong."""
    if not given.vector_f32le or (given.model, given.dimension) != expected:
        return None
    if len(given.vector_f32le) != 4 * given.dimension:
        raise InvalidArgument(f"query_vector must hold {given.dimension} float32 values",
                              field="query_vector")
    vector = np.frombuffer(given.vector_f32le, dtype="<f4")
    if not np.isfinite(vector).all():
        raise InvalidArgument("query_vector holds a non-finite value", field="query_vector")
    return vector
