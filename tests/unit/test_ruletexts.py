"""The rule texts the server ships (server/ruletexts/, read by `GET /api/rules/{id}`) are
the digests of ../shared/rules, byte for byte: a digest that changes without its copy
fails here, not in a player's audit."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "server" / "ruletexts"
DIGESTS = ROOT.parent / "shared" / "rules"


@pytest.mark.skipif(not DIGESTS.is_dir(), reason="no ../shared/rules beside the checkout")
@pytest.mark.parametrize(
    "name", sorted(p.name for p in SHIPPED.glob("*.md") if p.name != "README.md")
)
def test_a_shipped_rule_text_is_its_digest(name: str) -> None:
    assert (SHIPPED / name).read_bytes() == (DIGESTS / name).read_bytes(), (
        f"copy ../shared/rules/{name} to server/ruletexts/{name}"
    )


@pytest.mark.skipif(not DIGESTS.is_dir(), reason="no ../shared/rules beside the checkout")
def test_every_digest_is_shipped() -> None:
    assert {p.name for p in DIGESTS.glob("*.md")} <= {p.name for p in SHIPPED.glob("*.md")}
