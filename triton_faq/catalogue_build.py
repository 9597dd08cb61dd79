"""The message catalogue: every message Triton can print, read from Triton's own released wheels.

``triton-faq catalogue`` (``make catalogue``) downloads the wheel of each Triton release of the
version matrix (the newest patch of every minor release from 3.2, as ``triton_faq.matrix`` picks
them) into ``.cache/catalogue/`` and reads, without installing or running anything:

``python``
    every ``raise``, ``assert`` and ``warnings.warn`` message of the wheel's Python sources, parsed
    with ``ast``: f-strings, ``%`` and ``.format`` become templates whose variable parts are
    ``{placeholders}``; a message held in a local variable is followed to its assignment; the
    messages exception classes build in ``__str__``/``__init__`` are read too. A bare ``assert``
    is kept as its source line, which is what the traceback shows.
``driver``
    the messages the C code of the backends' drivers and generated launchers raises
    (``PyErr_SetString``/``PyErr_Format``, ``snprintf`` into an error), ``*.c`` files of the wheel
    and C source held in Python strings; ``Triton Error [CUDA]: `` is followed by
    ``cuGetErrorString``'s text, so each CUDA error string of ``CUDA_ERRORS`` (cited) gets its
    own template.
``compiler``
    the diagnostics of ``triton/_C/libtriton.so`` (MLIR ``emitError``/``emitOpError``, LLVM
    ``report_fatal_error``, assertion messages): the NUL-terminated printable strings of its
    ``.rodata`` section that pass ``is_diagnostic`` (the rule is in its docstring).
``ptxas``
    the same rule on the bundled ``ptxas`` binaries, whose ``%s``/``%d`` become placeholders.
``inductor``
    ``raise``/``assert``/``warn`` messages of the installed torch's ``torch/_inductor`` and
    ``torch/utils/_triton.py`` that concern Triton: the file's name or the message names Triton.

Each template records its kind, the file and line that raise it (in the newest release that does),
the releases that print it and the handbook entries that explain it (``messages.entries_for``:
every message an entry claims, and every real message of ``tests/data/real_messages.yaml`` judged
to an entry, matched against the templates). Everything is computed in memory and written to
``data/messages/catalogue.json.gz`` in one rename: a failed run leaves the previous data.
``--map-only`` re-derives the word indexes and the entry mapping of the committed data without any
download (after an entry's ``errors:`` or the matcher changed).
"""

from __future__ import annotations

import argparse
import ast
import gzip
import hashlib
import io
import json
import os
import platform
import re
import struct
import sys
import tempfile
import time
import zipfile
from datetime import datetime, timezone
from pathlib import Path

from .handbook import ROOT

DATA = Path("data") / "messages" / "catalogue.json.gz"
CACHE = Path(".cache") / "catalogue"
COMMAND = "triton-faq catalogue"
SOURCE_TREE = "https://github.com/triton-lang/triton/tree/v{version}"
MAX_TEXT = 400  # longer strings of a binary are not messages (code, tables)
MAX_PYTHON_TEXT = 2000  # a Python message may be a paragraph (the global-variable NameError is 480 characters)

# cuGetErrorString's text for the CUresults users report after "Triton Error [CUDA]: ", each with
# a public report of it (CUDA's list of CUresult values and their meanings:
# https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TYPES.html).
CUDA_ERRORS: dict[str, str] = {
    "an illegal memory access was encountered": "https://github.com/triton-lang/triton/issues/1302",
    "misaligned address": "https://github.com/triton-lang/triton/issues/1320",
    "invalid argument": "https://github.com/triton-lang/triton/issues/3299",
    "device kernel image is invalid": "https://github.com/triton-lang/triton/issues/1556",
    "unspecified launch failure": "https://github.com/sgl-project/sglang/issues/10570",
    "an illegal instruction was encountered": "https://github.com/triton-lang/triton/issues/8657",
    "invalid device context": "https://github.com/pytorch/pytorch/issues/124565",
    "context is destroyed": "https://github.com/state-spaces/mamba/issues/390",
    "device-side assert triggered": "https://github.com/facebookresearch/blt/issues/102",
}


class CatalogueError(RuntimeError):
    """The catalogue cannot be built; the message says why and what to do."""


# -- templates --------------------------------------------------------------------------------------
# A template is a list of parts: str (literal text) or Hole(name). Written out, literal braces are
# doubled and a hole is {name}, as in str.format.

class Hole(str):
    """A variable part of a message; the string is what fills it in the source (an expression)."""


