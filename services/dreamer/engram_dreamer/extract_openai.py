"""The `openai` extractor: any OpenAI-compatible chat endpoint (vLLM,
llama.cpp's server, Ollama, a hosted API), asked for JSON that follows a
schema. Timeouts and bounded retries here; splitting a failing batch and
quarantining the entry that keeps failing is the pass's job."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx

from .extractor import KINDS, Candidate, EntryText, ExtractionFailed, ExtractorUnavailable

# Answers that mean the server, not the batch, is the trouble.
OVERLOADED = frozenset({429, 502, 503, 504})

SYSTEM = (
    "You extract durable facts from memory entries written by software agents and their "
    "users. Extract only what the text asserts; never infer, never guess, never add facts "
    "that are not stated. Each fact has: entry_id (the entry it comes from), kind (DECISION "
    "a choice made; RULE an always/never/must policy; STATE how something currently is; "
    "PREFERENCE a preferred way; REFERENCE where something lives: path, URL, document; "
    "RESIDUAL a known remaining risk; EVENT something that happened at a time), entity "
    "(lowercase-hyphenated), attribute (lowercase snake_case), value (short), quote (the "
    "exact words of the entry that assert it, copied verbatim) and valid_from (YYYY-MM-DD "
    "for a dated EVENT, else null). Questions, plans, hedges, greetings and progress notes "
    "yield no facts. Answer with JSON only.")
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"facts": {"type": "array", "items": {
        "type": "object",
        "properties": {
            "entry_id": {"type": "string"}, "kind": {"type": "string", "enum": list(KINDS)},
            "entity": {"type": "string"}, "attribute": {"type": "string"},
            "value": {"type": "string"}, "quote": {"type": "string"},
            "valid_from": {"type": ["string", "null"]}},
        "required": ["entry_id", "kind", "entity", "attribute", "value", "quote"]}}},
    "required": ["facts"],
}


class OpenAIExtractor:
    name = "openai"

    def __init__(self, base_url: str, model: str, api_key: str, timeout_s: float,
                 retries: int, response_format: str = "json_schema") -> None:
        self.model = model
        # json_schema (OpenAI, vLLM) or json_object + schema (llama.cpp's
        # server); a server that rejects json_schema is switched once.
        self.response_format = response_format
        self._url = base_url.rstrip("/") + "/v1/chat/completions"
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._timeout = timeout_s
        self._retries = retries

    def _request(self, entries: list[EntryText]) -> dict[str, Any]:
        listing = "\n".join(f"[{e.id}] {e.text}" for e in entries)
        return {
            "model": self.model, "temperature": 0, "max_tokens": 1024 + 256 * len(entries),
            "messages": [{"role": "system", "content": SYSTEM},
                         {"role": "user", "content": f"Entries:\n{listing}"}],
            "response_format": (
                {"type": "json_schema", "json_schema": {"name": "facts", "schema": SCHEMA}}
                if self.response_format == "json_schema"
                else {"type": "json_object", "schema": SCHEMA}),
        }

    async def extract(self, entries: list[EntryText]) -> list[Candidate]:
        """One call plus `retries`; a switch of response format is not a retry.
        A server that stays unreachable or overloaded raises
        ExtractorUnavailable (the pass stops); any other failure is the
        batch's (ExtractionFailed: the pass splits it)."""
        last, attempt, down = "", 0, False
        while attempt <= self._retries:
            try:
                async with httpx.AsyncClient(timeout=self._timeout) as http:
                    reply = await http.post(self._url, json=self._request(entries),
                                            headers=self._headers)
                if (reply.status_code >= 400 and self.response_format == "json_schema"
                        and "response_format" in reply.text):
                    self.response_format = "json_object"
                    continue
                reply.raise_for_status()
                content = reply.json()["choices"][0]["message"]["content"]
                return self._candidates(json.loads(content), entries)
            except (httpx.HTTPError, KeyError, IndexError, ValueError, TypeError) as exc:
                last = f"{type(exc).__name__}: {str(exc)[:200]}"
                down = _server_down(exc)
                attempt += 1
                if attempt <= self._retries:
                    await asyncio.sleep(min(0.5 * 2**attempt, 4.0))
        if down:
            raise ExtractorUnavailable(
                f"the extractor's server did not answer after {attempt} attempts ({last}); "
                "the pass stopped and its entries stay pending")
        raise ExtractionFailed(f"extractor failed after {attempt} attempts: {last}")

    def _candidates(self, payload: dict[str, Any], entries: list[EntryText]) -> list[Candidate]:
        known = {e.id for e in entries}
        out = []
        for f in payload["facts"]:
            if f.get("entry_id") not in known or f.get("kind") not in KINDS:
                continue  # a fact about no entry of this batch is not evidence of anything
            out.append(Candidate(
                f["entry_id"], f["kind"], str(f["entity"]), str(f["attribute"]),
                str(f["value"]), str(f["quote"]), f.get("valid_from") or None))
        return out


def _server_down(exc: Exception) -> bool:
    """Refused or timed-out connections and overload answers; a read timeout
    is not among them (a model rambling on one batch is that batch's fault)."""
    if isinstance(exc, httpx.HTTPStatusError):
        return exc.response.status_code in OVERLOADED
    return isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout))
