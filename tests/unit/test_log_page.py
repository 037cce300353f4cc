"""Paging the log (projections/board.py `log_page`): the lines before a version, per role."""

from __future__ import annotations

import msgspec
import pytest

from projections.board import log_page


class Line(msgspec.Struct, frozen=True):
    """Any log line will do: `log_page` reads only `version` and `shown`."""

    version: int
    hidden: bool = False

    def shown(self, secrets: bool) -> bool:
        return secrets or not self.hidden


LINES = [Line(v, hidden=v % 4 == 0) for v in range(1, 41)] + [Line(40), Line(41)]


def versions(page: list[Line]) -> list[int]:
    return [line.version for line in page]


def test_a_page_holds_the_last_lines_before_the_version_and_says_there_are_more() -> None:
    page = log_page(LINES, "gm", before=20, limit=5)
    assert versions(page.lines) == [15, 16, 17, 18, 19] and page.more


def test_the_first_page_says_there_is_nothing_before_it() -> None:
    page = log_page(LINES, "gm", before=4, limit=5)
    assert versions(page.lines) == [1, 2, 3] and not page.more
    assert log_page(LINES, "gm", before=1, limit=5) == ([], False)


def test_a_public_page_skips_hidden_lines_and_still_fills_up() -> None:
    page = log_page(LINES, "public", before=20, limit=5)
    assert versions(page.lines) == [13, 14, 15, 17, 18, 19][-5:] and page.more
    assert not any(line.hidden for line in log_page(LINES, "public", 100, 100).lines)


def test_a_page_never_splits_the_lines_of_one_version() -> None:
    assert versions(log_page(LINES, "gm", before=41, limit=1).lines) == [40, 40]
    assert versions(log_page(LINES, "gm", before=42, limit=3).lines) == [40, 40, 41]


@pytest.mark.parametrize("role", ["gm", "public"])
def test_walking_back_page_by_page_gives_every_line_once(role: str) -> None:
    seen: list[Line] = []
    before, more = 10**9, True
    while more:
        page = log_page(LINES, role, before, 4)
        seen[:0] = page.lines
        more = page.more
        before = page.lines[0].version if page.lines else before
    expected = [line for line in LINES if role == "gm" or not line.hidden]
    assert seen == expected
