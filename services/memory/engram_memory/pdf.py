"""PDF text extraction (pypdf, pure Python): the text layer, page by page.

Scanned PDFs have no text layer; OCR is not built, and such a file is
refused with an error that says so rather than stored empty."""

from __future__ import annotations

import io
import logging
from typing import Any

from engram_kit.errors import InvalidArgument

log = logging.getLogger(__name__)

MAGIC = b"%PDF-"


def pdf_text(data: bytes, max_pages: int, max_chars: int) -> str:
    """The text of every page, pages separated by a blank line. Stops at the
    page whose text passes `max_chars` instead of extracting the rest: pages
    can share one content stream, so a small file can hold a great deal of
    text."""
    from pypdf import PdfReader  # imported on use: importing the module stays cheap
    from pypdf.errors import PyPdfError

    if not data.startswith(MAGIC):
        raise InvalidArgument("format is pdf but the data is not a PDF file (no %PDF- header)",
                              field="content")
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise InvalidArgument("the PDF is encrypted; send a decrypted copy", field="content")
        pages = page_texts(reader, max_pages, max_chars)
    except InvalidArgument:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, IndexError, AttributeError,
            RecursionError) as exc:
        # Untrusted input: whatever the parser trips on is a bad file, not a crash.
        log.info("unreadable pdf", extra={"fields": {"error": repr(exc)}})
        raise InvalidArgument("the PDF could not be read (damaged or unsupported)",
                              field="content") from None
    text = "\n\n".join(pages)
    if not text.strip():
        raise InvalidArgument("the PDF has no text layer (a scan?); OCR is not built, so there "
                              "is nothing to index", field="content")
    return text


def page_texts(reader: Any, max_pages: int, max_chars: int) -> list[str]:
    """The non-empty page texts, refusing the file once they pass `max_chars`."""
    count = len(reader.pages)
    if count > max_pages:
        raise InvalidArgument(f"the PDF has {count} pages; the limit is {max_pages}",
                              field="content")
    pages: list[str] = []
    total = 0
    for number, page in enumerate(reader.pages, start=1):
        text = (page.extract_text() or "").strip()
        if not text:
            continue
        total += len(text) + (2 if pages else 0)
        if total > max_chars:
            raise InvalidArgument(
                f"the PDF's text passes the limit of {max_chars} characters at page {number} "
                f"of {count}; split it into smaller files", field="content")
        pages.append(text)
    return pages
