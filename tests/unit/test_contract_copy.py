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


def test_every_relative_link_of_the_docs_leads_to_a_file() -> None:
    """A link or picture in README.md or docs/ that names a file of the repository finds
    it (the first-fight guide's pictures included; docs/playing.md's pointed beside docs/)."""
    import re

    broken = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if "://" in target or target.startswith(("mailto:", "/")):
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert broken == []
