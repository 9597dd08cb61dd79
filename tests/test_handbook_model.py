"""One model of the handbook: only ``triton_faq/handbook/`` knows where pages live, which languages
there are and what a page's URL is (in the manner of Rust's tidy: the rule is a test).

Outside the model, product code (the tooling, the site's hooks, the checked interpreter, the
scripts under tooling/, the root conftest) may not:

* name the docs folder or build a ``docs/<language>`` path;
* write the site's URL, or read ``site_url``/``docs_dir`` from MkDocs' configuration;
* use a language code as a value. A per-language table (a dict whose keys are language codes,
  such as ``ui_text.STRINGS``) is allowed; its languages must be the site's.
"""

import ast
import re
from pathlib import Path

import pytest

from conftest import ROOT
from triton_faq import handbook
from triton_faq.handbook import schema

SITE = handbook.load_site(ROOT)
MODEL = ROOT / "triton_faq" / "handbook"
PRODUCT = sorted(
    path for pattern in ("triton_faq/**/*.py", "hooks/*.py", "triton_checked/**/*.py", "tooling/*.py", "conftest.py")
    for path in ROOT.glob(pattern)
    if MODEL not in path.parents and "tests" not in path.relative_to(ROOT).parts)
CONFIG_KEYS = {"site_url", "docs_dir"}


def violations(source: str, site: handbook.Site = SITE) -> list[str]:
    """Every place in ``source`` that knows what only the model may know, as 'line: what'."""
    tree = ast.parse(source)
    parent = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    table_keys = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
            if keys and set(keys) & set(site.languages):
                table_keys.update(id(k) for k in node.keys)
    docs = site.docs_dir.name
    language_path = re.compile(r"(^|/)" + re.escape(docs) + r"/(" + "|".join(map(re.escape, site.languages)) + r")(/|$)")
    host = site.url.split("://", 1)[-1].rstrip("/")
    found = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            value = node.value
            builds_path = isinstance(parent.get(id(node)), (ast.BinOp, ast.Call, ast.JoinedStr))
            if (value == docs and builds_path) or language_path.search(value):
                found.append(f"{line}: names the pages' folder ({value!r})")
            elif host and host in value:
                found.append(f"{line}: writes the site's URL ({value!r})")
            elif value in site.languages and id(node) not in table_keys:
                found.append(f"{line}: uses the language code {value!r} as a value")
        elif isinstance(node, ast.Attribute) and node.attr in CONFIG_KEYS and \
                isinstance(node.value, ast.Name) and node.value.id == "config":
            found.append(f"{line}: reads MkDocs' {node.attr}")
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value in CONFIG_KEYS:
            found.append(f"{line}: reads MkDocs' {node.slice.value}")
    return sorted(found, key=lambda item: int(item.split(":", 1)[0]))


@pytest.mark.parametrize("path", PRODUCT, ids=[str(path.relative_to(ROOT)) for path in PRODUCT])
def test_only_the_model_knows_where_pages_live_and_which_languages_there_are(path):
    found = violations(path.read_text(encoding="utf-8"))
    assert not found, f"{path.relative_to(ROOT)}: read it through triton_faq.handbook instead:\n" + "\n".join(found)


@pytest.mark.parametrize("planted", [
    'page = root / "docs" / "en" / "garbage-values" / "x.md"',
    'page = Path("docs/en/garbage-values/x.md")',
    'url = "https://triton-faq.github.io/triton-faq/zh/lint/"',
    'if language == "zh":\n    pass',
    'languages = ("en", "zh")',
    'url = config.site_url + name',
    'docs = Path(config["docs_dir"])',
])
def test_the_guard_fails_on_a_planted_path_url_or_language(planted):
    assert violations("from pathlib import Path\n" + planted + "\n")


def test_a_per_language_table_is_allowed():
    assert violations('STRINGS = {"en": {"a": "A"}, "zh": {"a": "甲"}}\n') == []


def test_the_guard_reads_every_product_module():
    names = {path.relative_to(ROOT).as_posix() for path in PRODUCT}
    assert {"triton_faq/explain.py", "triton_faq/validate.py", "triton_faq/parity.py", "triton_faq/scaffold.py",
            "triton_faq/cli.py", "hooks/search.py", "conftest.py"} <= names
    assert not any(name.startswith("triton_faq/handbook/") for name in names)


def test_every_per_language_table_speaks_only_the_sites_languages():
    from triton_faq import ui_text

    assert tuple(ui_text.STRINGS) == SITE.languages
    for table in (schema.VERDICTS, schema.GLOSSARY, schema.FIRST_USE):
        assert set(table) <= set(SITE.languages)
    assert set(schema.VERDICTS) == set(SITE.languages)


