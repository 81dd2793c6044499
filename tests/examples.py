"""Hypothesis' profiles: ``ci``, the default, and ``thorough`` (``--hypothesis-profile=thorough``), ten
times the examples of every property test, for a release or after changing what one of them tests.

Neither has a deadline: on a loaded machine any example can be slow, which says nothing about the code.
"""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("ci", deadline=None, print_blob=True)
settings.register_profile("thorough", settings.get_profile("ci"), max_examples=1000)


def examples(count: int) -> int:
    """A property test's ``count`` of examples, or ten times as many with the thorough profile."""
    return count * 10 if settings.get_current_profile_name() == "thorough" else count