def render(parts: list) -> str:
    """The template as text: placeholders in braces, literal braces doubled, and the indentation a
    triple-quoted message carries (``dedent(f\"\"\"...\"\"\")``) and surrounding blanks left out."""
    out = []
    for part in _merge(parts):
        if isinstance(part, Hole):
            name = re.sub(r"[{}\s]+", " ", str(part)).strip()[:40] or "…"
            out.append("{" + name + "}")
        else:
            out.append(part.replace("{", "{{").replace("}", "}}"))
    return re.sub(r"\n[ \t]+", "\n", "".join(out)).strip()


def _merge(parts: list) -> list:
    merged: list = []
    for part in parts:
        if not part and not isinstance(part, Hole):
            continue
        if merged and not isinstance(part, Hole) and not isinstance(merged[-1], Hole):
            merged[-1] = merged[-1] + part
        elif merged and isinstance(part, Hole) and isinstance(merged[-1], Hole):
            continue  # two adjacent holes read as one
        else:
            merged.append(part)
    return merged


def literal_length(parts: list) -> int:
    return sum(len(p.strip()) for p in parts if not isinstance(p, Hole))


PRINTF = re.compile(r"%(?:%|[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l|z|j|t|L)?[diouxXeEfgGcsSpaAnRUVr])")
FORMAT_FIELD = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")


def from_printf(text: str, names: list[str] | None = None) -> list:
    """'%s of %d' -> [Hole, ' of ', Hole]; '%%' is a literal percent sign."""
    parts: list = []
    last, index = 0, 0
    for found in PRINTF.finditer(text):
        parts.append(text[last:found.start()])
        if found.group() == "%%":
            parts.append("%")
        else:
            name = names[index] if names and index < len(names) else found.group()
            parts.append(Hole(name))
            index += 1
        last = found.end()
    parts.append(text[last:])
    return _merge(parts)


def from_format(text: str, args: list[str], keywords: dict[str, str]) -> list:
    """'{} and {name}' with .format(a, name=b) -> [Hole(a), ' and ', Hole(b)]."""
    parts: list = []
    last, index = 0, 0
    for found in FORMAT_FIELD.finditer(text):
        parts.append(text[last:found.start()])
        token = found.group()
        if token in ("{{", "}}"):
            parts.append(token[0])
        else:
            field = re.split(r"[!:.\[]", found.group(1), maxsplit=1)[0]
            if field == "":
                name = args[index] if index < len(args) else "…"
                index += 1
            elif field.isdigit():
                name = args[int(field)] if int(field) < len(args) else field
            else:
                name = keywords.get(field, field)
            parts.append(Hole(name))
        last = found.end()
    parts.append(text[last:])
    return _merge(parts)


# -- Python sources ---------------------------------------------------------------------------------

class _Strings:
    """Turns an expression into the message templates it can evaluate to (at most a few)."""

    def __init__(self, assignments: dict[str, list[ast.expr]]):
        self.assignments = assignments

    def __call__(self, node: ast.expr, depth: int = 0) -> list[list] | None:
        if depth > 6:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [[node.value]]
        if isinstance(node, ast.JoinedStr):
            alternatives: list[list] = [[]]
            for value in node.values:
                if isinstance(value, ast.Constant):
                    choices = [[str(value.value)]]
                else:
                    # {error} where error = 'Internal Triton PTX codegen error' (or another string): its words
                    literal = (self(value.value, depth + 1) if isinstance(value.value, ast.Name)
                               and value.conversion == -1 and value.format_spec is None else None)
                    choices = literal or [[Hole(_source(value.value))]]
                alternatives = [a + c for a in alternatives for c in choices][:4]
            return [_merge(a) for a in alternatives]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self(node.left, depth + 1), self(node.right, depth + 1)
            if left is None and right is None:
                return None
            left = left or [[Hole(_source(node.left))]]
            right = right or [[Hole(_source(node.right))]]
            return [_merge(a + b) for a in left for b in right][:4]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            left = self(node.left, depth + 1)
            if left is None:
                return None
            values = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
            names = [_source(v) for v in values]
            return [_merge([q for p in t for q in (from_printf(p, names) if not isinstance(p, Hole) else [p])])
                    for t in left]
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format"
                and isinstance(node.func.value, (ast.Constant, ast.JoinedStr, ast.BinOp))):
            base = self(node.func.value, depth + 1)
            if base is None:
                return None
            args = [_source(a) for a in node.args]
            keywords = {k.arg: _source(k.value) for k in node.keywords if k.arg}
            return [_merge([q for p in t for q in (from_format(p, args, keywords) if not isinstance(p, Hole) else [p])])
                    for t in base]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in STRING_METHODS:
            return self(node.func.value, depth + 1)  # "...".strip(), dedent(...).replace("\n", " ")
        if (isinstance(node, ast.Call) and _exception_name(node) in TEXT_FUNCTIONS and len(node.args) == 1
                and not node.keywords):
            return self(node.args[0], depth + 1)
        if isinstance(node, ast.IfExp):
            found = [t for branch in (node.body, node.orelse) for t in (self(branch, depth + 1) or [])]
            return found[:4] or None
        if isinstance(node, ast.Name) and node.id in self.assignments:
            found = []
            for value in self.assignments[node.id][-3:]:
                found += self(value, depth + 1) or []
            return found[:4] or None
        return None


