"""PDF, DOCX, PPTX and XLSX to Markdown with markitdown, imported only when a document is read.

Importing markitdown costs about half a second (magika, onnxruntime and pandas load eagerly), so
nothing on the text path may import this module's converter.
"""

from __future__ import annotations

import functools
from typing import Any


class ConversionError(Exception):
    """A document could not be converted; ``reason`` is short human text for the tool message."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@functools.cache
def _markitdown() -> Any:
    from markitdown import MarkItDown

    return MarkItDown()


def convert_document(path: str, document_type: str) -> str:
    """The Markdown markitdown 0.1.8 gives for the document at ``path``."""
    from markitdown import MarkItDownException, UnsupportedFormatException

    try:
        return _markitdown().convert_local(path, file_extension="." + document_type).markdown
    except UnsupportedFormatException:
        raise ConversionError(f"the {document_type.upper()} format is not supported") from None
    except MarkItDownException as error:
        raise ConversionError(_reason(document_type, _root_cause(error))) from None
    except Exception as error:  # a converter library failing on a damaged file
        raise ConversionError(_reason(document_type, error)) from None


def _root_cause(error: BaseException) -> BaseException:
    """The converter's own exception inside markitdown's FileConversionException."""
    for attempt in getattr(error, "attempts", None) or ():
        if attempt.exc_info and attempt.exc_info[1] is not None:
            return attempt.exc_info[1]
    return error


def _reason(document_type: str, error: BaseException) -> str:
    name = type(error).__name__
    detail = " ".join(str(error).split())
    if "password" in name.lower() or "encrypt" in (name + detail).lower():
        return f"the {document_type.upper()} is encrypted"
    if len(detail) > 120:
        detail = detail[:117] + "..."
    cause = f"{name}: {detail}" if detail else name
    return f"the {document_type.upper()} is damaged or unreadable ({cause})"
