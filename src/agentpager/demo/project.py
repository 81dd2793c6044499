"""The demo's small project: a web shop's sources, a README that says what to try, and 250 fixtures."""

from __future__ import annotations

import json
import random
from pathlib import Path

README = """\
# Demo shop (made by `agentpager demo`)

A web shop whose nightly export failed. An agent was asked why; its session is in
`sessions/claude-code.jsonl`. Everything here was generated: change anything you like.

What to try in agentpager:

- `logs/app.log` is about 200 MB. Scroll, `:` to jump to line 500000, `/` to search
  `charge failed`: the panel on the right shows the exact `read_file` call an agent would make
  for the lines on screen, and its exact output.
- `fixtures/orders/` holds 180 files: the tree marks it with a warning sign, because
  `list_files` warns past 20 files instead of listing them, and shows it 100 entries at a time.
- `docs/incident-report.docx` and `docs/architecture.pdf` are read as the Markdown an agent
  gets from them.
- `t` shows the agent's session: each Read replayed against the files now. One says
  `differs`: the agent edited `src/shop/config.py` after reading it.
- Change the profile in the panel (qq, forge, crush, vault, claude-code, codex) to see how
  each agent's tools cut the same file.
"""

CONFIG_BEFORE = '''\
"""Settings of the shop, read once at start-up."""

import os

DATABASE_URL = os.environ.get("SHOP_DATABASE_URL", "postgresql://shop@localhost/shop")
PAYMENT_PROVIDER = "https://pay.example.test/v2"
PAYMENT_TIMEOUT_S = 5.0
PAYMENT_RETRIES = 3
EXPORT_BATCH_ROWS = 560
EXPORT_SCHEDULE = "0 2 * * *"  # nightly, 02:00 UTC
'''

TIMEOUT_BEFORE = "PAYMENT_TIMEOUT_S = 5.0\n"
TIMEOUT_AFTER = "PAYMENT_TIMEOUT_S = 30.0  # the provider answers in up to 20 s under load\n"

PAYMENTS = '''\
"""Charging orders through the payment provider."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import requests

from shop.config import PAYMENT_PROVIDER, PAYMENT_RETRIES, PAYMENT_TIMEOUT_S

log = logging.getLogger("shop.payments")


class PaymentFailed(Exception):
    """The provider did not take the charge after every retry."""


@dataclass
class Charge:
    order: int
    cents: int
    currency: str = "EUR"


class PaymentClient:
    def __init__(self, session: requests.Session | None = None) -> None:
        self.session = session or requests.Session()

    def charge(self, charge: Charge) -> str:
        """Charge the order; the provider's transaction id."""
        url = f"{PAYMENT_PROVIDER}/charges"
        body = {"order": charge.order, "amount": charge.cents, "currency": charge.currency}
        for attempt in range(1, PAYMENT_RETRIES + 1):
            try:
                response = self.session.post(url, json=body, timeout=PAYMENT_TIMEOUT_S)
                response.raise_for_status()
                return response.json()["transaction"]
            except requests.Timeout:
                log.warning("charge slow order=%s attempt=%s/%s retrying", charge.order, attempt, PAYMENT_RETRIES)
        log.error("charge failed order=%s attempt=%s/%s", charge.order, PAYMENT_RETRIES, PAYMENT_RETRIES)
        raise PaymentFailed(charge.order)
'''

ORDERS = '''\
"""Orders: what a customer bought, and what the export sends on."""

from __future__ import annotations

from dataclasses import dataclass, field

from shop.payments import Charge, PaymentClient


@dataclass
class Line:
    sku: str
    quantity: int
    cents: int

    @property
    def total(self) -> int:
        return self.quantity * self.cents


@dataclass
class Order:
    number: int
    customer: int
    lines: list[Line] = field(default_factory=list)
    paid: bool = False

    @property
    def total(self) -> int:
        return sum(line.total for line in self.lines)


def checkout(order: Order, payments: PaymentClient) -> str:
    """Charge the order and mark it paid."""
    transaction = payments.charge(Charge(order.number, order.total))
    order.paid = True
    return transaction
'''

EXPORT = '''\
"""The nightly export: paid orders, in batches, to the warehouse."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator

from shop.config import EXPORT_BATCH_ROWS
from shop.orders import Order

log = logging.getLogger("shop.export")


def batches(orders: Iterable[Order], size: int = EXPORT_BATCH_ROWS) -> Iterator[list[Order]]:
    batch: list[Order] = []
    for order in orders:
        if order.paid:
            batch.append(order)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def run(orders: Iterable[Order]) -> int:
    sent = 0
    for batch in batches(orders):
        log.debug("export batch rows=%d", len(batch))
        sent += len(batch)
    return sent
'''

GATEWAY = """\
// The gateway in front of the shop: it checks tokens and forwards to the Python services.
package main

import (
\t"log"
\t"net/http"
\t"net/http/httputil"
\t"net/url"
)

type Gateway struct {
\tshop *httputil.ReverseProxy
}

func NewGateway(target string) (*Gateway, error) {
\tu, err := url.Parse(target)
\tif err != nil {
\t\treturn nil, err
\t}
\treturn &Gateway{shop: httputil.NewSingleHostReverseProxy(u)}, nil
}

func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
\tif r.Header.Get("Authorization") == "" {
\t\thttp.Error(w, "missing token", http.StatusUnauthorized)
\t\treturn
\t}
\tg.shop.ServeHTTP(w, r)
}

func main() {
\tg, err := NewGateway("http://127.0.0.1:8000")
\tif err != nil {
\t\tlog.Fatal(err)
\t}
\tlog.Fatal(http.ListenAndServe(":8080", g))
}
"""

SOURCES = {
    "README.md": README,
    "src/shop/__init__.py": '"""The demo shop."""\n',
    "src/shop/config.py": CONFIG_BEFORE,
    "src/shop/payments.py": PAYMENTS,
    "src/shop/orders.py": ORDERS,
    "src/shop/export.py": EXPORT,
    "src/gateway/main.go": GATEWAY,
}

FIXTURES = {"orders": 180, "customers": 50, "products": 20}
"""Fixture folders and how many files each holds: 250 in all."""


def write_sources(root: Path) -> None:
    for name, text in SOURCES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def write_fixtures(root: Path, seed: int = 5) -> int:
    """JSON fixtures in ``fixtures/<kind>/``; how many files were written."""
    rng = random.Random(seed)
    written = 0
    for kind, count in FIXTURES.items():
        folder = root / "fixtures" / kind
        folder.mkdir(parents=True, exist_ok=True)
        for n in range(1, count + 1):
            if kind == "orders":
                record: dict[str, object] = {
                    "order": 4000 + n,
                    "customer": rng.randint(1, 50),
                    "lines": [
                        {
                            "sku": f"SKU-{rng.randint(1000, 9999)}",
                            "quantity": rng.randint(1, 4),
                            "cents": rng.randint(199, 9999),
                        }
                        for _ in range(rng.randint(1, 4))
                    ],
                    "paid": rng.random() < 0.9,
                }
            elif kind == "customers":
                record = {"customer": n, "name": f"Customer {n}", "country": rng.choice(["DE", "FR", "NL", "PL", "SE"])}
            else:
                record = {"sku": f"SKU-{1000 + n * 37}", "name": f"Product {n}", "cents": rng.randint(199, 9999)}
            (folder / f"{kind[:-1]}-{n:04d}.json").write_text(json.dumps(record, indent=2) + "\n")
            written += 1
    return written
