"""PDF text extraction (pypdf, pure Python): the text layer, page by page.

Scanned PDFs have no text layer; OCR is not built, and such a file is
refused with an error that says so rather than stored empty."""

from __future__ import annotations

import io
import logging

from engram_kit.errors import InvalidArgument

log = logging.getLogger(__name__)

MAGIC = b"%PDF-"


def pdf_text(data: bytes, max_pages: int) -> str:
    """The text of every page, pages separated by a blank line."""
    from pypdf import PdfReader  # imported on use: importing the module stays cheap
    from pypdf.errors import PyPdfError

    if not data.startswith(MAGIC):
        raise InvalidArgument("format is pdf but the data is not a PDF file (no %PDF- header)",
                              field="content")
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise InvalidArgument("the PDF is encrypted; send a decrypted copy", field="content")
        if len(reader.pages) > max_pages:
            raise InvalidArgument(f"the PDF has {len(reader.pages)} pages; the limit is "
                                  f"{max_pages}", field="content")
        pages = [(page.extract_text() or "").strip() for page in reader.pages]
    except InvalidArgument:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
        # Untrusted input: whatever the parser trips on is a bad file, not a crash.
        log.info("unreadable pdf", extra={"fields": {"error": repr(exc)}})
        raise InvalidArgument("the PDF could not be read (damaged or unsupported)",
                              field="content") from None
    text = "\n\n".join(p for p in pages if p)
    if not text.strip():
        raise InvalidArgument("the PDF has no text layer (a scan?); OCR is not built, so there "
                              "is nothing to index", field="content")
    return text
