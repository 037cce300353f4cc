"""Commit-reveal dice: CONTRACT section 6, checked against an independent reading of it."""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter
from collections.abc import Iterator

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain import dice
from domain.dice import DiceError, DiceExpr, FixedRoller, ManualRoller, SeededRoller

ENCOUNTER = "5f0c8a6e-9d2b-4c71-8e3a-0b6d4f2a9c15"
OTHER_ENCOUNTER = "00000000-0000-4000-8000-000000000000"
SEEDS = [bytes(range(32)), b"\xff" * 32, hashlib.sha256(b"fracas").digest()]
CLIENT_SEEDS = ["", hashlib.sha256(b"players").hexdigest()]


# -- the contract, written again from its text without domain.dice ------------------------


def contract_words(seed: bytes, encounter_id: str, client: str, n: int) -> Iterator[int]:
    """HMAC-SHA256(key=S, msg="<encounter_id>:<client_seed>:<n>:<i>") for i = 0, 1, ...
    concatenated and read as 4-byte big-endian words."""
    i = 0
    while True:
        message = (encounter_id + ":" + client + ":" + str(n) + ":" + str(i)).encode("utf-8")
        block = hmac.digest(seed, message, "sha256")
        for k in range(8):
            yield int.from_bytes(block[4 * k : 4 * k + 4], byteorder="big", signed=False)
        i += 1


def contract_draw(
    seed: bytes, encounter_id: str, client: str, n: int, sizes: list[int]
) -> list[int]:
    """A die of N faces takes the next word u with u < 2^32 - (2^32 mod N), shows (u mod N)+1."""
    words = contract_words(seed, encounter_id, client, n)
    faces = []
    for size in sizes:
        while True:
            u = next(words)
            if u < 2**32 - (2**32 % size):
                faces.append(u % size + 1)
                break
    return faces


# -- draw agrees with the contract --------------------------------------------------------

SIZE_SETS = [
    [4],
    [6, 6, 6],
    [20],
    [100],
    [1000],
    [7],
    [3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3],
    [4, 6, 8, 10, 12, 20, 100, 1000, 7, 3],
    [2**31 + 1] * 12,
    [3 * 10**9] * 5,
    [2**32, 1, 2],
]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("client", CLIENT_SEEDS)
@pytest.mark.parametrize("encounter_id", [ENCOUNTER, OTHER_ENCOUNTER])
@pytest.mark.parametrize("n", [1, 2, 17, 100_000])
def test_draw_gives_the_faces_the_contract_describes(
    seed: bytes, client: str, encounter_id: str, n: int
) -> None:
    for sizes in SIZE_SETS:
        assert dice.draw(seed, encounter_id, client, n, sizes) == contract_draw(
            seed, encounter_id, client, n, sizes
        )


@given(
    seed=st.binary(min_size=1, max_size=64),
    encounter_id=st.text(max_size=40),
    client=st.text(max_size=70),
    n=st.integers(min_value=1, max_value=2**40),
    sizes=st.lists(st.integers(min_value=1, max_value=2**32), min_size=1, max_size=20),
)
def test_draw_agrees_with_the_contract_for_any_seed_and_dice(
    seed: bytes, encounter_id: str, client: str, n: int, sizes: list[int]
) -> None:
    assert dice.draw(seed, encounter_id, client, n, sizes) == contract_draw(
        seed, encounter_id, client, n, sizes
    )


def test_dice_words_are_the_hmac_blocks_read_as_big_endian_words() -> None:
    words = dice.dice_words(SEEDS[0], ENCOUNTER, "", 3)
    first_two_blocks = hmac.digest(SEEDS[0], f"{ENCOUNTER}::3:0".encode(), "sha256") + hmac.digest(
        SEEDS[0], f"{ENCOUNTER}::3:1".encode(), "sha256"
    )
    expected = [int.from_bytes(first_two_blocks[k : k + 4], "big") for k in range(0, 64, 4)]
    assert [next(words) for _ in range(16)] == expected


