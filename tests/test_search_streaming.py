"""A search over every session while their calls are read: the sessions read already are looked in
first, then each batch as soon as it is read; in the end the hits are in the order of a search of
the whole index, filters and ``read:`` too; a cancel stops the reading and the search."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path

import pytest
from test_sessions_index import CWD, call, prompt, result, write_log

from agentpager.sessions_index import updating
from agentpager.sessions_index.calls import Task
from agentpager.sessions_index.listing import list_sessions
from agentpager.sessions_index.search import (
    Filters,
    Hit,
    Looked,
    ReadCall,
    first_prompts,
    found_while_reading,
    newest_session_first,
    parse_query,
    reads_of,
    search,
)
from agentpager.sessions_index.store import IndexStore

Look = Callable[[Filters], Iterable[Hit | ReadCall]]


def session(home: Path, n: int) -> None:
    """Session ``s{n}``, of day ``n``: a prompt, a Grep and a Read with the needle."""
    write_log(
        home,
        f"s{n}",
        [
            prompt(f"find the needle {n}", n),
            call("a", "Grep", {"pattern": "needle", "path": "src"}, 100, n),
            result("a", "src/app.py", n=n),
            call("b", "Read", {"file_path": f"{CWD}/src/app.py"}, 200, n),
            result("b", "    1→needle", n=n),
        ],
    )


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sessions read, in order; each read a batch of its own."""
    monkeypatch.setattr(updating, "CHUNK_BYTES", 1)
    monkeypatch.setattr(updating, "WRITE_SECONDS", 0)
    read_sessions = updating.read_sessions
    done: list[str] = []

    def counted(tasks: list[Task]):  # noqa: ANN202
        done.extend(Path(task.path).stem for task in tasks)
        return read_sessions(tasks)

    monkeypatch.setattr(updating, "read_sessions", counted)
    return done


def stem(step: Hit | ReadCall | Looked) -> str | list[str]:
    if isinstance(step, Looked):
        return [Path(info.path).stem for info in step.read]
    return Path(step.session.path).stem


def test_the_first_hits_come_before_the_other_sessions_are_read(tmp_path: Path, reads: list[str]) -> None:
    for n in range(1, 5):
        session(tmp_path, n)
    store, home = IndexStore(), str(tmp_path)
    list_sessions(home, store)
    steps = found_while_reading(store, home, partial(search, store, home, "needle"), workers=0)
    first = next(step for step in steps if not isinstance(step, Looked))
    assert (stem(first), reads) == ("s4", ["s4"]), "the newest session is read, and its hits come at once"
    rest = [stem(step) for step in steps]
    assert rest == ["s4", "s4", ["s4"], "s3", "s3", "s3", ["s3"], "s2", "s2", "s2", ["s2"], "s1", "s1", "s1", ["s1"]]
    assert reads == ["s4", "s3", "s2", "s1"]


LOOKS: dict[str, tuple[Callable[[IndexStore, str], Look], Filters]] = {
    "text": (lambda store, home: partial(search, store, home, "needle"), Filters()),
    "tool": (lambda store, home: partial(search, store, home, "needle"), Filters(tool="Grep")),
    "since": (lambda store, home: partial(search, store, home, "needle"), Filters(since="2026-01-02T00:00:00")),
    "agent": (lambda store, home: partial(search, store, home, "needle"), Filters(agent="codex")),
    "read": (lambda store, home: partial(reads_of, store, home, f"{CWD}/src/app.py"), Filters()),
}


@pytest.mark.parametrize("name", LOOKS)
def test_read_sessions_come_first_and_the_end_is_in_the_order_of_a_search(
    tmp_path: Path, reads: list[str], name: str
) -> None:
    """Sessions 1 and 2 are read before, 3 and 4 (newer) while searching: found 2, 1, 4, 3; then put
    in the order a search of the whole index gives."""
    store, home = IndexStore(), str(tmp_path)
    session(tmp_path, 1)
    session(tmp_path, 2)
    list_sessions(home, store)
    for _ in updating.update_calls(home, store, workers=0):
        pass
    session(tmp_path, 3)
    session(tmp_path, 4)
    list_sessions(home, store)
    reads.clear()
    make, filters = LOOKS[name]
    look = make(store, home)
    steps = list(found_while_reading(store, home, look, filters, workers=0))
    assert reads == ["s4", "s3"]
    assert [stem(step) for step in steps if isinstance(step, Looked)] == [[], ["s4"], ["s3"]]
    found = [step for step in steps if not isinstance(step, Looked)]
    expected = list(look(filters))  # every session read now
    assert newest_session_first(store, home, found) == expected
    sessions = list(dict.fromkeys(stem(step) for step in found))
    assert sessions == [s for s in ["s2", "s1", "s4", "s3"] if s in {stem(item) for item in expected}]


def test_a_cancel_stops_the_reading_and_the_search(tmp_path: Path, reads: list[str]) -> None:
    for n in range(1, 5):
        session(tmp_path, n)
    store, home, cancel = IndexStore(), str(tmp_path), threading.Event()
    list_sessions(home, store)
    look = partial(search, store, home, "needle", cancel=cancel)
    steps = found_while_reading(store, home, look, workers=0, cancel=cancel)
    assert stem(next(step for step in steps if not isinstance(step, Looked))) == "s4"
    cancel.set()
    assert {str(stem(step)) for step in steps} <= {"s4", "['s4']"}, "nothing of another session"
    assert reads == ["s4"]


@pytest.mark.parametrize(("typed", "first"), [("since:2026-01-02", ["s4", "s3", "s2"]), ("tool:Grep", [])])
def test_filters_alone_without_a_tool_list_every_session_before_any_is_read(
    tmp_path: Path, reads: list[str], typed: str, first: list[str]
) -> None:
    """Their sessions need no calls read: all come in the first look, before the calls are read (in
    the browser, at once); with a tool, each session comes once its calls are."""
    for n in range(1, 5):
        session(tmp_path, n)
    store, home = IndexStore(), str(tmp_path)
    list_sessions(home, store)
    query = parse_query(typed)
    look = partial(first_prompts, store, home)
    steps = list(found_while_reading(store, home, look, query.filters, workers=0, needs_calls=query.needs_calls))
    before = [stem(step) for step in steps[: steps.index(Looked([]))]]
    assert before == first
    assert reads == ["s4", "s3", "s2", "s1"], "the calls are read all the same"
    found = [step for step in steps if not isinstance(step, Looked)]
    assert newest_session_first(store, home, found) == list(look(query.filters))
