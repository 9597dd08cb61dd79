"""What an entry page is made of: its front matter, its sections and the markers hooks fill.

This is the one statement of the page format. ``triton-faq check`` enforces it, parity compares
it between languages, the scaffold writes it, CONTRIBUTING.md describes it (a test compares the
two), and the hooks find their markers through :func:`marker`.
"""

from __future__ import annotations

import re

# -- front matter -------------------------------------------------------------------------------

FRONT_MATTER: dict[str, tuple[type, bool, bool, str]] = {
    # key: (type, required, written in each language, what it holds)
    "id": (str, True, False, "TP and three digits, the next free one (`triton-faq new` picks it)"),
    "title": (str, True, True, "the question or the error message, as a reader would search for it"),
    "description": (str, True, True, "the answer in one or two sentences: search results and link previews show it"),
    "snippet": (str, True, False, "the reader's file, `snippets/<topic>/<question>.py`"),
    "errors": (list, False, False, "the error messages the entry answers, each reproduced by its proof"),
    "symptoms": (list, True, True, "what a reader sees, as they would describe it, in the page's language"),
    "keywords": (list, True, True, "the words a reader would type, in the page's language"),
}
ENTRY_KEYS = {key: kind for key, (kind, _, _, _) in FRONT_MATTER.items()}
REQUIRED_KEYS = tuple(key for key, (_, required, _, _) in FRONT_MATTER.items() if required)
PER_LANGUAGE_KEYS = frozenset(key for key, (_, _, per_language, _) in FRONT_MATTER.items() if per_language)
"""Front matter keys written in each language; all other keys must be equal in every language."""
ID = re.compile(r"^TP\d{3}$")

# one claimed error under ``errors:``
ERROR_KEYS = {"message", "fingerprint", "where", "backend", "reproduce"}
WHERE = ("compile", "launch", "interpreter", "runtime", "install")
BACKENDS = ("any", "interpreter", "cuda")

# -- sections -----------------------------------------------------------------------------------

REQUIRED_SECTIONS = ("symptom", "why", "run", "how-we-know", "run-it")
"""The ``## ... { #anchor }`` sections every entry page has, in both languages."""
CLAIMS_SECTION = "claims"
FIRST_SCREEN = (1280, 800)  # the browser window (pixels) an entry's title, answer and fix fit in, unscrolled


def section_heading(anchor: str) -> re.Pattern:
    """The level-2 heading of section ``anchor`` in a page's Markdown."""
    return re.compile(r"^## .*\{[ \t]*#" + re.escape(anchor) + r"[ \t]*\}[ \t]*$", re.MULTILINE)


RUN_IT = re.compile(r"^#{2,6} .*\{[ \t]*#run-it[ \t]*\}[ \t]*$", re.MULTILINE)  # every entry's "Run it yourself"

# -- markers of generated content ---------------------------------------------------------------

MARKERS: dict[str, str | None] = {
    # marker: what its argument names (None: it takes none)
    "gpu-data": r"[A-Za-z0-9_-]+",  # a table of the entry's GPU data (hooks/gpu_data.py)
    "entry-list": r"[a-z0-9-]+",  # optional: a topic; every entry, by topic (hooks/entry_list.py)
    "gpu-test-runs": None,  # the test runs on GPUs (hooks/gpu_test_runs.py)
    "error-index": None,  # every claimed message (hooks/error_index.py)
    "checked-report": r"[A-Za-z_][A-Za-z0-9_]*",  # a function of the proof (hooks/checked_report.py)
    "lint-rules": None,  # the lint rules (hooks/lint_rules.py)
    "lint-precision": None,  # the lint rules' measured precision (hooks/lint_rules.py)
    "version-matrix": r"[a-z]+",  # the checked interpreter's matrix (hooks/version_matrix.py)
}
OPTIONAL_ARGUMENT = frozenset({"entry-list"})


def marker(name: str) -> re.Pattern:
    """The HTML comment hooks replace: ``<!-- gpu-data: NAME -->`` (group ``argument``)."""
    argument = MARKERS[name]
    if argument is None:
        return re.compile(r"<!--\s*" + re.escape(name) + r"\s*-->")
    tail = r"(?::\s*(?P<argument>" + argument + r"))" + ("?" if name in OPTIONAL_ARGUMENT else "")
    return re.compile(r"<!--\s*" + re.escape(name) + tail + r"\s*-->")


ANY_MARKER = re.compile(r"<!--\s*(?P<marker>(?:" + "|".join(re.escape(name) for name in MARKERS) + r")\b[^>]*?)\s*-->")

# -- claim blocks -------------------------------------------------------------------------------

CLAIM = re.compile(r'^\?\?\?\+? quote "(?P<title>[^"]*)"')
VERDICTS = {  # a claim block's title starts with one of these; the third (it depends) must say on what
    "en": ("Holds", "False", "Depends on ", "Not reproduced"),
    "zh": ("成立", "不成立", "取决于", "未能复现"),
}
DEPENDS = {language: labels[2].strip() for language, labels in VERDICTS.items()}

# -- the languages' scripts and words ------------------------------------------------------------

SCRIPTS = {  # per language: the characters that say a text is written in it (explain answers in it)
    "zh": r"[\u3400-\u9fff\uf900-\ufaff]",
}

GLOSSARY = {  # per language: preferred term -> the spellings and calques its pages avoid
    "zh": {
        "掩码": ("遮罩", "掩膜", "屏蔽码"),
        "步长": ("跨距", "跨步", "步幅"),
        "共享内存": ("共享存储器", "共享記憶體"),
        "寄存器溢出": ("寄存器溢写", "寄存器泄漏"),
        "越界": ("超界", "出界"),
        "归约": ("规约",),
        "用 NaN 预填充": ("下毒", "投毒"),
        "每次重新生成的随机数据": ("新鲜的随机", "新鲜随机"),
        "简短回答": ("一句话答案",),
        "段错误": ("光秃秃的段错误",),
        "相邻元素的值被改写": ("邻居的值变了",),
        "正在执行": ("在路上",),
    },
}
FIRST_USE = {  # per language: the first use of each term in a page's prose gives the English in brackets
    "zh": {"掩码": "mask", "步长": "stride", "归约": "reduction", "启动": "launch", "共享内存": "shared memory",
           "寄存器溢出": "register spill", "越界": "out of bounds"},
}

# -- the reader's file --------------------------------------------------------------------------

SNIPPET_SECTIONS = ("prelude", "pitfall", "fix")
PRELUDE = """import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl
"""
UNFINISHED = "TODO(new entry)"
