"""Numbers typed into the notebooks' prose: every one is listed, with what it is.

A result stated in a markdown cell goes stale silently when the data or the analysis changes.
The notebooks therefore render results from the computed values (code cells that build the text
with :mod:`overhead.prose` from the prose functions of the section modules, with the helpers of
:mod:`overhead.rc25482.wording`, and show it). The numbers that
stay typed in markdown cells must each be listed in ``tests/prose_numbers.yml`` with their kind:

- ``paper``: quoted from RC25482 (the paper's own words and numbers);
- ``design``: a fixed fact of the set-up or the method (section and figure numbers, the 95%
  level, tool versions, job parameters, the thread counts of the design, ...);
- ``checked-by``: a fact about the data set left in a header's prose, with the test that
  checks it (``test: tests/<file>.py::<test name>``).

An entry is a phrase of the cell (whitespace-insensitive) holding the numbers it covers; a
number counts as listed when it lies inside an occurrence of such a phrase in the same
notebook. Numbers inside `code spans` (file and job names) and ordered-list markers are not
prose numbers. An entry that no longer matches anything fails too, so the list stays exact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import jupytext
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ALLOWLIST = ROOT / "tests" / "prose_numbers.yml"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("0*.py"))
KINDS = {"paper", "design", "checked-by"}

#: A number as prose writes it: 7, 1,489, 2.8.13, 0.5; not the digits of a word (p99, E5, x86).
NUMBER = re.compile(r"(?<![A-Za-z_0-9])\d+(?:[.,]\d+)*")
CODE_SPAN = re.compile(r"`[^`\n]*`")
LIST_MARKER = re.compile(r"(?m)^(\s*)\d+\.(?=\s)")


def normalize(text: str) -> str:
    """Collapse every run of whitespace to one space (phrases match across line breaks)."""
    return " ".join(text.split())


@dataclass(frozen=True)
class Unlisted:
    """A typed number that no allowlist entry covers."""

    cell: int
    number: str
    context: str

    def __str__(self) -> str:
        return f"markdown cell {self.cell}: {self.number!r} in ...{self.context}..."


def markdown_cells(notebook_text: str) -> list[str]:
    """Return the source of every markdown cell of a jupytext percent-format notebook."""
    nb = jupytext.reads(notebook_text, fmt="py:percent")
    return [c.source for c in nb.cells if c.cell_type == "markdown"]


def prose_numbers(source: str) -> tuple[str, list[re.Match]]:
    """Return a markdown cell's normalized text and its prose numbers (not in code, not list markers)."""
    text = normalize(LIST_MARKER.sub(r"\1", source))
    code = [m.span() for m in CODE_SPAN.finditer(text)]
    numbers = [m for m in NUMBER.finditer(text) if not any(a <= m.start() < b for a, b in code)]
    return text, numbers


def check(notebook_text: str, entries: list[dict]) -> tuple[list[Unlisted], list[str]]:
    """Check one notebook against its allowlist entries.

    Returns the unlisted numbers and the entries (their phrases) that match nothing.
    """
    unlisted, used = [], set()
    phrases = [normalize(e["text"]) for e in entries]
    for i, source in enumerate(markdown_cells(notebook_text)):
        text, numbers = prose_numbers(source)
        covered = []
        for k, phrase in enumerate(phrases):
            for m in re.finditer(re.escape(phrase), text):
                covered.append(m.span())
                used.add(k)
        for m in numbers:
            if not any(a <= m.start() and m.end() <= b for a, b in covered):
                unlisted.append(Unlisted(i, m.group(), text[max(0, m.start() - 50):m.end() + 30]))
    stale = [phrases[k] for k in range(len(phrases)) if k not in used]
    return unlisted, stale


def load_allowlist() -> dict[str, list[dict]]:
    """Read tests/prose_numbers.yml: notebook name -> entries."""
    return yaml.safe_load(ALLOWLIST.read_text()) or {}


# --- the notebooks -------------------------------------------------------------------------------

def test_every_notebook_is_covered():
    allow = load_allowlist()
    assert NOTEBOOKS, "no notebooks/0*.py found"
    assert set(allow) <= {p.stem for p in NOTEBOOKS}, set(allow) - {p.stem for p in NOTEBOOKS}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_typed_number_is_listed(path):
    entries = load_allowlist().get(path.stem, [])
    unlisted, stale = check(path.read_text(), entries)
    assert not unlisted, (
        f"{path.name}: numbers typed in markdown that tests/prose_numbers.yml does not list. A result "
        "must be rendered from the data (a code cell with overhead.prose.show and a function in "
        "its section module, e.g. overhead.rc25482.redis.fig8_findings); a paper quote, a design constant or a data-set fact checked by a "
        "test goes in the allowlist with its kind:\n" + "\n".join(map(str, unlisted)))
    assert not stale, f"{path.name}: allowlist entries that match no markdown text any more: {stale}"


