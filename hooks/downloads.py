"""Offer every entry's reader's file as a download and as a notebook with the outputs of a real run.

For the entry whose reader's file is ``snippets/<topic>/<name>.py``:

* ``downloads/<topic>/<name>.py``: that file, byte for byte;
* ``notebooks/<topic>/<name>.ipynb`` (``zh/notebooks/...`` in Chinese): the same code in cells, with
  the outputs of a run on Triton's interpreter (``triton_faq.download.run_alone``: outside the
  repository, without the handbook's tooling, cached by content), rendered as a page by
  mkdocs-jupyter, with its ``.ipynb`` beside it. Both languages get the same notebook (its first
  cell speaks both), so mkdocs-jupyter converts it once and takes the second from its cache.

The entry page gets a button for each under its ``{ #run-it }`` heading; the notebook page gets a
download button and a link back. mkdocs-jupyter inlines its stylesheet (~575 KB) into every
notebook page; it is moved to one shared file, ``assets/notebook.css``, that each links instead.
Nothing is written to docs/: the notebooks live in a temporary folder for the length of the build.
"""

from __future__ import annotations

import logging
import posixpath
import re
import tempfile
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.utils import get_relative_url

from triton_faq import download, interface
from triton_faq.entries import load
from triton_faq.pages import RUN_IT, parse

LANGUAGES = ("en", "zh")
_folder = tempfile.TemporaryDirectory(prefix="triton-faq-notebooks-")
CACHE = Path(tempfile.gettempdir(), "triton-faq-notebook-cache")  # outside the repository; keyed by content
logging.getLogger("mkdocs.mkdocs-jupyter").setLevel(logging.WARNING)  # a line per notebook otherwise
logging.getLogger("mkdocs.plugins.mkdocs_jupyter").setLevel(logging.WARNING)
_generated: dict[str, tuple[File, File]] = {}  # entry page src_uri -> (script, notebook)
_notebooks: dict[str, tuple[File, str]] = {}  # notebook src_uri -> (entry page, language)


def page_url(config, language: str, entry) -> str:
    """Where a reader finds the entry: its page on the site if the site has a URL, else its source."""
    if config.site_url:
        return config.site_url.rstrip("/") + ("/" if language == "en" else f"/{language}/") + entry.name + "/"
    return f"{config.repo_url.rstrip('/')}/blob/main/docs/{language}/{entry.name}.md"


def heading(entry, titles: dict[str, str], urls: dict[str, str]) -> str:
    """The notebook's first cell, in both languages."""
    lines = [f"# {entry.id} · {titles['en']}", "", f"**{titles['zh']}**", ""]
    lines += [" · ".join(f"{interface.text(language, 'downloads.entry')}: <{urls[language]}>"
                         for language in LANGUAGES), ""]
    lines += [interface.text(language, "downloads.intro") + "\n" for language in LANGUAGES]
    return "\n".join(lines)


def buttons(language: str, page_src_uri: str, script: File, notebook: File) -> str:
    """The Markdown put under the "Run it yourself" heading."""
    here = posixpath.dirname(page_src_uri)
    name = posixpath.basename(script.src_uri)
    return (f"[{interface.text(language, 'downloads.script', name=name)}]({posixpath.relpath(script.src_uri, here)})"
            f'{{ .md-button download="{name}" }}\n'
            f"[{interface.text(language, 'downloads.notebook')}]({posixpath.relpath(notebook.src_uri, here)})"
            f"{{ .md-button }}\n\n"
            f"{interface.text(language, 'downloads.needs')}\n")


def insert(markdown: str, addition: str, where: str) -> str:
    heading = RUN_IT.search(markdown)
    if heading is None:
        raise ValueError(f"{where}: an entry page needs a '{{ #run-it }}' heading for its download buttons")
    return markdown[: heading.end()] + "\n\n" + addition + markdown[heading.end():]


def on_config(config):
    config.plugins["mkdocs-jupyter"].config["cache_dir"] = str(CACHE)