def _source(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # pragma: no cover - unparse handles every expression of valid code
        return "…"


def _exception_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Attribute):
        return target.attr
    if isinstance(target, ast.Name):
        return target.id
    return "exception"


def _assignments(function: ast.AST) -> dict[str, list[ast.expr]]:
    """name -> the values assigned to it (or appended with +=) in the function, in source order."""
    found: dict[str, list[ast.expr]] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, []).append(node.value)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            found.setdefault(node.target.id, []).append(node.value)
    for values in found.values():
        values.sort(key=lambda v: (v.lineno, v.col_offset))
    return found


STRING_METHODS = {"strip", "rstrip", "lstrip", "replace", "capitalize", "rstrip", "expandtabs"}
TEXT_FUNCTIONS = {"dedent", "cleandoc", "str"}
DEVICE_ASSERTS = {"device_assert", "static_assert"}  # their message is printed when the check fails
WARNINGS = {"warn", "warn_once"}  # warnings.warn, and Triton's once-per-process wrapper of it (3.9)
EXCEPTION_BASE = re.compile(r"(Error|Exception|Warning|Failure|OutOfResources)$")
MESSAGE_METHODS = {"__str__", "__init__", "_format_message", "__repr__", "format_message"}


def exception_classes(sources) -> set[str]:
    """The names of the classes that derive from an exception (a base named ``...Error``,
    ``...Exception``, ``...Warning``), directly or through other classes of ``sources``."""
    bases: dict[str, set[str]] = {}
    for source in sources:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases.setdefault(node.name, set()).update(_source(b).split(".")[-1] for b in node.bases)
    found: set[str] = set()
    while True:
        more = {name for name, of in bases.items() if name not in found
                and any(EXCEPTION_BASE.search(b) or b in found for b in of)}
        if not more:
            return found
        found |= more


