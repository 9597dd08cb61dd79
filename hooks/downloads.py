"""Offer every entry's reader's file as a download and as a notebook with the outputs of a real run.

For the entry whose reader's file is ``snippets/<topic>/<name>.py``:

* ``downloads/<topic>/<name>.py``: that file, byte for byte;
* ``notebooks/<topic>/<name>.ipynb`` (``zh/notebooks/...`` in Chinese): the same code in cells, with
  the outputs of a run on Triton's interpreter (``triton_faq.download.run_alone``: outside the
  repository, without the handbook's tooling), as ``triton-faq record`` recorded them in
  data/recorded-runs.json (run now only for a file whose recording is stale). Both languages get the same
  notebook (its first cell speaks both);
* ``notebooks/<topic>/<name>/``: the notebook rendered by mkdocs-jupyter (the stack's notebook
  renderer; mkdocs.yml lets it take only these notebooks), under a line in the reader's language with
  a button to download it and a link back to the entry; left out of search (its code is on the entry
  page already). mkdocs-jupyter keeps each conversion in ``.cache/mkdocs-jupyter``, keyed by the
  notebook's bytes and its options, so a notebook is converted again only when it changes. It reads
  notebooks from files: they are written under ``.cache/notebook-pages`` (rewritten only when they
  change).

The entry page gets a button for each under its ``{ #run-it }`` heading. Nothing is written to
docs/.

mkdocs-jupyter writes Jupyter's stylesheets into every notebook page it renders (590 KB, the same
on every page: a notebook page weighed 700 KB); each is written once instead, as
``assets/notebooks/<hash>.css``, and the pages link it, so a browser downloads it once for them all.
"""

from __future__ import annotations

import hashlib
import html
import json
import posixpath
import re
from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs_jupyter.plugin import NotebookFile

from triton_faq import download, handbook, recorded, ui_text
from triton_faq.handbook.schema import RUN_IT
_generated: dict[str, tuple[File, File]] = {}  # entry page src_uri -> (script, notebook page)
_notebooks: dict[str, tuple[str, str, str]] = {}  # notebook page src_uri -> (language, .ipynb, entry page), relative
PAGES = Path(".cache") / "notebook-pages"  # the notebooks mkdocs-jupyter renders, as files


def page_url(view: handbook.EntryView) -> str:
    """Where a reader finds the entry: its page on the site if the site has a URL, else its source."""
    site = view.entry.site
    return view.url if site.url else site.source_url(view.entry.name, view.language)


def heading(entry: handbook.Entry) -> str:
    """The notebook's first cell, in every language."""
    views = entry.views()
    lines = [f"# {entry.id} · {views[0].title}", "", *(f"**{view.title}**" for view in views[1:]), ""]
    lines += [" · ".join(f"{ui_text.text(view.language, 'downloads.entry')}: <{page_url(view)}>"
                         for view in views), ""]
    lines += [ui_text.text(view.language, "downloads.intro") + "\n" for view in views]
    return "\n".join(lines)


def buttons(language: str, page_src_uri: str, script: File, notebook: File) -> str:
    """The Markdown put under the "Run it yourself" heading."""
    here = posixpath.dirname(page_src_uri)
    name = posixpath.basename(script.src_uri)
    return (f"[{ui_text.text(language, 'downloads.script', name=name)}]({posixpath.relpath(script.src_uri, here)})"
            f'{{ .md-button download="{name}" }}\n'
            f"[{ui_text.text(language, 'downloads.notebook')}]({posixpath.relpath(notebook.src_uri, here)})"
            f"{{ .md-button }}\n\n"
            f"{ui_text.text(language, 'downloads.needs')}\n")


def insert(markdown: str, addition: str, where: str) -> str:
    heading = RUN_IT.search(markdown)
    if heading is None:
        raise ValueError(f"{where}: an entry page needs a '{{ #run-it }}' heading for its download buttons")
    return markdown[: heading.end()] + "\n\n" + addition + markdown[heading.end():]


def notebook_header(language: str, ipynb: str, entry_page: str) -> str:
    """The HTML above a rendered notebook: download it, back to the entry, what it is."""
    return (f'<p><a class="md-button" href="{html.escape(ipynb)}" download="{html.escape(posixpath.basename(ipynb))}">'
            f"{html.escape(ui_text.text(language, 'downloads.download_notebook', name=posixpath.basename(ipynb)))}</a> "
            f'<a class="md-button" href="{html.escape(entry_page)}">{html.escape(ui_text.text(language, "downloads.back"))}</a></p>\n'
            f"<p>{html.escape(ui_text.text(language, 'downloads.intro'))}</p>\n")