@event_priority(-150)  # after mkdocs-static-i18n (-100) has kept this build's language only
def on_files(files: Files, config):
    root = Path(config["config_file_path"]).parent
    jupyter = config.plugins["mkdocs-jupyter"]
    entries = []
    for entry in load(root):
        pages = {language: files.get_file_from_path(f"{language}/{entry.name}.md") for language in LANGUAGES}
        pages = {language: page for language, page in pages.items() if page is not None}
        if pages:
            entries.append((entry, pages))
    runs = download.run_alone(root, [entry.snippet for entry, _ in entries], "interpreter")
    for entry, pages in entries:
        snippet = entry.snippet.as_posix()
        source = (root / snippet).read_bytes()
        relative = entry.snippet.relative_to("snippets").with_suffix("").as_posix()
        titles = {language: parse(root / "docs" / language / f"{entry.name}.md").front_matter["title"]
                  for language in LANGUAGES}
        urls = {language: page_url(config, language, entry) for language in LANGUAGES}
        script = File.generated(config, f"downloads/{relative}.py", content=source)
        files.append(script)
        text = download.notebook_json(source.decode("utf-8"), heading(entry, titles, urls), runs[str(entry.snippet)])
        for language, page in pages.items():
            prefix = f"{language}/" if page.dest_uri.startswith(f"{language}/") else ""
            src_uri = f"{prefix}notebooks/{relative}.ipynb"
            path = Path(_folder.name, src_uri)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            # a real file in the temporary folder (not File.generated): mkdocs-jupyter reads it from its src_dir
            generated = File(src_uri, _folder.name, config.site_dir, config.use_directory_urls,
                             inclusion=InclusionLevel.NOT_IN_NAV)
            (notebook,) = jupyter.on_files(Files([generated]), config)  # a page, as mkdocs-jupyter makes them
            files.append(notebook)
            _generated[page.src_uri] = (script, notebook)
            _notebooks[src_uri] = (page, language)
    return files


@event_priority(100)  # before the other hooks: a notebook's "Markdown" is its JSON, which they must not read
def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri in _notebooks:
        page.meta["search"] = {"exclude": True}  # its code is on the entry page already
        return ""  # mkdocs-jupyter renders the notebook itself
    if page.file.src_uri not in _generated:
        return markdown
    script, notebook = _generated[page.file.src_uri]
    language = page.file.src_uri.split("/", 1)[0]
    return insert(markdown, buttons(language, page.file.src_uri, script, notebook), page.file.src_uri)


def on_page_content(html, page, config, files):
    if page.file.src_uri not in _notebooks:
        return html
    entry, language = _notebooks[page.file.src_uri]
    name = posixpath.basename(page.file.src_uri)
    return (f'<p><a class="md-button" href="{name}" download="{name}">'
            f'{interface.text(language, "downloads.download_notebook", name=name)}</a> '
            f'<a class="md-button" href="{get_relative_url(entry.url, page.file.url)}">'
            f'{interface.text(language, "downloads.back")}</a></p>\n'
            + html)


NOTEBOOK_CSS = "assets/notebook.css"
# mkdocs-jupyter's stylesheets, each inlined as one block: Pygments' (a few KB), its index.css
# (~575 KB) and its theme-*.css (~10 KB), one after the other.
STYLE_BLOCKS = re.compile(r'<style type="text/css">.*?</style>(?:\s*<style type="text/css">.*?</style>)*\n?',
                          re.DOTALL)
STYLE = re.compile(r'<style type="text/css">(?P<css>.*?)</style>', re.DOTALL)
_stylesheet: dict[str, str] = {}  # where the shared stylesheet was written -> its CSS


def on_post_page(output, page, config):
    """Put a notebook page's inlined stylesheets in the shared file and link that instead."""
    if page.file.src_uri not in _notebooks:
        return output
    blocks = max(STYLE_BLOCKS.finditer(output), key=lambda match: len(match[0]), default=None)
    if blocks is None or len(blocks[0]) < 100_000:
        raise PluginError(f"{page.file.src_uri}: mkdocs-jupyter's inlined stylesheet was not found; "
                          "hooks/downloads.py expects it as <style> blocks in the notebook's HTML")
    css = "\n".join(match["css"].strip() for match in STYLE.finditer(blocks[0])) + "\n"
    path = Path(config.site_dir, NOTEBOOK_CSS)
    written = _stylesheet.get(str(path))
    if written is not None and written != css and path.is_file():
        raise PluginError(f"{page.file.src_uri}: its notebook stylesheet differs from other notebook pages'")
    if written != css or not path.is_file():  # once a build (`mkdocs serve` may have cleaned the folder)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(css, encoding="utf-8")
        _stylesheet[str(path)] = css
    link = f'<link rel="stylesheet" href="{get_relative_url(NOTEBOOK_CSS, page.url)}">\n'
    return output[: blocks.start()] + link + output[blocks.end():]
