"""The hash a recorded result is keyed to: the code that produced it, comments and docstrings left out.

GPU data (``data/``) is keyed to an entry's reader's file and evidence file, the version matrix to
its reader's file and proof: editing a test, a comment or a page leaves them current; editing a
kernel, a launcher or an evidence function makes them stale.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import io
import tokenize
from pathlib import Path


@functools.lru_cache(maxsize=512)  # the same files are hashed again and again (checks, tests, copies of the tree)
def _code_only(source: str) -> str:
    """The code of a Python file without its comments, docstrings, blank lines and trailing spaces.

    Worked on the source text (not ``ast.dump``, whose output changes between Python versions),
    so the same file gives the same text on every Python: comments are found by ``tokenize``,
    docstrings by their positions in the AST.
    """
    lines = source.splitlines()
    cut: dict[int, int] = {}  # 0-based line -> column where a comment starts
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            cut[token.start[0] - 1] = token.start[1]
    blank: list[tuple[int, int, int, int]] = []
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            doc = body[0]
            blank.append((doc.lineno - 1, doc.col_offset, doc.end_lineno - 1, doc.end_col_offset))
    for first, start, last, end in blank:
        if first == last:
            lines[first] = lines[first][:start] + lines[first][end:]
        else:
            lines[first] = lines[first][:start]
            for number in range(first + 1, last):
                lines[number] = ""
            lines[last] = lines[last][end:]
    kept = []
    for number, line in enumerate(lines):
        if number in cut:
            line = line[:cut[number]]
        if line.strip():
            kept.append(line.rstrip())
    return "\n".join(kept)


def code_hash(root: Path, *paths: Path) -> str:
    """sha256 of the code in ``paths`` (missing files count as empty), ignoring comments and docstrings.

    Called with an entry's reader's file and its evidence file, this is the code that produced
    its GPU data: editing a test, a comment or a docstring leaves the data current; editing a
    kernel, a launcher or an evidence function makes it stale.
    """
    digest = hashlib.sha256()
    for path in paths:
        file = root / path
        digest.update(str(path).encode() + b"\0")
        if file.is_file():
            digest.update(_code_only(file.read_text(encoding="utf-8")).encode())
        digest.update(b"\0")
    return digest.hexdigest()


def data_hash(root: Path, entry) -> str:
    """The hash GPU data is keyed to: the reader's file and the evidence file, code only."""
    return code_hash(root, entry.snippet, entry.evidence)


def proof_hash(root: Path, entry) -> str:
    """The hash the version matrix is keyed to: the reader's file and its proof, code only."""
    return code_hash(root, entry.snippet, entry.proof)
