"""docs/contract.md is the shared contract (../shared/CONTRACT.md) byte for byte, so a
clone reads the contract it is held to without leaving the repository."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "CONTRACT.md"


@pytest.mark.skipif(not SHARED.is_file(), reason="no ../shared/CONTRACT.md beside the checkout")
def test_the_contract_in_docs_is_the_shared_one() -> None:
    assert (ROOT / "docs" / "contract.md").read_bytes() == SHARED.read_bytes(), (
        "copy ../shared/CONTRACT.md to docs/contract.md"
    )


def test_no_doc_links_out_of_the_repository() -> None:
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        assert "../shared" not in text.replace("../shared/CONTRACT.md", ""), page.name