# Roll 1 of d20, d6, d6, d100 for seed bytes 00 01 .. 1f, no client seed and ENCOUNTER:
# pinned so that a change to both implementations at once cannot pass unnoticed.
PINNED_FACES = [20, 6, 2, 93]


def test_a_known_roll_keeps_its_faces() -> None:
    faces = dice.draw(bytes(range(32)), ENCOUNTER, "", 1, [20, 6, 6, 100])
    assert faces == contract_draw(bytes(range(32)), ENCOUNTER, "", 1, [20, 6, 6, 100])
    assert faces == PINNED_FACES


def test_every_roll_number_encounter_and_client_seed_gives_a_different_stream() -> None:
    def first_words(encounter_id: str, client: str, n: int) -> list[int]:
        words = dice.dice_words(SEEDS[0], encounter_id, client, n)
        return [next(words) for _ in range(4)]

    streams = {
        tuple(first_words(ENCOUNTER, "", 1)),
        tuple(first_words(ENCOUNTER, "", 2)),
        tuple(first_words(OTHER_ENCOUNTER, "", 1)),
        tuple(first_words(ENCOUNTER, CLIENT_SEEDS[1], 1)),
    }
    assert len(streams) == 4


# -- rejection sampling --------------------------------------------------------------------


@pytest.mark.parametrize("size", [2**31 + 1, 3 * 10**9])
def test_a_word_at_or_above_the_limit_is_skipped(size: int) -> None:
    limit = 2**32 - (2**32 % size)
    for n in range(1, 200):
        words = contract_words(SEEDS[2], ENCOUNTER, "", n)
        u0, u1 = next(words), next(words)
        if u0 >= limit > u1:
            break
    else:
        pytest.fail("no roll with a rejected first word in 200 tries")
    faces = dice.draw(SEEDS[2], ENCOUNTER, "", n, [size])
    assert faces == [u1 % size + 1]
    assert faces != [u0 % size + 1]


def test_the_next_die_of_a_roll_takes_the_word_after_a_rejected_one() -> None:
    size = 2**31 + 1  # words >= 2**31 + 1 are rejected: nearly half of them
    for n in range(1, 200):
        words = contract_words(SEEDS[1], ENCOUNTER, "", n)
        u0, u1, u2 = next(words), next(words), next(words)
        if u0 < size <= u1 and u2 < size:
            break
    else:
        pytest.fail("no roll with an accept, reject, accept pattern in 200 tries")
    assert dice.draw(SEEDS[1], ENCOUNTER, "", n, [size, size]) == [u0 + 1, u2 + 1]


def test_die_sizes_the_word_stream_cannot_serve_are_refused() -> None:
    for size in (0, -6, 2**32 + 1):
        with pytest.raises(DiceError):
            dice.draw(SEEDS[0], ENCOUNTER, "", 1, [size])
    with pytest.raises(DiceError):
        dice.draw(SEEDS[0], ENCOUNTER, "", 0, [6])


# -- uniformity ----------------------------------------------------------------------------

# Upper 1% critical values of chi-square, from the NIST/SEMATECH e-Handbook of Statistical
# Methods, table 1.3.6.7.4 ("Critical Values of the Chi-Square Distribution"), column 0.99.
CHI2_CRITICAL_1_PERCENT = {5: 15.086, 19: 36.191, 99: 134.642}
ROLLS = 100_000


def chi_square(counts: Counter[int], size: int, rolls: int) -> float:
    expected = rolls / size
    return sum((counts[face] - expected) ** 2 / expected for face in range(1, size + 1))


def test_d6_d20_and_d100_do_not_reject_uniformity_at_one_percent() -> None:
    seed = hashlib.sha256(b"chi-square").digest()
    counts: dict[int, Counter[int]] = {6: Counter(), 20: Counter(), 100: Counter()}
    for n in range(1, ROLLS + 1):
        d6, d20, d100 = dice.draw(seed, ENCOUNTER, "", n, [6, 20, 100])
        counts[6][d6] += 1
        counts[20][d20] += 1
        counts[100][d100] += 1
    for size, faces in counts.items():
        assert set(faces) == set(range(1, size + 1))
        statistic = chi_square(faces, size, ROLLS)
        assert statistic < CHI2_CRITICAL_1_PERCENT[size - 1], (size, statistic)