def entry_problems(notebook: str, e: dict) -> list[str]:
    """Return what is wrong with one allowlist entry (empty when it is well formed)."""
    where = f"{notebook}: {e.get('text')!r}"
    if set(e) - {"text", "kind", "test", "note"} or not isinstance(e.get("text"), str):
        return [f"{where}: keys must be text, kind, test (checked-by only), note"]
    problems = []
    if e.get("kind") not in KINDS:
        problems.append(f"{where}: kind {e.get('kind')!r} is not one of {sorted(KINDS)}")
    if not prose_numbers(e["text"])[1]:
        problems.append(f"{where}: holds no number")
    if e.get("kind") == "checked-by":
        file, _, name = str(e.get("test", "")).partition("::")
        source = ROOT / file
        if not (file and name and source.is_file()):
            problems.append(f"{where}: checked-by needs test: tests/<file>.py::<test>, got {e.get('test')!r}")
        elif not re.search(rf"^def {re.escape(name)}\(", source.read_text(), re.M):
            problems.append(f"{where}: {e['test']} does not exist")
    elif "test" in e:
        problems.append(f"{where}: only checked-by entries name a test")
    return problems


def test_allowlist_entries_are_well_formed():
    problems = [p for nb, entries in load_allowlist().items() for e in entries for p in entry_problems(nb, e)]
    assert not problems, "\n".join(problems)


def test_entry_checks():
    assert entry_problems("x", {"text": "Fig 8", "kind": "design"}) == []
    assert entry_problems("x", {"text": "Fig VIII", "kind": "design"}) == ["x: 'Fig VIII': holds no number"]
    assert "is not one of" in entry_problems("x", {"text": "93k", "kind": "result"})[0]
    assert "does not exist" in entry_problems(
        "x", {"text": "93k", "kind": "checked-by", "test": "tests/output/test_notebook_prose.py::test_nothing"})[0]
    assert entry_problems("x", {"text": "93k", "kind": "checked-by",
                                "test": "tests/output/test_notebook_prose.py::test_entry_checks"}) == []


# --- the guard itself, on a synthetic notebook ---------------------------------------------------

SYNTHETIC = '''# %% [markdown]
# # Section IV-D: Redis, Fig 8
#
# **What the paper says.** Native saturates "at around 110 k request per second".

# %%
x = 108169.7  # numbers in code cells are not prose

# %% [markdown]
# **Reading Fig 8.** Native saturates at about 108k req/s in `run_native_20140717.txt`,
# 2.5% below the paper.
#
# 1. A list item is not a number.
'''

ENTRIES = [{"text": "Section IV-D: Redis, Fig 8", "kind": "design"},
           {"text": "at around 110 k request per second", "kind": "paper"},
           {"text": "Reading Fig 8.", "kind": "design"}]


def test_guard_fails_on_an_unlisted_result():
    unlisted, stale = check(SYNTHETIC, ENTRIES)
    assert [u.number for u in unlisted] == ["108", "2.5"]
    assert all(u.cell == 1 for u in unlisted) and "108k req/s" in unlisted[0].context
    assert stale == []


def test_guard_passes_when_every_number_is_listed_and_flags_stale_entries():
    listed = ENTRIES + [{"text": "about 108k req/s", "kind": "checked-by"},
                        {"text": "2.5% below", "kind": "checked-by"}]
    assert check(SYNTHETIC, listed) == ([], [])
    unlisted, stale = check(SYNTHETIC, listed + [{"text": "93k req/s at 5", "kind": "design"}])
    assert unlisted == [] and stale == ["93k req/s at 5"]


def test_a_number_is_covered_only_where_its_phrase_is():
    # "Fig 8" is listed as the heading's figure number; the same "8" elsewhere is not covered
    text = SYNTHETIC.replace("2.5% below the paper", "8 points below the paper")
    unlisted, _ = check(text, ENTRIES + [{"text": "about 108k req/s", "kind": "design"}])
    assert [u.number for u in unlisted] == ["8"]


def test_extraction():
    text, numbers = prose_numbers("1. **All 1,489 runs** on redis 2.8.13 (p99, E5-2665, `vm.log:35`), 0.5%\n"
                                  "2. 10..290 step 20")
    assert [m.group() for m in numbers] == ["1,489", "2.8.13", "2665", "0.5", "10", "290", "20"]
    assert text.startswith("**All")
