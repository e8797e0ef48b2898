"""Turn a document into searchable chunks. The verbatim source is kept
separately; chunks are for finding it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

_BLANK = re.compile(r"\n\s*\n")


@dataclass(frozen=True)
class Chunk:
    ordinal: int
    start: int
    text: str


class _TextOf(HTMLParser):
    _SKIP = {"script", "style", "head"}
    _BLOCK = {"p", "div", "br", "li", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "pre", "section"}

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in self._SKIP:
            self._skipping += 1
        elif tag in self._BLOCK:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP and self._skipping:
            self._skipping -= 1

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self.parts.append(data)


def plain_text(content: str, fmt: str) -> str:
    if fmt != "html":
        return content
    parser = _TextOf()
    parser.feed(content)
    return re.sub(r"[ \t]+", " ", "".join(parser.parts))


def chunk(text: str, size: int = 800, overlap: int = 120) -> list[Chunk]:
    """Paragraph-aware packing into ~`size`-character chunks; a paragraph
    longer than `size` is split with `overlap` characters repeated."""
    chunks: list[Chunk] = []
    buf, buf_start = "", 0
    for match in re.finditer(r"(?s)(.+?)(?:\n\s*\n|\Z)", text):
        para, start = match.group(1).strip(), match.start(1)
        if not para:
            continue
        if buf and len(buf) + len(para) + 2 > size:
            chunks.append(Chunk(len(chunks), buf_start, buf))
            buf = ""
        if not buf:
            buf_start = start
        buf = f"{buf}\n\n{para}" if buf else para
        while len(buf) > size:
            chunks.append(Chunk(len(chunks), buf_start, buf[:size]))
            buf, buf_start = buf[size - overlap:], buf_start + size - overlap
    if buf:
        chunks.append(Chunk(len(chunks), buf_start, buf))
    return chunks