def test_the_critical_values_agree_with_the_wilson_hilferty_approximation() -> None:
    z = 2.3263479  # the standard normal's 99th percentile
    for df, critical in CHI2_CRITICAL_1_PERCENT.items():
        h = 2 / (9 * df)
        approximation = df * (1 - h + z * h**0.5) ** 3
        assert approximation == pytest.approx(critical, rel=0.005)


# -- seeds, commitments, client seeds -----------------------------------------------------


def test_a_new_seed_is_32_fresh_bytes() -> None:
    first, second = dice.new_seed(), dice.new_seed()
    assert len(first) == len(second) == dice.SEED_BYTES == 32
    assert first != second


def test_the_commitment_is_the_hex_sha256_of_the_seed() -> None:
    assert dice.commitment(SEEDS[0]) == hashlib.sha256(SEEDS[0]).hexdigest()


def test_no_contribution_makes_an_empty_client_seed() -> None:
    assert dice.client_seed([]) == ""


def test_contributions_are_joined_in_order_then_hashed() -> None:
    assert dice.client_seed(["ab", "cé"]) == hashlib.sha256("abcé".encode()).hexdigest()
    assert dice.client_seed(["cé", "ab"]) != dice.client_seed(["ab", "cé"])


# -- dice expressions ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expr"),
    [
        ("2d6+3", DiceExpr(2, 6, 3)),
        ("d100", DiceExpr(1, 100, 0)),
        ("1d20-2", DiceExpr(1, 20, -2)),
        ("3d6+1d4+2", DiceExpr(3, 6, 2, ((1, 4),))),
        (" 2D6 + 3 ", DiceExpr(2, 6, 3)),
        ("1d8+2-1", DiceExpr(1, 8, 1)),
        ("100d1000", DiceExpr(100, 1000, 0)),
        ("d2", DiceExpr(1, 2, 0)),
    ],
)
def test_parse_reads_dice_expressions(text: str, expr: DiceExpr) -> None:
    assert dice.parse(text) == expr


@pytest.mark.parametrize(
    "text",
    [
        "d0",
        "0d6",
        "2d",
        "abc",
        "1000d6",
        "",
        "d1",
        "1d1001",
        "101d6",
        "60d6+60d6",
        "1d20-1d4",
        "2d6+",
        "2d6++3",
        "1d6*2",
        "3",
        "1d6+9999999",
        "1d6+" + "1" * 200,
        "٣d6",
    ],
)
def test_parse_refuses_bad_expressions_with_a_dice_error(text: str) -> None:
    with pytest.raises(DiceError) as refused:
        dice.parse(text)
    assert str(refused.value)
    assert isinstance(refused.value, ValueError)


def test_an_expression_lists_one_die_size_per_die_and_prints_back() -> None:
    expr = dice.parse("3d6+1d4+2")
    assert expr.sizes == [6, 6, 6, 4]
    assert str(expr) == "3d6+1d4+2"
    assert str(dice.parse("d20-2")) == "1d20-2"


def test_the_total_is_the_faces_plus_the_modifier() -> None:
    assert dice.total(dice.parse("2d6+3"), [2, 5]) == 10
    assert dice.total(dice.parse("1d20-2"), [1]) == -1
    assert dice.total(dice.parse("3d6+1d4+2"), [1, 2, 3, 4]) == 12


@pytest.mark.parametrize("faces", [[2], [2, 5, 1], [0, 5], [2, 7]])
def test_the_total_refuses_faces_that_do_not_fit_the_expression(faces: list[int]) -> None:
    with pytest.raises(DiceError):
        dice.total(dice.parse("2d6+3"), faces)


# -- rollers -------------------------------------------------------------------------------


