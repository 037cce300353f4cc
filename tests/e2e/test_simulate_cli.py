"""`fracas simulate` (CONTRACT section 2): the d20-na 1v1 resolver from the command line."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from domain.rules.d20_na.resolver import simulate
from tests.e2e.conftest import Api, free_port

DUEL = ("--ruleset", "d20-na", "milicien", "fangeux", "--fights", "200", "--seed", "7")


def fracas(*args: str, database_url: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "TEST_DATABASE_URL")}
    env["PYTHONIOENCODING"] = "utf-8"
    if database_url is not None:
        env["DATABASE_URL"] = database_url
    return subprocess.run(
        [sys.executable, "-m", "server.cli.main", "simulate", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        env=env,
    )


def rate(out: str, name: str) -> tuple[float, float, float]:
    """The win rate of `name` and its 95% interval, in percent."""
    found = re.search(rf"{name} wins\s+([\d.]+)%\s+\(95% CI\s+([\d.]+)%\s+-\s+([\d.]+)%\)", out)
    assert found, out
    low_high = float(found[2]), float(found[3])
    return float(found[1]), *low_high


def test_simulate_prints_win_rates_rounds_damage_and_a_narrated_fight() -> None:
    done = fracas(*DUEL)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    m, m_low, m_high = rate(out, "Milicien")
    f, f_low, f_high = rate(out, "Fangeux")
    assert m_low <= m <= m_high and f_low <= f <= f_high
    assert m + f == pytest.approx(100, abs=0.2)  # no draws between these two
    # The Fangeux strikes first, harder and more often (ATT 12 against PAR 9).
    assert 10 < m < 45 < 55 < f < 90, out
    rounds = re.search(r"rounds: mean ([\d.]+), sd ([\d.]+)", out)
    assert rounds and 2 < float(rounds[1]) < 15 and float(rounds[2]) > 0
    damage = re.search(r"damage per hit: mean ([\d.]+)", out)
    assert damage and 10 < float(damage[1]) < 30
    assert "Round 1" in out and "Fangeux attacks Milicien" in out
    assert "One fight (not saved):" in out and "encounter" not in out  # nothing was stored
    assert re.search(r"(Milicien|Fangeux) is out of the fight: down", out)
    assert re.search(r"(Milicien|Fangeux) wins after \d+ round", out)
    assert "\r" not in out and "[#" not in out  # no progress bar on stdout


def test_simulate_is_reproducible_with_a_seed_and_varies_with_it() -> None:
    first, again, other = fracas(*DUEL), fracas(*DUEL), fracas(*DUEL[:-1], "8")
    assert first.returncode == again.returncode == other.returncode == 0
    assert first.stdout == again.stdout
    assert first.stdout != other.stdout


def test_progress_does_not_change_the_numbers() -> None:
    names = ("Milicien", "Fangeux")
    seen: list[int] = []
    ours = simulate("milicien", "fangeux", 50, "7", {}, names, seen.append)
    theirs = simulate("milicien", "fangeux", 50, seed=7, names=names)
    assert seen == list(range(1, 51))
    assert ours.wins == theirs.wins and ours.rates == theirs.rates
    assert (ours.mean_rounds, ours.sd_rounds) == (theirs.mean_rounds, theirs.sd_rounds)
    assert ours.mean_damage_per_hit == theirs.mean_damage_per_hit
    assert ours.example is not None and theirs.example is not None
    assert ours.example.events == theirs.example.events


def test_simulate_narrates_in_french() -> None:
    done = fracas(*DUEL, "--lang", "fr")
    assert done.returncode == 0, done.stderr
    assert "Milicien gagne" in done.stdout and "IC 95 %" in done.stdout
    assert "Un combat (non enregistré) :" in done.stdout
    assert "Fangeux attaque Milicien :" in done.stdout
    assert re.search(r"(Milicien|Fangeux) l'emporte après \d+ round", done.stdout)
    assert "hors de combat" in done.stdout


def test_simulate_reads_sheets_from_json_files(tmp_path: Path) -> None:
    brute = tmp_path / "brute.json"
    brute.write_text(json.dumps({"preset": "fangeux", "FOR": 12, "name": "Brute"}))
    weakling = tmp_path / "weakling.json"
    weakling.write_text(
        json.dumps(
            {
                "STR": 2, "END": 1, "HAB": 5, "ATT": 4, "PAR": 3, "NA": 1, "hp": 20,
                "weapons": [{"name": "stick", "dmg": 1}],
            }
        )
    )  # fmt: skip
    done = fracas(
        "--ruleset", "d20-na", str(brute), str(weakling), "--fights", "100", "--seed", "1"
    )
    assert done.returncode == 0, done.stderr
    assert rate(done.stdout, "Brute")[0] > 90 and "weakling wins" in done.stdout


def test_the_progress_bar_goes_to_stderr_only() -> None:
    done = fracas(*DUEL, "--progress", "always")
    assert done.returncode == 0
    # (text mode reads the bar's carriage returns as newlines); then the run's speed
    *bar, speed = done.stderr.rstrip().splitlines()
    assert bar[-1].endswith("[" + "#" * 30 + "] 200/200"), done.stderr
    assert re.fullmatch(r"200 fights in \d+\.\d\d s: \d+ fights/s \(\d+ jobs?\)", speed)
    assert done.stdout == fracas(*DUEL).stdout


def test_the_fights_spread_over_jobs_print_the_same_report() -> None:
    one, two = fracas(*DUEL, "--jobs", "1"), fracas(*DUEL, "--jobs", "2")
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr
    assert one.stdout == two.stdout
    assert re.search(r"200 fights in .* fights/s \(1 job\)$", one.stderr.strip())
    assert re.search(r"200 fights in .* fights/s \(2 jobs\)$", two.stderr.strip())
    assert "fights/s" not in one.stdout  # stdout stays the same for the same seed


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--ruleset", "plain-d100", "milicien", "fangeux"), "invalid choice: 'plain-d100'"),
        (("--ruleset", "chess", "milicien", "fangeux"), "invalid choice: 'chess'"),
        (("milicien", "nobody"), "not a preset"),
        (("milicien", "fangeux", "--setting", "bogus=1"), "unknown setting"),
        (("milicien", "fangeux", "--jobs", "0"), "not a number of jobs"),
    ],
)
def test_what_the_resolver_cannot_do_exits_2_with_a_reason(
    args: tuple[str, ...], says: str
) -> None:
    done = fracas(*args, "--fights", "3")
    assert done.returncode == 2, done.stdout
    assert says in done.stderr and done.stdout == ""


def test_an_invalid_sheet_names_its_rule(tmp_path: Path) -> None:
    archer = tmp_path / "archer.json"
    bow = {"name": "bow", "kind": "shoot", "dmg": 8, "two_handed": True}
    archer.write_text(
        json.dumps({"preset": "milicien", "weapons": [bow], "shield": {"name": "s", "parry": 3}})
    )
    done = fracas("milicien", str(archer), "--fights", "3")
    assert done.returncode == 2 and "NA-19" in done.stderr


def test_save_stores_the_narrated_fight_as_an_encounter_that_verifies(
    database_url: str, api: Api
) -> None:
    done = fracas(*DUEL, "--save", database_url=database_url)
    assert done.returncode == 0, done.stderr
    eid = re.search(r"saved as encounter ([0-9a-f-]{36})", done.stdout)
    assert eid, done.stdout
    told = re.search(r"One fight \(encounter ([0-9a-f-]{36})\)", done.stdout)
    assert told and told[1] == eid[1]
    board_link = re.search(rf"board:\s+http://\S+/e/{eid[1]}#token=(\S+)", done.stdout)
    assert board_link, done.stdout

    env = {**os.environ, "DATABASE_URL": database_url}
    env.pop("TEST_DATABASE_URL", None)
    verified = subprocess.run(
        [sys.executable, "-m", "server.cli.main", "verify", eid[1], "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    report = json.loads(verified.stdout)
    assert report["chain"] and report["dice"] and report["rolls_checked"] > 0
    assert report["open"] is False  # a saved fight is closed, its seed revealed

    # The server shows it like any other encounter: closed, the winner named.
    board = api.http.get(
        f"/api/encounters/{eid[1]}", headers={"Authorization": f"Bearer {board_link[1]}"}
    ).json()
    assert board["encounter"]["ruleset"] == "d20-na" and board["encounter"]["closed"]
    winner = re.search(r"(Milicien|Fangeux) wins after", done.stdout)
    assert winner
    assert board["winner"] is not None
    assert "main" in board["dice"]["revealed"]

    again = fracas(*DUEL, "--save", database_url=database_url)
    assert again.returncode == 0, again.stderr
    assert f"already saved as encounter {eid[1]}" in again.stdout


def test_save_with_the_database_out_of_reach_still_reports_the_fight_not_saved() -> None:
    port = free_port()
    done = fracas(*DUEL, "--save", database_url=f"postgresql://u:hunter2@127.0.0.1:{port}/x")
    assert done.returncode == 2
    assert "One fight (not saved):" in done.stdout and "saved as" not in done.stdout
    assert done.stderr.strip().splitlines()[-1] == (
        f"fracas simulate: cannot reach PostgreSQL at 127.0.0.1:{port}: connection refused"
    )
