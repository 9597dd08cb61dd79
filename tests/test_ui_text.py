"""The interface strings: one module, the same keys and placeholders in every language, none left in the hooks."""

import importlib.util
import string

import pytest

from conftest import ROOT
from triton_faq import explain, ui_text, matrix

HOOKS = sorted((ROOT / "hooks").glob("*.py"))


def placeholders(template: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(template) if field is not None}


def test_every_language_has_the_same_keys():
    en, zh = ui_text.STRINGS["en"], ui_text.STRINGS["zh"]
    assert set(ui_text.STRINGS) == {"en", "zh"}
    assert sorted(set(en) - set(zh)) == [], "keys missing from zh"
    assert sorted(set(zh) - set(en)) == [], "keys missing from en"


@pytest.mark.parametrize("key", sorted(ui_text.STRINGS["en"]))
def test_every_string_has_the_same_placeholders_in_every_language(key):
    en, zh = ui_text.STRINGS["en"][key], ui_text.STRINGS["zh"].get(key, "")
    assert placeholders(en) == placeholders(zh), key
    assert all(field and field.isidentifier() for field in placeholders(en)), f"{key}: name every placeholder"


def test_text_formats_the_string():
    assert ui_text.text("en", "gpu_data.missing_title") == "Not yet measured"
    assert ui_text.text("zh", "downloads.script", name="a.py") == "下载 a.py"
    assert ui_text.text("en", "version_matrix.heading") == "On which Triton versions { #triton-versions }"


def test_an_unknown_key_or_language_names_both():
    with pytest.raises(KeyError, match=r"'no\.such\.key'.*'zh'"):
        ui_text.text("zh", "no.such.key")
    with pytest.raises(KeyError, match=r"'fr'.*'gpu_data\.caption'"):
        ui_text.text("fr", "gpu_data.caption")


def test_a_missing_value_names_the_key_the_language_and_the_placeholder():
    with pytest.raises(KeyError, match=r"'downloads\.script'.*'en'.*\{name\}"):
        ui_text.text("en", "downloads.script")


def _load(path):
    pytest.importorskip("mkdocs", reason="the site's hooks need mkdocs")
    spec = importlib.util.spec_from_file_location(f"interface_check_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _per_language(module) -> list[str]:
    return sorted(name for name, value in vars(module).items()
                  if isinstance(value, dict) and {"en", "zh"} <= set(value))


@pytest.mark.parametrize("path", HOOKS, ids=[path.stem for path in HOOKS])
def test_no_hook_keeps_its_own_per_language_strings(path):
    assert _per_language(_load(path)) == [], f"{path.name}: move these to triton_faq/ui_text.py"


@pytest.mark.parametrize("module", [explain, matrix], ids=["explain", "matrix"])
def test_explain_and_the_matrix_take_their_strings_from_the_interface(module):
    assert _per_language(module) == [], f"{module.__name__}: move these to triton_faq/ui_text.py"
