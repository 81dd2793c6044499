"""The demo's big log: an hour of a web shop's log made once, then written again for each next hour.

Writing the same block over and over runs at disk speed (a Python loop over 2 million lines would
take ten times longer). Every line of a block starts with the same date-and-hour placeholder,
replaced per block, so timestamps keep rising through the file. Most lines are short; payment
errors carry their traceback on the line, debug lines dump response bodies of a few KB, and once
few minutes an export batch is logged as one line of about 30 KB (more than an agent's output
guard lets through).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

HOUR = b"YYYY-MM-DDTHH"
FIRST_HOUR = (2026, 11, 20, 0)
BLOCK_BYTES = 4 << 20

_PATHS = ["/api/orders", "/api/orders/{id}", "/api/cart", "/api/products/{id}", "/api/customers/{id}", "/healthz"]
_TRACEBACK = (
    "Traceback (most recent call last):\\n"
    '  File "/srv/shop/src/shop/payments.py", line 41, in charge\\n'
    "    response = self.session.post(url, json=body, timeout=PAYMENT_TIMEOUT_S)\\n"
    '  File "/srv/shop/.venv/lib/python3.12/site-packages/requests/sessions.py", line 637, in post\\n'
    '    return self.request("POST", url, data=data, json=json, **kwargs)\\n'
    '  File "/srv/shop/.venv/lib/python3.12/site-packages/requests/adapters.py", line 713, in send\\n'
    "    raise ReadTimeout(e, request=request)\\n"
    "requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='pay.example.test', port=443): "
    "Read timed out. (read timeout=5.0)"
)


@dataclass
class LogFacts:
    """What the session needs to know about the log it reads: where the payment errors are."""

    size: int = 0
    lines: int = 0
    errors: list[tuple[int, str]] = field(default_factory=list)
    """(line number, text) of the first payment errors, in order."""


def _hour(index: int) -> bytes:
    year, month, day, hour = FIRST_HOUR
    day += (hour + index) // 24
    return b"%04d-%02d-%02dT%02d" % (year, month, day, (hour + index) % 24)


def _block(rng: random.Random) -> tuple[bytes, list[tuple[int, str]]]:
    """An hour of log lines (about BLOCK_BYTES), and its payment errors as (line index, text)."""
    lines: list[str] = []
    errors: list[tuple[int, str]] = []
    size = 0
    millisecond = 0
    items = [
        f'{{"sku":"SKU-{rng.randint(1000, 9999)}","name":"item {n}","cents":{rng.randint(199, 9999)}}}'
        for n in range(300)
    ]
    rows = [
        f'{{"order":{4000 + n},"sku":"SKU-{rng.randint(1000, 9999)}","qty":{rng.randint(1, 5)},"cents":{rng.randint(199, 99999)}}}'
        for n in range(560)
    ]
    while size < BLOCK_BYTES:
        millisecond = min(millisecond + rng.randint(1, 340), 3_599_999)
        stamp = f"YYYY-MM-DDTHH:{millisecond // 60000:02d}:{millisecond // 1000 % 60:02d}.{millisecond % 1000:03d}Z"
        request = f"{rng.getrandbits(48):012x}"
        roll = rng.random()
        if len(lines) % 4000 == 2500:
            line = f"{stamp} DEBUG shop.export     request_id={request} export batch rows=560 body=[{','.join(rows)}]"
        elif roll < 0.004:
            order = rng.randint(1000, 9999)
            line = (
                f"{stamp} ERROR shop.payments   request_id={request} charge failed order={order} attempt=3/3 "
                f'provider=pay.example.test exc_info="{_TRACEBACK}"'
            )
            errors.append((len(lines), line))
        elif roll < 0.03:
            order = rng.randint(1000, 9999)
            line = (
                f"{stamp} WARN  shop.payments   request_id={request} charge slow order={order} "
                f"attempt={rng.randint(1, 2)}/3 waited={rng.uniform(3.5, 5.0):.2f}s retrying"
            )
        elif roll < 0.08:
            body = ",".join(rng.choices(items, k=rng.randint(10, 60)))
            line = f'{stamp} DEBUG shop.cart       request_id={request} response body={{"items":[{body}]}}'
        else:
            path = rng.choice(_PATHS).format(id=rng.randint(1, 9999))
            method = "POST" if path in ("/api/orders", "/api/cart") and rng.random() < 0.4 else "GET"
            status = rng.choices((200, 201, 304, 404, 500), (80, 6, 8, 5, 1))[0]
            line = (
                f"{stamp} INFO  shop.http       request_id={request} {method} {path} {status} "
                f"{rng.randint(2, 180)}ms user={rng.randint(1, 5000)}"
            )
        lines.append(line)
        size += len(line) + 1
    return ("\n".join(lines) + "\n").encode(), errors


def write_log(path: Path, size: int, seed: int = 11) -> LogFacts:
    """About ``size`` bytes of log (whole lines, never more than ``size``) at ``path``."""
    template, block_errors = _block(random.Random(seed))
    lines_per_block = template.count(b"\n")
    facts = LogFacts()
    with open(path, "wb") as out:
        index = 0
        while facts.size < size:
            block = template.replace(HOUR, _hour(index))
            if facts.size + len(block) > size:
                block = block[: block.rfind(b"\n", 0, size - facts.size) + 1]
                if not block:
                    break
            out.write(block)
            written = block.count(b"\n") if len(block) < len(template) else lines_per_block
            for line_index, text in block_errors:
                if line_index < written and len(facts.errors) < 50:
                    facts.errors.append(
                        (facts.lines + line_index + 1, text.replace("YYYY-MM-DDTHH", _hour(index).decode()))
                    )
            facts.size += len(block)
            facts.lines += written
            index += 1
    return facts
