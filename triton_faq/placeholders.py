"""The scaffold's placeholders a page must not keep (``{proof}``, ``{title}``...).

``triton-faq new`` writes a page by filling a template twice (the language's words, then the entry's
names). A field either pass failed to fill would stay in the page as ``{name}``, in prose or in
inline code, where no Markdown renderer complains. The names are read off the templates themselves,
so a field added to the scaffold is covered without a list to keep.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from string import Formatter


@functools.cache
def pattern() -> re.Pattern:
    from . import scaffold

    names = {field for _, field, _, _ in Formatter().parse(scaffold.PAGE) if field}
    for words in scaffold.TEXT.values():
        names |= {field for _, field, _, _ in Formatter().parse(scaffold.PAGE.format(**words)) if field}
    return re.compile(r"\{(?:" + "|".join(sorted(map(re.escape, names))) + r")\}")


def problems(path: Path, relative: Path) -> list[str]:
    """Each line of the page that still holds a scaffold placeholder."""
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        for match in pattern().finditer(line):
            found.append(f"{relative}:{number}: unfilled scaffold placeholder '{match.group(0)}'")
    return found