def python_messages(source: str, path: str, known_exceptions: frozenset | set = frozenset()) -> list[dict]:
    """Every message ``source`` can raise, assert or warn: {text, form, line, parts}. An exception
    class's own message (``__str__``, ``super().__init__("...")``) is read for the classes of
    ``known_exceptions`` (``exception_classes`` of the whole package) and of the file itself."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    lines = source.splitlines()
    found: list[dict] = []
    scopes: list[ast.AST] = [tree] + [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    owner: dict[int, ast.AST] = {}
    for scope in scopes:  # the innermost function that holds each node
        for node in ast.walk(scope):
            owner[id(node)] = scope
    strings_of: dict[int, _Strings] = {}
    exceptions = set(known_exceptions) | exception_classes([source])
    # the module's own constants (FP_FUSION_DEFAULT_WARNING = "..."), which any function may pass on
    module_constants = _assignments(ast.Module(body=[n for n in tree.body if isinstance(n, (ast.Assign, ast.AnnAssign))],
                                               type_ignores=[]))

    def strings(node) -> _Strings:
        scope = owner.get(id(node), tree)
        if id(scope) not in strings_of:
            strings_of[id(scope)] = _Strings({**module_constants, **_assignments(scope)} if scope is not tree
                                             else module_constants)
        return strings_of[id(scope)]

    def add(parts_list, form, node):
        for parts in parts_list or []:
            parts = _merge(parts)
            if literal_length(parts) >= 3 and len(render(parts)) <= MAX_PYTHON_TEXT:
                found.append({"parts": parts, "form": form, "line": node.lineno})

    # functions that build the exception their callers raise (`return UnsupportedLanguageConstruct(...)`,
    # then `return self._unsupported(node, "...")` in a helper of its own): a message passed to one
    # in a `return` is raised too, by whoever raises what the function returns
    factories: dict[str, str] = {}
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    while True:
        more = {}
        for function in functions:
            if function.name in factories:
                continue
            for inner in ast.walk(function):
                if isinstance(inner, ast.Return) and isinstance(inner.value, ast.Call):
                    called = _exception_name(inner.value)
                    if called in exceptions or called in factories:
                        more[function.name] = factories.get(called, called)
                        break
        if not more:
            break
        factories.update(more)

    for node in ast.walk(tree):
        if (isinstance(node, ast.Return) and isinstance(node.value, ast.Call)
                and _exception_name(node.value) in factories and _exception_name(node.value) not in exceptions):
            convert = strings(node)
            for argument in node.value.args:
                add(convert(argument), f"raise {factories[_exception_name(node.value)]}", node)
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            call, name = node.exc, _exception_name(node.exc)
            convert = strings(node)
            for argument in [*call.args, *(k.value for k in call.keywords if k.arg in ("msg", "message", "error_message"))]:
                add(convert(argument), f"raise {name}", node)
        elif isinstance(node, ast.Assert):
            if node.msg is not None:
                add(strings(node)(node.msg), "assert", node)
            else:
                first = lines[node.lineno - 1].strip() if node.lineno <= len(lines) else ""
                if first.startswith("assert ") and len(first) > 12:
                    found.append({"parts": [first], "form": "assert (no message: the traceback shows the line)",
                                  "line": node.lineno})
        elif (isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name))
              and _exception_name(node) in WARNINGS and node.args):
            add(strings(node)(node.args[0]), "warning", node)
        elif (isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name))
              and _exception_name(node) in DEVICE_ASSERTS and len(node.args) >= 2):
            add(strings(node)(node.args[1]), _exception_name(node), node)
        elif isinstance(node, ast.ClassDef) and node.name in exceptions:
            for method in node.body:
                if isinstance(method, ast.FunctionDef) and method.name in MESSAGE_METHODS:
                    convert = _Strings(_assignments(method))
                    for inner in ast.walk(method):
                        value = None
                        if isinstance(inner, ast.Return) and inner.value is not None and method.name != "__init__":
                            value = inner.value
                        elif (isinstance(inner, ast.Assign) and any(
                                isinstance(t, ast.Attribute) and t.attr in ("message", "msg") for t in inner.targets)):
                            value = inner.value
                        elif (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)
                              and inner.func.attr == "__init__" and inner.args):
                            value = inner.args[0]  # super().__init__("message", ...)
                        if value is not None:
                            add(convert(value), f"{node.name} message", inner)
    # C source held in Python strings (the launchers that drivers compile at run time)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Constant, ast.JoinedStr)):
            text = node.value if isinstance(node, ast.Constant) else "".join(
                str(v.value) if isinstance(v, ast.Constant) else "\x00" for v in node.values)
            if isinstance(text, str) and "PyErr_" in text:
                if isinstance(node, ast.JoinedStr):
                    text = text.replace("{{", "{").replace("}}", "}")
                for item in c_messages(text, form_prefix="launcher "):
                    item["line"] += node.lineno - 1
                    found.append(item)
    return found


# -- C sources --------------------------------------------------------------------------------------

C_LITERALS = r'((?:"(?:[^"\\\n]|\\.)*"\s*)+)'
C_CALL = re.compile(r"\b(PyErr_SetString|PyErr_Format|snprintf|sprintf|fprintf)\s*\(([^;]*?)" + C_LITERALS)
C_PREFIX = re.compile(r"\bconst char \*\s*prefix\s*=\s*" + C_LITERALS)


def _c_string(literals: str) -> str:
    pieces = re.findall(r'"((?:[^"\\\n]|\\.)*)"', literals)
    text = "".join(pieces)
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), text)


def c_messages(source: str, form_prefix: str = "") -> list[dict]:
    """Messages C code raises: {parts, form, line}."""
    found = []
    for match in C_CALL.finditer(source):
        function, before, literals = match.groups()
        if function in ("snprintf", "sprintf", "fprintf") and "err" not in before and "stderr" not in before:
            continue
        text = _c_string(literals).strip()
        if "\x00" in text:
            text = text.replace("\x00", "%s")
        parts = from_printf(text)
        if len(WORD.findall(render(parts))) >= 2 and len(text) <= MAX_TEXT:
            line = source.count("\n", 0, match.start(3)) + 1
            found.append({"parts": parts, "form": form_prefix + function, "line": line})
    for match in C_PREFIX.finditer(source):
        prefix = _c_string(match.group(1))
        line = source.count("\n", 0, match.start(1)) + 1
        found.append({"parts": [prefix, Hole("cuGetErrorString")], "form": form_prefix + "prefix + cuGetErrorString",
                      "line": line, "prefix": prefix})
    return found


# -- binaries ---------------------------------------------------------------------------------------

C_STRING = re.compile(rb"(?<=\x00)[\x20-\x7e\t\n]{8,400}(?=\x00)")


def rodata_strings(data: bytes) -> set[str]:
    """The NUL-terminated printable strings of an ELF file's read-only data sections (the whole file
    when it is not a 64-bit little-endian ELF)."""
    ranges = [(0, len(data))]
    if data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1:
        shoff, = struct.unpack_from("<Q", data, 0x28)
        size, count, names = struct.unpack_from("<HHH", data, 0x3a)
        headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * size) for i in range(count)]
        table = headers[names][4]
        ranges = []
        for header in headers:
            name = data[table + header[0]:data.index(b"\x00", table + header[0])]
            if name.startswith(b".rodata"):
                ranges.append((header[4], header[4] + header[5]))
    found = set()
    for start, end in ranges:
        for match in C_STRING.finditer(data, max(start - 1, 0), end):
            found.add(match.group().decode("ascii"))
    return found


DIAGNOSTIC = re.compile(
    r"\b(expected|expects?|failed|fails?|unsupported|not supported|invalid|cannot|can't|could not|couldn't|"
    r"unable|must|requires?|required|unknown|unexpected|illegal|mismatch(?:ed)?|incompatible|error|"
    r"too (?:many|large|few|small|big|long)|out of|exceeds?|exceeded|overflows?|only|should|does not|doesn't|"
    r"is not|are not|missing|undefined|not (?:found|allowed|implemented|defined|recognized|a )|violat\w*|"
    r"conflict\w*|ambiguous|duplicate\w*|unrecognized|unreachable|unresolved|no such|deprecated|"
    r"ignoring|insufficient|uses too much|(?:has been|was|were|is) (?:dropped|removed)|please)\b", re.IGNORECASE)
CODE = re.compile(r"::\w+\(|\[with |\[\w+ = |&&|\|\||==|!=|->|^\s*[.#%$@\\/{}]|\b(?:static|void|const|template)\b "
                  r"|\.(?:cpp|h|td|inc|py)\b|__\w+__|[;{}]\s*$")
WORD = re.compile(r"[A-Za-z][a-z]+")


def is_diagnostic(text: str) -> bool:
    """A compiler or ptxas string is kept as a diagnostic when it

    - starts a message: its first character is a letter, a digit or a quote (``, which is not
      supported.`` is the middle of one);
    - reads as words: at least three words of two or more letters, and letters and spaces make up
      at least 70% of it (tables, mangled names, paths, escape sequences and code fail this);
    - is not code: no C++ signature (``::f(``, ``[with T = ...]``), no ``&&``/``||``/``==``/``->``
      (assert expressions, PTX templates), no leading ``.``/``#``/``%``/path, no file suffix;
    - says what went wrong: it holds a diagnostic word (``DIAGNOSTIC``: expected, failed,
      unsupported, invalid, cannot, must, requires, unknown, mismatch, out of, only, has been dropped,
      please, ...), which
      option help texts, pass names and statistics lack.
    """
    if len(text) > MAX_TEXT or "\n" in text.strip() or not (text[0].isalnum() or text[0] in "'\"`"):
        return False
    if len(WORD.findall(text)) < 3:
        return False
    plain = sum(c.isalpha() or c == " " for c in text)
    if plain < 0.7 * len(text):
        return False
    if CODE.search(text):
        return False
    return bool(DIAGNOSTIC.search(text))


ASSERTION_MESSAGE = re.compile(r'&& "((?:[^"\\]|\\.){12,})"\s*\)?$')
# MLIR's generated verifiers compose an operand's or result's type check from a fixed head and one
# string per constraint: emitOpError(kind) << " #" << index << " must be <constraint>, but got " << type
# ('math.sqrt' op operand #0 must be floating-point-like, but got 'i32')
VERIFIER_CONSTRAINT = re.compile(r"^ must be (?=.*[a-z])[^\n]+, but got $")


def binary_messages(strings: set[str], printf: bool) -> list[dict]:
    """Diagnostics among a binary's strings; LLVM/MLIR assertion expressions with a message are kept
    as the ``Assertion `...' failed`` line they print."""
    found = []
    for text in strings:
        assertion = ASSERTION_MESSAGE.search(text)
        if assertion and "\n" not in text:
            found.append({"parts": [text], "form": "assertion", "line": None})
        elif VERIFIER_CONSTRAINT.match(text) and len(text) <= MAX_TEXT:
            parts = ["'", Hole("op"), "' op ", Hole("operand"), " #", Hole("index"), text, Hole("type")]
            found.append({"parts": parts, "form": "diagnostic (MLIR's verifier of an op's operand or result)",
                          "line": None})
        elif is_diagnostic(text):
            parts = from_printf(text) if printf else [text]
            if literal_length(parts) >= 8:
                found.append({"parts": parts, "form": "diagnostic", "line": None})
    return found


# -- a release ------------------------------------------------------------------------------------

def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_wheel(wheel: Path) -> dict[tuple, dict]:
    """(kind, text, file) -> {kind, text, form, file, line} for one release's wheel."""
    found: dict[tuple, dict] = {}

    def keep(kind, file, items):
        for item in items:
            text = render(item["parts"])
            key = (kind, text, file if kind in ("python", "driver", "inductor") else None)
            if key not in found:
                found[key] = {"kind": kind, "text": text, "form": item["form"],
                              "file": key[2], "line": item["line"], **({"prefix": item["prefix"]} if "prefix" in item else {})}

    with zipfile.ZipFile(wheel) as archive:
        sources = {name: archive.read(name).decode("utf-8", "replace") for name in archive.namelist()
                   if name.startswith("triton/") and name.endswith(".py")}
        exceptions = exception_classes(sources.values())
        for info in sorted(archive.infolist(), key=lambda i: i.filename):
            name = info.filename
            if not name.startswith("triton/"):
                continue
            if name.endswith(".py"):
                items = python_messages(sources[name], name, exceptions)
                keep("python", name, [i for i in items if not i["form"].startswith("launcher ")])
                keep("driver", name, [i for i in items if i["form"].startswith("launcher ")])
            elif name.endswith(".c"):
                keep("driver", name, c_messages(archive.read(name).decode("utf-8", "replace")))
            elif re.fullmatch(r"triton/_C/libtriton\.so", name):
                keep("compiler", None, binary_messages(rodata_strings(archive.read(name)), printf=False))
            elif re.fullmatch(r"triton/backends/nvidia/bin/ptxas(-[\w]+)?", name):
                keep("ptxas", None, binary_messages(rodata_strings(archive.read(name)), printf=True))
    # each CUDA error string after the driver's "Triton Error [CUDA]: " prefix
    for item in [i for i in found.values() if "CUDA" in i.get("prefix", "")]:
        for error, url in CUDA_ERRORS.items():
            text = render([item["prefix"] + error])
            found.setdefault(("driver", text, item["file"]), {
                "kind": "driver", "text": text, "form": "prefix + cuGetErrorString", "file": item["file"],
                "line": item["line"], "cuda_error_reported_at": url})
    for item in found.values():
        item.pop("prefix", None)
    return found


def inductor_messages(torch_root: Path) -> dict[tuple, dict]:
    """The Triton-facing messages of torch's Inductor: files named for Triton, or messages naming it."""
    found: dict[tuple, dict] = {}
    files = [p for p in sorted((torch_root / "_inductor").rglob("*.py")) + [torch_root / "utils" / "_triton.py"]
             if p.is_file()]
    sources = {path: path.read_text(encoding="utf-8", errors="replace") for path in files}
    dynamo = torch_root / "_dynamo" / "exc.py"  # the exceptions Inductor's derive from
    exceptions = exception_classes([*sources.values(), *([dynamo.read_text(encoding="utf-8")] if dynamo.is_file() else [])])
    for path in files:
        name = "torch/" + path.relative_to(torch_root).as_posix()
        about_triton = "triton" in Path(name).name.lower()
        for item in python_messages(sources[path], name, exceptions):
            if item["form"].startswith("launcher ") or item["form"].startswith("assert (no message"):
                continue
            text = render(item["parts"])
            if not (about_triton or "triton" in text.lower()):
                continue
            found.setdefault(("inductor", text, name), {"kind": "inductor", "text": text, "form": item["form"],
                                                        "file": name, "line": item["line"]})
    return found


# -- the whole catalogue --------------------------------------------------------------------------

def fetch_wheel(root: Path, version: str) -> Path:
    """The wheel of Triton ``version`` for this Python, downloaded once into .cache/catalogue."""
    from .fetch import FetchError, fetched_once

    try:
        folder = fetched_once(root / CACHE / f"triton-{version}", lambda target: [
            "download", "--quiet", "--no-deps", "--only-binary=:all:", "--dest", str(target), f"triton=={version}"],
            timeout=1800)
    except FetchError as error:
        raise CatalogueError(f"cannot download triton=={version}: {error}") from None
    wheels = sorted(folder.glob("triton-*.whl"))
    if len(wheels) != 1:
        raise CatalogueError(f"{folder} holds {len(wheels)} wheels, not one; delete the folder and run again")
    return wheels[0]


def template_id(kind: str, text: str, file: str | None) -> str:
    return "M" + hashlib.sha256(f"{kind}\x00{file}\x00{text}".encode()).hexdigest()[:10]


def _version_key(version: str) -> tuple:
    return tuple(int(x) for x in re.findall(r"\d+", version)[:3])


def assemble(wheels: dict[str, Path], torch_root: Path | None) -> dict:
    """The catalogue's templates, releases and provenance from the wheels (``version -> wheel``)."""
    releases = sorted(wheels, key=_version_key)
    merged: dict[tuple, dict] = {}
    provenance = []
    for version in releases:
        wheel = wheels[version]
        print(f"catalogue: reading {wheel.name}", file=sys.stderr, flush=True)
        provenance.append({"version": version, "wheel": wheel.name, "sha256": _sha256(wheel)})
        for key, item in read_wheel(wheel).items():
            entry = merged.setdefault(key, {**item, "releases": []})
            entry["releases"].append(version)
            entry["file"], entry["line"], entry["form"] = item["file"], item["line"], item["form"]  # newest wins
            if item.get("line") is not None:
                entry.setdefault("lines", {})[version] = item["line"]
    torch_version = None
    if torch_root is not None:
        torch_version = _torch_version(torch_root)
        for key, item in inductor_messages(torch_root).items():
            merged.setdefault(key, {**item, "releases": [f"torch {torch_version}"]})
    templates = []
    for (kind, text, file), item in merged.items():
        lines = item.pop("lines", None)
        if lines and len(set(lines.values())) > 1:
            item["lines"] = lines
        item["id"] = template_id(kind, text, file)
        if item.get("file") is None:
            item.pop("file", None)
        if item.get("line") is None:
            item.pop("line", None)
        templates.append(item)
    templates.sort(key=lambda t: (t["kind"], t.get("file") or "", t.get("line") or 0, t["text"]))
    return {"releases": releases, "wheels": provenance, "torch": torch_version, "templates": templates}


def _torch_version(torch_root: Path) -> str:
    version_file = torch_root / "version.py"
    if version_file.is_file():
        found = re.search(r"__version__\s*=\s*['\"]([^'\"]+)", version_file.read_text())
        if found:
            return found.group(1)
    return "unknown"


def to_columns(rows: list[dict], releases: list[str]) -> dict[str, list]:
    """The templates as one list per column (``messages.COLUMNS``): JSON of lists loads several times
    faster than JSON of 35,000 small objects. A release list becomes a bit mask over ``releases``."""
    from .messages import COLUMNS

    columns: dict[str, list] = {name: [] for name in COLUMNS}
    for row in rows:
        for name in COLUMNS:
            value = row.get(name)
            if name == "releases" and all(r in releases for r in value):
                value = sum(1 << releases.index(r) for r in value)
            columns[name].append(value)
    return columns


def index_and_map(catalogue: dict, root: Path = ROOT) -> None:
    """What is derived from the templates' texts: the word indexes ``messages.match`` looks templates
    up by, each template's entries, the counts."""
    from .messages import build_first_words, build_index

    catalogue["index"] = build_index(catalogue["templates"]["text"])
    catalogue["first_words"] = build_first_words(catalogue["templates"]["text"])
    map_entries(catalogue, root)
    catalogue["counts"] = counts(catalogue)


def map_entries(catalogue: dict, root: Path = ROOT) -> None:
    """Each template's ``entries``: the handbook entries whose claimed or real messages it matches."""
    from . import messages

    index = messages.Catalogue(catalogue)
    mapped = messages.entries_for(index, root)
    catalogue["templates"]["entries"] = [sorted(mapped.get(t, [])) or None for t in catalogue["templates"]["id"]]


def write_atomically(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as stream:
            stream.write(json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8"))
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def counts(catalogue: dict) -> dict:
    from .messages import Catalogue

    index = Catalogue(catalogue)
    per_kind: dict[str, int] = {}
    per_release: dict[str, int] = {}
    mapped_per_kind: dict[str, int] = {}
    for number in range(index.size):
        template = index.template(number)
        per_kind[template.kind] = per_kind.get(template.kind, 0) + 1
        if template.entries:
            mapped_per_kind[template.kind] = mapped_per_kind.get(template.kind, 0) + 1
        for release in template.releases:
            per_release[release] = per_release.get(release, 0) + 1
    return {"templates": index.size, "per_kind": per_kind, "per_release": per_release,
            "mapped_to_an_entry": sum(mapped_per_kind.values()), "mapped_per_kind": mapped_per_kind}


def build(root: Path, wheels: dict[str, Path], torch_root: Path | None, command: str) -> dict:
    started = time.monotonic()
    catalogue = assemble(wheels, torch_root)
    catalogue["templates"] = to_columns(catalogue["templates"], catalogue["releases"])
    index_and_map(catalogue, root)
    catalogue["generated_by"] = f"{COMMAND}; do not edit by hand"
    catalogue["provenance"] = {
        "command": command,
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "python": platform.python_version(),
        "source_trees": {v: SOURCE_TREE.format(version=v) for v in catalogue["releases"]},
        "wall_seconds": round(time.monotonic() - started, 1),
    }
    return catalogue


def read(root: Path = ROOT) -> dict:
    with gzip.open(root / DATA, "rb") as stream:
        return json.loads(stream.read())


def main(argv: list[str] | None = None, root: Path = ROOT) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description="rebuild data/messages/catalogue.json.gz from "
                                     "Triton's released wheels")
    parser.add_argument("--versions", help="comma-separated Triton versions (default: the version matrix's, the "
                                           "newest patch of each minor release from 3.2 on PyPI)")
    parser.add_argument("--wheels", type=Path, help="a folder of triton-<version>-*.whl files to read instead of "
                                                    "downloading")
    parser.add_argument("--torch", type=Path, help="torch's package folder (default: the installed torch); "
                                                   "'none' leaves Inductor out")
    parser.add_argument("--map-only", action="store_true", help="re-derive the indexes and which entries explain "
                                                                "each template, from the committed data; no download")
    parser.add_argument("--output", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    output = args.output or root / DATA
    command = " ".join([COMMAND, *(argv if argv is not None else sys.argv[1:])])
    try:
        if args.map_only:
            if not output.is_file():
                raise CatalogueError(f"{output} does not exist; run `{COMMAND}` first")
            with gzip.open(output, "rb") as stream:
                catalogue = json.loads(stream.read())
            index_and_map(catalogue, root)
            catalogue.setdefault("provenance", {})["entries_mapped"] = {
                "command": command, "date": datetime.now(timezone.utc).strftime("%Y-%m-%d")}
        else:
            if args.wheels:
                wheels = {}
                for wheel in sorted(args.wheels.glob("triton-*.whl")):
                    wheels[wheel.name.split("-")[1]] = wheel
                if not wheels:
                    raise CatalogueError(f"no triton-<version>-*.whl in {args.wheels}")
            else:
                if args.versions:
                    versions = [v.strip() for v in args.versions.split(",") if v.strip()]
                else:
                    from .matrix import MatrixError, releases_on_pypi
                    try:
                        versions = releases_on_pypi()
                    except MatrixError as error:
                        raise CatalogueError(str(error).replace("triton-faq matrix", COMMAND)) from None
                wheels = {version: fetch_wheel(root, version) for version in versions}
            if args.torch is not None and str(args.torch).lower() == "none":
                torch_root = None
            elif args.torch:
                torch_root = args.torch
            else:
                import importlib.util
                spec = importlib.util.find_spec("torch")
                if spec is None or not spec.submodule_search_locations:
                    raise CatalogueError("torch is not installed; pass --torch PATH or --torch none")
                torch_root = Path(list(spec.submodule_search_locations)[0])
            if torch_root is not None and not (torch_root / "_inductor").is_dir():
                raise CatalogueError(f"{torch_root} has no _inductor folder; pass torch's package folder")
            catalogue = build(root, wheels, torch_root, command)
    except (CatalogueError, zipfile.BadZipFile, OSError) as error:
        print(f"{COMMAND}: {error}\nnothing was written", file=sys.stderr)
        return 1
    write_atomically(output, catalogue)
    summary = catalogue["counts"]
    print(f"wrote {output.relative_to(root) if output.is_relative_to(root) else output}: {summary['templates']} "
          f"templates ({', '.join(f'{k} {v}' for k, v in sorted(summary['per_kind'].items()))}); "
          f"{summary['mapped_to_an_entry']} explained by an entry")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
