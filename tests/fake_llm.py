"""A stand-in for a hosted or GPU-served chat model, speaking the real
OpenAI-compatible protocol (/v1/chat/completions with a json_schema
response_format). Its "model" is a fixed rule, so tests can steer it:

- an entry "<entity> uses <value>." yields one STATE fact quoting the entry;
- an entry containing HALLUCINATE yields a fact whose quote is not in it;
- a batch containing POISON answers HTTP 500 (the dreamer splits and
  quarantines);
- a batch containing SLOW answers after 60 s (so a test can kill a pass).

Run: python -m tests.fake_llm PORTS_FILE (it writes {"http": port} there)"""

from __future__ import annotations

import asyncio
import json
import re
import sys

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.fake_server import serve_on_any_port

ENTRY = re.compile(r"^\[(?P<id>[0-9a-f-]{36})\] (?P<text>.*)$", re.M)
USES = re.compile(r"^(?P<e>[\w-]+) uses (?P<v>[^.]+)\.?")


def facts_for(prompt: str) -> list[dict]:
    out = []
    for m in ENTRY.finditer(prompt):
        text = m.group("text")
        found = USES.match(text)
        if not found:
            continue
        quote = "the team adopted this long ago" if "HALLUCINATE" in text else text
        out.append({"entry_id": m.group("id"), "kind": "STATE", "entity": found.group("e"),
                    "attribute": "uses", "value": found.group("v").strip(), "quote": quote,
                    "valid_from": None})
    return out


async def chat(request: Request) -> JSONResponse:
    body = await request.json()
    if body.get("response_format", {}).get("type") != "json_schema":
        return JSONResponse({"error": {"message": "expected json_schema"}}, status_code=400)
    prompt = body["messages"][-1]["content"]
    if "POISON" in prompt:
        return JSONResponse({"error": {"message": "model crashed"}}, status_code=500)
    if "SLOW" in prompt:
        await asyncio.sleep(60)
    content = json.dumps({"facts": facts_for(prompt)})
    return JSONResponse({"id": "chatcmpl-fake", "object": "chat.completion",
                         "model": body.get("model"),
                         "choices": [{"index": 0, "finish_reason": "stop",
                                      "message": {"role": "assistant", "content": content}}]})


if __name__ == "__main__":
    app = Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])
    serve_on_any_port(app, sys.argv[1])