def write_if_changed(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` unless it holds it already (whole or not at all)."""
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)


@event_priority(-150)  # after mkdocs-static-i18n (-100) has kept this build's language only
def on_files(files: Files, config):
    root = Path(config["config_file_path"]).parent
    loaded = handbook.load(root)
    entries = []
    for entry in loaded.entries:
        pages = {language: files.get_file_from_path(loaded.site.src_uri(entry.name, language))
                 for language in loaded.site.languages}
        pages = {language: page for language, page in pages.items() if page is not None}
        if pages:
            entries.append((entry, pages))
    runs = {str(entry.snippet): recorded.reader_outputs(root, entry.snippet.as_posix()) for entry, _ in entries}
    unrecorded = [Path(name) for name, outputs in runs.items() if outputs is None]  # run now (needs torch)
    if unrecorded:
        runs.update(download.run_alone(root, unrecorded, "interpreter"))
    for entry, pages in entries:
        snippet = entry.snippet.as_posix()
        source = (root / snippet).read_bytes()
        relative = entry.snippet.relative_to("snippets").with_suffix("").as_posix()
        script = File.generated(config, f"downloads/{relative}.py", content=source)
        files.append(script)
        book = download.notebook(source.decode("utf-8"), heading(entry), runs[str(entry.snippet)])
        text = json.dumps(book, ensure_ascii=False, indent=1) + "\n"
        for language, page in pages.items():
            prefix = loaded.site.url_path("index", language)  # the default language has none
            ipynb = File.generated(config, f"{prefix}notebooks/{relative}.ipynb", content=text)
            src_uri = f"{prefix}notebooks/{relative}/index.ipynb"  # its page: notebooks/<topic>/<name>/
            write_if_changed(root / PAGES / src_uri, text)
            shown = NotebookFile(File(src_uri, str(root / PAGES), config["site_dir"], config["use_directory_urls"],
                                      inclusion=InclusionLevel.NOT_IN_NAV),
                                 config["use_directory_urls"], config["site_dir"])
            shown.inclusion = InclusionLevel.NOT_IN_NAV  # the wrapper answers for itself, not for the file it wraps
            _notebooks[shown.src_uri] = (language, posixpath.relpath(ipynb.src_uri, posixpath.dirname(src_uri)),
                                         posixpath.relpath(page.url, shown.url) + "/")
            files.append(ipynb)
            files.append(shown)
            _generated[page.src_uri] = (script, shown)
    return files


@event_priority(100)  # before the other hooks
def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri in _notebooks:
        page.meta["search"] = {"exclude": True}  # its code is on the entry page already
        return markdown
    if page.file.src_uri not in _generated:
        return markdown
    script, notebook = _generated[page.file.src_uri]
    language = page.file.src_uri.split("/", 1)[0]
    return insert(markdown, buttons(language, page.file.src_uri, script, notebook), page.file.src_uri)


def on_page_content(content, page, config, files):
    if page.file.src_uri not in _notebooks:
        return content
    return notebook_header(*_notebooks[page.file.src_uri]) + content


OPEN, CLOSE = '<style type="text/css">', "</style>"  # how mkdocs-jupyter inlines a stylesheet


def shared_stylesheets(output: str, dest_uri: str, site_dir: Path) -> str:
    """``output`` (the HTML of the page written at ``dest_uri`` under ``site_dir``) with each inline
    stylesheet replaced by a link to a file of its text, named by its hash and written once."""
    up = posixpath.relpath(".", posixpath.dirname(dest_uri))
    pieces, at = [], 0
    while (start := output.find(OPEN, at)) != -1 and (end := output.find(CLOSE, start)) != -1:
        css = output[start + len(OPEN):end].strip() + "\n"
        name = f"assets/notebooks/{hashlib.sha256(css.encode('utf-8')).hexdigest()[:16]}.css"
        if not (site_dir / name).is_file():  # named by its text: a file there holds it already
            write_if_changed(site_dir / name, css)
        pieces += [output[at:start], f'<link rel="stylesheet" href="{posixpath.join(up, name)}">']
        at = end + len(CLOSE)
    return "".join(pieces) + output[at:]


def on_post_page(output, page, config):
    if page.file.src_uri not in _notebooks:
        return output
    return shared_stylesheets(output, page.file.dest_uri, Path(config["site_dir"]))
