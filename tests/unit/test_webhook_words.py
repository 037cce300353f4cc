"""What a webhook tells (projections/words/webhooks.py): the story since the last
announcement, worded for a spectator, and a Discord message within 2,000 characters."""

from __future__ import annotations

import pytest

from projections.log import LogLine
from projections.words.webhooks import ELLIPSIS, LIMIT, LINE, content, story, units

LINK = "https://fracas.example/e/0b6c1b51-1f8c-4a57-9f55-7c1a2cb0f1d2"


def line(version: int, text: str, **extra: object) -> LogLine:
    return LogLine(version=version, kind="action_resolved", text=text, text_fr=f"fr {text}",
                   **extra)  # type: ignore[arg-type]  # fmt: skip


def test_the_story_is_what_a_spectator_reads_in_the_webhooks_language() -> None:
    lines = [
        line(3, "Guard: attack on Bandit, hit"),
        line(4, "GM rolls 1d100 (hidden): 42", hidden=True),
        line(5, "Bandit: dodge, failed", undone="misclick"),
        line(6, "Bandit is out of the fight"),
        line(7, "Bandit's turn"),  # the announced event's own line: the text says it
    ]
    assert story(lines, 7, "en") == ["Guard: attack on Bandit, hit", "Bandit is out of the fight"]
    assert story(lines, 7, "fr") == [
        "fr Guard: attack on Bandit, hit",
        "fr Bandit is out of the fight",
    ]


def test_a_short_story_is_told_whole_then_the_turn_then_the_link() -> None:
    said = content(["Guard hits Bandit", "Bandit falls"], "Fight: it is Ayla's turn.", LINK)
    assert said == f"Guard hits Bandit\nBandit falls\nFight: it is Ayla's turn.\n{LINK}"


def test_a_two_thousand_character_dispute_still_fits_with_its_link() -> None:
    reason = "x" * 2000
    text = f"Fight: roll 3 is disputed by Bandit: {reason}"
    said = content(["Guard hits Bandit"] * 3, text, LINK)
    assert units(said) <= LIMIT
    assert said.endswith(f"{ELLIPSIS}\n{LINK}") and said.startswith("Fight: roll 3 is disputed")


def test_the_oldest_lines_give_way_to_the_turn_line_and_the_link() -> None:
    lines = [f"line {n}: " + "y" * 500 for n in range(30)]
    said = content(lines, "Fight: it is Ayla's turn.", LINK)
    assert units(said) <= LIMIT
    parts = said.split("\n")
    assert parts[0] == ELLIPSIS and parts[-2:] == ["Fight: it is Ayla's turn.", LINK]
    assert parts[-3].startswith("line 29: ")  # the latest lines are kept
    assert all(units(p) <= LINE for p in parts)


@pytest.mark.parametrize("char", ["é", "😀"])
def test_the_limit_counts_what_discord_counts(char: str) -> None:
    said = content([char * 400] * 10, "Fight: " + char * 1990, LINK)
    assert units(said) <= LIMIT and said.endswith(LINK)
