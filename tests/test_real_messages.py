"""Error messages as real users pasted them in public issue threads (Triton's tracker and projects
built on Triton), each with its thread: how often `explain` puts the answering entry in its top 3.

tests/data/real_messages.yaml holds {message, url, entry, note}; entry is the handbook entry that
answers the message, or null where none does (those are kept as data, not scored).
"""

from pathlib import Path

from conftest import ROOT
from triton_faq.handbook.page import load_yaml  # libyaml: the sets load at collection, in every worker
from triton_faq.explain import ExplainError, candidates

DATA = Path(__file__).resolve().parent / "data" / "real_messages.yaml"
MESSAGES = load_yaml(DATA.read_text(encoding="utf-8"))
BAR = 0.8


def top3(message: str) -> list[str]:
    try:
        return [match.entry.id for match in candidates(message, ROOT)[:3]]
    except ExplainError:
        return []


def test_the_file_is_well_formed():
    assert len(MESSAGES) >= 30, f"only {len(MESSAGES)} messages"
    for item in MESSAGES:
        assert set(item) == {"message", "url", "entry", "note"}, item
        assert isinstance(item["message"], str) and item["message"].strip(), item
        assert item["url"].startswith("https://github.com/"), item["url"]
        assert item["entry"] is None or (isinstance(item["entry"], str) and item["entry"].startswith("TP")), item
    ids = {p.read_text(encoding="utf-8").split("\nid: ", 1)[1].split("\n", 1)[0].strip()
           for p in (ROOT / "docs" / "en").rglob("*.md") if "\nid: " in p.read_text(encoding="utf-8")}
    unknown = {item["entry"] for item in MESSAGES if item["entry"] is not None} - ids
    assert not unknown, f"entries not in the handbook: {sorted(unknown)}"


def test_explain_puts_the_answering_entry_in_its_top_3():
    scored = [item for item in MESSAGES if item["entry"] is not None]
    misses = []
    for item in scored:
        got = top3(item["message"])
        if item["entry"] not in got:
            misses.append(f"  {item['entry']} not in {got or 'no candidates'}: {item['message'][:120]!r} ({item['url']})")
    rate = 1 - len(misses) / len(scored)
    report = (f"top-3 rate {rate:.3f} ({len(scored) - len(misses)}/{len(scored)} messages with an entry; "
              f"{len(MESSAGES)} messages in all)")
    print(report)
    print("\n".join(misses) or "  no misses")
    assert rate >= BAR, report + f", below {BAR}; misses:\n" + "\n".join(misses)