def test_the_seeded_roller_numbers_each_seeds_rolls_and_draws_them_by_the_contract() -> None:
    seeds = {"main": SEEDS[0], "hidden": SEEDS[1]}
    roller = SeededRoller(ENCOUNTER, seeds, {"main": 4}, CLIENT_SEEDS[1])
    first = roller.roll([20, 6])
    hidden = roller.roll([100], hidden=True)
    second = roller.roll([100])
    assert (first.seed_id, first.roll, first.source) == ("main", 4, "server")
    assert (hidden.seed_id, hidden.roll) == ("hidden", 1)
    assert (second.seed_id, second.roll) == ("main", 5)
    assert first.faces == contract_draw(SEEDS[0], ENCOUNTER, CLIENT_SEEDS[1], 4, [20, 6])
    assert hidden.faces == contract_draw(SEEDS[1], ENCOUNTER, CLIENT_SEEDS[1], 1, [100])
    assert first.client_seed == CLIENT_SEEDS[1]
    assert first.sizes == [20, 6]
    assert roller.next_roll == {"main": 6, "hidden": 2}


def test_the_seeded_roller_refuses_a_seed_it_does_not_hold_and_keeps_its_count() -> None:
    roller = SeededRoller(ENCOUNTER, {"main": SEEDS[0]}, {}, "")
    with pytest.raises(DiceError):
        roller.roll([20], hidden=True)
    with pytest.raises(DiceError):
        roller.roll([0])
    assert roller.roll([20]).roll == 1


def test_the_seeded_roller_never_shows_its_seeds() -> None:
    roller = SeededRoller(ENCOUNTER, {"main": SEEDS[0]}, {}, "")
    assert SEEDS[0].hex() not in repr(roller)
    assert repr(SEEDS[0]) not in repr(roller)


def test_a_drawn_roll_encodes_as_plain_fields() -> None:
    drawn = SeededRoller(ENCOUNTER, {"main": SEEDS[0]}, {}, "").roll([6])
    assert msgspec.to_builtins(drawn) == {
        "faces": drawn.faces,
        "source": "server",
        "seed_id": "main",
        "roll": 1,
        "client_seed": "",
        "sizes": [6],
    }


def test_the_fixed_roller_gives_its_faces_as_numbered_server_rolls() -> None:
    roller = FixedRoller([3, 17, 5, 2])
    first, second, hidden = roller.roll([6]), roller.roll([20, 6]), roller.roll([4], hidden=True)
    assert (first.faces, first.source, first.seed_id, first.roll) == ([3], "server", "main", 1)
    assert (second.faces, second.roll) == ([17, 5], 2)
    assert (hidden.faces, hidden.seed_id, hidden.roll) == ([2], "hidden", 1)
    assert roller.remaining == []


def test_the_fixed_roller_can_pass_for_manual_dice() -> None:
    drawn = FixedRoller([4], source="manual").roll([6])
    assert (drawn.source, drawn.seed_id, drawn.roll) == ("manual", None, None)


@pytest.mark.parametrize("roller_class", [FixedRoller, ManualRoller])
def test_a_roller_with_given_faces_refuses_a_face_outside_the_die(
    roller_class: type[FixedRoller] | type[ManualRoller],
) -> None:
    roller = roller_class([7, 6, 0])
    with pytest.raises(DiceError):
        roller.roll([6])
    assert roller.remaining == [7, 6, 0]  # a refused roll uses no face
    assert roller.roll([20, 6]).faces == [7, 6]
    with pytest.raises(DiceError):
        roller.roll([6])


@pytest.mark.parametrize("roller_class", [FixedRoller, ManualRoller])
def test_a_roller_with_given_faces_refuses_to_run_out(
    roller_class: type[FixedRoller] | type[ManualRoller],
) -> None:
    roller = roller_class([3])
    with pytest.raises(DiceError):
        roller.roll([6, 6])
    assert roller.roll([6]).faces == [3]
    with pytest.raises(DiceError):
        roller.roll([6])


def test_manual_dice_carry_no_seed_and_no_roll_number() -> None:
    drawn = ManualRoller([100, 1]).roll([100, 4])
    assert drawn == dice.Drawn([100, 1], "manual", None, None, "", [100, 4])


def test_a_fixed_roller_knows_only_the_server_and_manual_sources() -> None:
    with pytest.raises(DiceError):
        FixedRoller([1], source="player")
