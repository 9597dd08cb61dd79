"""``triton-faq new <topic>/<question>``: the files of a new entry in the v2 shape, marked unfinished.

Every placeholder says ``TODO(new entry)``, so ``triton-faq check`` lists what is left, and the
scaffolded test fails until a real one replaces it: an unfinished entry never passes as done.
"""

from __future__ import annotations

import re
from pathlib import Path

from . import handbook
from .handbook import proof_for, snippet_for
from .handbook.schema import UNFINISHED

NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*/[a-z0-9]+(-[a-z0-9]+)*$")


class ScaffoldError(ValueError):
    """A name or a situation the scaffold refuses; the message is one line for the user."""


# One skeleton for both languages, so their anchors, includes and fences cannot differ; only the
# prose comes from TEXT. Doubled braces survive the first format() for the second one.
PAGE = """---
id: {{id}}
title: "{{todo}}{title}"
description: "{{todo}}{description}"
snippet: {{snippet}}
symptoms:
  - "{{todo}}{symptoms}"
keywords: ["{{todo}}{keywords}"]
---

# {{todo}}{h1}

{{todo}}{answer}

??? info "{prelude_title}"
    ```python
    --8<-- "{{snippet}}:prelude"
    ```

```python
--8<-- "{{snippet}}:fix"
```

## {symptom_heading} {{{{ #symptom }}}}

{{todo}}{symptom}

## {why_heading} {{{{ #why }}}}

{{todo}}{why}

## {run_heading} {{{{ #run }}}}

```python
--8<-- "{{snippet}}:pitfall"
```

```python
>>> main()  # {{todo}}{session}
```

## {how_heading} {{{{ #how-we-know }}}}

??? success "{tests_title}"
    {{todo}}{tests}

## {run_it_heading} {{{{ #run-it }}}}

```bash
python {{name}}.py    # {prints}
```

{run_note}
"""

TEXT = {
    "en": {
        "title": ": the question, as a reader would ask it", "description": ": the answer in one sentence",
        "symptoms": ": what the reader sees, as they would type it into a search box",
        "keywords": ": words and API names a reader would search for",
        "h1": ": the question, or the error message",
        "prelude_title": "The file before the fix: imports, interpreter switch, `DEVICE`", "answer": ": the answer in a sentence or two; the fix below.",
        "symptom_heading": "Symptom", "symptom": ": what the reader sees.",
        "why_heading": "Why", "why": ": why it happens, briefly.",
        "run_heading": "The pitfall and the fix, run", "session": ": sessions that show the wrong and the right value",
        "how_heading": "How we know", "tests_title": "The tests (one per claim)",
        "tests": ": name each test of the proof in a sentence.",
        "run_it_heading": "Run it yourself", "prints": "the pitfall's result next to the fix's",
        "run_note": "Without a GPU it runs through Triton's interpreter. The proof lives in\n`{proof}`; `pytest` runs it.",
    },
    "zh": {
        "title": "：读者会怎么问这个问题", "description": "：一句话说清答案",
        "symptoms": "：读者看到的现象，按他们在搜索框里会输入的说法写",
        "keywords": "：读者会搜索的词和 API 名称",
        "h1": "：问题，或报错信息",
        "prelude_title": "文件中修复之前的部分：导入、解释器开关、`DEVICE`", "answer": "：用一两句话给出答案，下面是修复代码。",
        "symptom_heading": "症状", "symptom": "：读者看到了什么。",
        "why_heading": "原因", "why": "：简要说明原因。",
        "run_heading": "踩坑写法与修复，实际运行",
        "session": ": sessions that show the wrong and the right value",  # inside a code fence: the same in every language
        "how_heading": "我们如何确认", "tests_title": "测试（每条说法一个）",
        "tests": "：用一句话点名证明文件里的每个测试。",
        "run_it_heading": "自己跑一遍", "prints": "打印踩坑写法和修复后的结果",
        "run_note": "没有 GPU 时走 Triton 解释器。证明在 `{proof}` 里，用 `pytest` 运行。",
    },
}


SNIPPET = '''"""{id}: {todo} the question in one line.

Run it: python {name}.py  (without a GPU, Triton's interpreter runs it on the CPU)
"""

# --8<-- [start:prelude]
import os

import torch

if not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"  # no GPU: Triton's interpreter runs the kernels on the CPU

import triton
import triton.language as tl

DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"
# --8<-- [end:prelude]


# --8<-- [start:pitfall]
# {todo}: the kernel that goes wrong
# --8<-- [end:pitfall]


# --8<-- [start:fix]
# {todo}: the kernel that is right; a comment marks the line that fixes it
# --8<-- [end:fix]


def main():
    print("{todo}: print the pitfall's wrong result next to the fix's right one")


if __name__ == "__main__":
    main()
'''

PROOF = '''"""{id}'s claims, one test each: {snippet}."""

import pytest

from snippets.{package} import {name} as entry
from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned


def test_pitfall_goes_wrong_exactly_as_the_page_says():
    pytest.fail("{todo}: assert the exact wrong value or error text")


def test_fix_matches_float64_reference():
    pytest.fail("{todo}: compare with a float64 reference on fresh random inputs, output poisoned")
'''

INDEX = {
    "en": "---\ntitle: \"{todo}: topic title\"\ndescription: \"{todo}: what the topic covers\"\n---\n\n"
          "# {todo}: topic title\n\n<!-- entry-list: {topic} -->\n",
    "zh": "---\ntitle: \"{todo}：主题标题\"\ndescription: \"{todo}：主题涵盖什么\"\n---\n\n"
          "# {todo}：主题标题\n\n<!-- entry-list: {topic} -->\n",
}


def next_id(root: Path) -> str:
    numbers = [int(entry.id[2:]) for entry in handbook.load(root).entries]
    return f"TP{max(numbers, default=0) + 1:03d}"


def new(name: str, root: Path = handbook.ROOT) -> list[Path]:
    """Write the files of the entry ``topic/question``; return them. Refuses to overwrite."""
    if not NAME.match(name):
        raise ScaffoldError(f"'{name}' is not topic/question in kebab-case, e.g. garbage-values/masked-load-without-other")
    topic, question = name.split("/")
    site = handbook.load_site(root)
    untranslated = [language for language in site.languages if language not in TEXT]
    if untranslated:
        raise ScaffoldError(f"the scaffold has no page template in {', '.join(untranslated)} "
                            "(triton_faq/scaffold.py, TEXT and INDEX)")
    snippet = snippet_for(name)
    files = {site.page_file(name, language): PAGE.format(**TEXT[language]) for language in site.languages}
    files[site.root / snippet] = SNIPPET
    files[site.root / proof_for(snippet)] = PROOF
    existing = [path for path in files if path.exists()]
    if existing:
        raise ScaffoldError(f"{existing[0].relative_to(site.root)} already exists; nothing was written")
    values = {"id": next_id(root), "snippet": snippet.as_posix(), "todo": UNFINISHED, "topic": topic,
              "name": snippet.stem, "package": snippet.parent.name, "proof": proof_for(snippet).as_posix()}
    for language in site.languages:
        index = site.page_file(f"{topic}/index", language)
        if not index.exists():
            files[index] = INDEX[language]
    for path, template in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(template.format(**values), encoding="utf-8")
    return sorted(path.relative_to(site.root) for path in files)
