"""``triton-faq new <topic>/<question>``: the three files of a new entry, marked unfinished.

Every placeholder says ``TODO(new entry)``, so ``triton-faq check`` lists what is left, and the
scaffolded test fails until a real one replaces it: an unfinished entry never passes as done.
"""

from __future__ import annotations

import re
from pathlib import Path

from . import entries
from .check import UNFINISHED

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
---

# {{todo}}{h1}

## {short_heading} {{{{ #short-answer }}}}

{{todo}}{short}

## {pitfall_heading} {{{{ #pitfall }}}}

```python
--8<-- "{{snippet}}:pitfall"
```

## {fix_heading} {{{{ #fix }}}}

```python
--8<-- "{{snippet}}:fix"
```

## {run_heading} {{{{ #run-it }}}}

```bash
python {{snippet}}          # {prints}
pytest {{snippet}}          # {tests}
```

{run_note}
"""

TEXT = {
    "en": {
        "title": ": the question, as a reader would ask it", "description": ": the short answer in one sentence",
        "h1": ": the question", "short_heading": "Short answer", "short": ": two or three sentences.",
        "pitfall_heading": "The pitfall", "fix_heading": "The fix", "run_heading": "Run it yourself",
        "prints": "prints what it shows", "tests": "one test per claim",
        "run_note": "Without a GPU both run through Triton's interpreter. The buttons above (added when the site is\n"
                    "built) download the same code as one file or as a notebook.",
    },
    "zh": {
        "title": "：读者会怎么问这个问题", "description": "：一句话答案",
        "h1": "：问题", "short_heading": "一句话答案", "short": "：两三句话。",
        "pitfall_heading": "踩坑写法", "fix_heading": "修复方法", "run_heading": "自己跑一遍",
        "prints": "打印演示结果", "tests": "每条说法一个测试",
        "run_note": "没有 GPU 时两条命令都走 Triton 解释器。上面的按钮（构建网站时加上）可以把同样的代码下载为单个文件或 notebook。",
    },
}


SNIPPET = '''"""{id}: {todo} the question in one line."""

import torch

from triton_faq.backend import DEVICE, describe  # picks CUDA or the interpreter before Triton loads

import triton
import triton.language as tl
import pytest

from triton_faq.testing import assert_matches_float64, fresh_randn, poisoned


# --8<-- [start:pitfall]
# {todo}: the kernel that goes wrong
# --8<-- [end:pitfall]


# --8<-- [start:fix]
# {todo}: the kernel that is right
# --8<-- [end:fix]


def test_pitfall_goes_wrong_exactly_as_the_page_says():
    pytest.fail("{todo}: assert the exact wrong value or error text")


def test_fix_matches_float64_reference():
    pytest.fail("{todo}: compare with a float64 reference on fresh random inputs, output poisoned")


def main():
    print(describe())
    print("{todo}: print what the entry shows")


if __name__ == "__main__":
    main()
'''

INDEX = {
    "en": "---\ntitle: \"{todo}: topic title\"\ndescription: \"{todo}: what the topic covers\"\n---\n\n"
          "# {todo}: topic title\n\n<!-- entry-list: {topic} -->\n",
    "zh": "---\ntitle: \"{todo}：主题标题\"\ndescription: \"{todo}：主题涵盖什么\"\n---\n\n"
          "# {todo}：主题标题\n\n<!-- entry-list: {topic} -->\n",
}


def next_id(root: Path) -> str:
    numbers = [int(entry.id[2:]) for entry in entries.load(root)]
    return f"TP{max(numbers, default=0) + 1:03d}"


def new(name: str, root: Path = entries.ROOT) -> list[Path]:
    """Write the files of the entry ``topic/question``; return them. Refuses to overwrite."""
    if not NAME.match(name):
        raise ScaffoldError(f"'{name}' is not topic/question in kebab-case, e.g. garbage-values/masked-load-without-other")
    topic, question = name.split("/")
    snippet = entries.snippet_for(Path(topic, f"{question}.md"))
    files = {root / "docs" / lang / topic / f"{question}.md": PAGE.format(**TEXT[lang]) for lang in ("en", "zh")}
    files[root / snippet] = SNIPPET
    existing = [path for path in files if path.exists()]
    if existing:
        raise ScaffoldError(f"{existing[0].relative_to(root)} already exists; nothing was written")
    values = {"id": next_id(root), "snippet": snippet.as_posix(), "todo": UNFINISHED, "topic": topic}
    for lang in ("en", "zh"):
        index = root / "docs" / lang / topic / "index.md"
        if not index.exists():
            files[index] = INDEX[lang]
    for path, template in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(template.format(**values), encoding="utf-8")
    return sorted(path.relative_to(root) for path in files)
