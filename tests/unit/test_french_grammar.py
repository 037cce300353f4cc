"""The French the narrators write is French (issue 22 finding 9): "de" elides before a
vowel, a count agrees with its noun, a condition ends "à la fin de son tour", and the
Markdown standings heading has no space inside its asterisks."""

from __future__ import annotations

import re

from projections.export import markdown, text
from projections.log import Narrator
from projections.words.conditions import until_words
from projections.words.french import de, plural
from tests.unit.test_golden_logs import ranks_j1_j2, tcs_exchange


def test_de_elides_before_a_vowel_and_only_there() -> None:
    assert de("Aldric") == "d'Aldric"
    assert de("Éloïse") == "d'Éloïse"
    assert de("Bran") == "de Bran"


def test_a_turn_heading_elides_tour_d_aldric() -> None:
    assert Narrator().turn("Aldric", "")[1] == "Tour d'Aldric"
    assert Narrator().turn("Bran", "")[1] == "Tour de Bran"


def test_a_count_of_one_is_singular_in_french() -> None:
    assert plural(1, "restant") == "1 restant"
    assert plural(0, "restant") == "0 restant"
    assert plural(6, "restant") == "6 restants"


def test_a_condition_of_several_turns_ends_a_la_fin_de_son_tour() -> None:
    assert until_words(2, "end_of_turn")[1] == "pendant 2 tours (finit à la fin de son tour)"
    assert until_words(3, "start_of_turn")[1] == "pendant 3 tours (finit au début de son tour)"
    assert "au fin" not in until_words(2, "end_of_turn")[1]


def test_the_french_markdown_standings_heading_is_bold_not_literal_asterisks() -> None:
    page = markdown(tcs_exchange(), "public", lang="fr")
    assert "**Où en est le combat**" in page
    assert not re.search(r"\*\*[^*\n]* \*\*", page), "a space before closing ** shows them"
    assert "Où en est le combat :" in text(tcs_exchange(), "public", lang="fr")
    assert "Where the fight stands:" in text(tcs_exchange(), "public", lang="en")


def test_the_luck_line_agrees_with_its_count_in_both_languages() -> None:
    fr = text(ranks_j1_j2(), "public", lang="fr")
    en = text(ranks_j1_j2(), "public", lang="en")
    assert re.search(r"\((\d+) restants?\)", fr)
    for n, word in re.findall(r"\((\d+) (restants?)\)", fr):
        assert (word == "restant") == (int(n) < 2)
    for n, word in re.findall(r"\((\d+) (uses?) left\)", en):
        assert (word == "use") == (int(n) == 1)