def test_one_explain_parses_each_page_once_at_most():
    import subprocess
    import sys

    program = (
        "import collections, sys\n"
        "import triton_faq.handbook.page as page\n"
        "parsed = collections.Counter()\n"
        "original = page._parse\n"
        "def counting(path, text):\n"
        "    parsed[str(path)] += 1\n"
        "    return original(path, text)\n"
        "page._parse = counting\n"
        "from triton_faq.explain import explain\n"
        "explain('results change from run to run', 'en')\n"
        "explain('TP001', 'zh')\n"
        "print(len(parsed), max(parsed.values()))\n")
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    pages, most = map(int, done.stdout.split())
    assert most == 1 and pages == sum(len(SITE.pages(language)) for language in SITE.languages)


def test_contributing_states_the_schema():
    """CONTRIBUTING (both languages) names every front matter key, every per-language key as such,
    every required section and every snippet section."""
    for name in ("CONTRIBUTING.md", "CONTRIBUTING.zh.md"):
        text = (ROOT / name).read_text(encoding="utf-8")
        for key in schema.FRONT_MATTER:
            assert f"`{key}`" in text, f"{name} does not describe the front matter key {key!r}"
        per_language = re.search(r"<!-- per-language-keys: (.*?) -->", text)
        assert per_language, f"{name} does not say which keys are written per language"
        assert set(per_language[1].split()) == schema.PER_LANGUAGE_KEYS, name
        for anchor in schema.REQUIRED_SECTIONS:
            assert f"#{anchor}" in text, f"{name} does not name the required section {anchor!r}"
        for section in schema.SNIPPET_SECTIONS:
            assert f"`{section}`" in text, f"{name} does not name the reader's file's section {section!r}"


def test_every_topic_has_its_section_name_translated():
    from triton_faq.validate import topic_problems

    assert topic_problems(ROOT) == []


def test_a_topic_without_a_translated_section_name_is_reported(site_copy):
    (site_copy / "docs" / "en" / "new-topic").mkdir()
    problems = [p for p in __import__("triton_faq.validate", fromlist=["x"]).topic_problems(site_copy)]
    assert problems == [f"mkdocs.yml: the i18n language {language!r} has no nav_translations for 'New topic' "
                        f"(the topic folder new-topic/): add 'New topic: <its name>'" for language in SITE.translations]


def test_what_an_installed_copy_reads_is_what_mkdocs_yml_says():
    """triton_faq/handbook/published.json (for an installed copy without mkdocs.yml) equals mkdocs.yml;
    regenerate: python -c 'from triton_faq.handbook import site; ...' as its docstring says."""
    import json

    from triton_faq.handbook.site import PUBLISHED, published

    assert json.loads(PUBLISHED.read_text(encoding="utf-8")) == published(SITE), (
        "mkdocs.yml changed: write published(load_site(ROOT)) to triton_faq/handbook/published.json")


def test_front_matter_read_through_libyaml_has_the_values_pyyaml_reads():
    import yaml

    from triton_faq.handbook.page import load_yaml

    pages = sorted(SITE.docs_dir.rglob("*.md"))
    texts = [t[4:t.find("\n---\n", 4)] for t in (p.read_text(encoding="utf-8") for p in pages) if t.startswith("---\n")]
    assert len(texts) > 100
    assert [load_yaml(t) for t in texts] == [yaml.safe_load(t) for t in texts]


@pytest.mark.parametrize("front_matter, said", [
    ("id: TP001\ntitle: [one, two\n", ["front matter is not valid YAML", "title: [one, two", "^"]),
    ("- a list\n", ["front matter must be a mapping of keys to values"]),
])
def test_a_malformed_front_matter_is_named_with_its_page_and_line(tmp_path, front_matter, said):
    from triton_faq.handbook.page import PageError, parse

    page = tmp_path / "broken.md"
    page.write_text(f"---\n{front_matter}---\n# Title\n", encoding="utf-8")
    with pytest.raises(PageError) as raised:
        parse(page)
    assert str(raised.value).startswith(f"{page}:1: ")
    for words in said:
        assert words in str(raised.value)


def test_a_front_matter_never_closed_is_named(tmp_path):
    from triton_faq.handbook.page import PageError, parse

    page = tmp_path / "open.md"
    page.write_text("---\nid: TP001\n# Title\n", encoding="utf-8")
    with pytest.raises(PageError, match="front matter opened with '---' is never closed"):
        parse(page)
