"""Offer every entry's reader's file as a download and as a notebook with the outputs of a real run.

For the entry whose reader's file is ``snippets/<topic>/<name>.py``:

* ``downloads/<topic>/<name>.py``: that file, byte for byte;
* ``notebooks/<topic>/<name>.ipynb`` (``zh/notebooks/...`` in Chinese): the same code in cells, with
  the outputs of a run on Triton's interpreter (``triton_faq.download.run_alone``: outside the
  repository, without the handbook's tooling, cached by content). Both languages get the same
  notebook (its first cell speaks both);
* ``notebooks/<topic>/<name>/``: a page that shows the notebook, cell by cell with each cell's output,
  in the reader's language, with a button to download it and a link back to the entry. It is
  written as Markdown and built like every page (no notebook converter: converting 59 notebooks
  took most of a build), and left out of search (its code is on the entry page already).

The entry page gets a button for each under its ``{ #run-it }`` heading. Nothing is written to
docs/: the generated files exist for the length of the build.
"""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files, InclusionLevel

from triton_faq import download, handbook, ui_text
from triton_faq.handbook.schema import RUN_IT
_generated: dict[str, tuple[File, File]] = {}  # entry page src_uri -> (script, notebook page)
_notebooks: dict[str, str] = {}  # notebook page src_uri -> its Markdown


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


def fence(kind: str, text: str, title: str = "") -> str:
    """A fenced block, titled if ``title``, that no run of backticks inside ``text`` can close."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    label = f' title="{title}"' if title else ""
    return f"{ticks}{kind}{label}\n{text.rstrip(chr(10))}\n{ticks}\n"


def notebook_page(book: dict, language: str, title: str, ipynb: str, entry_page: str) -> str:
    """The Markdown of the page that shows ``book``: each code cell, then what it printed."""
    lines = [f"# {title}", "",
             f"[{ui_text.text(language, 'downloads.download_notebook', name=ipynb)}]({ipynb})"
             f'{{ .md-button download="{ipynb}" }} '
             f"[{ui_text.text(language, 'downloads.back')}]({entry_page}){{ .md-button }}", "",
             ui_text.text(language, "downloads.intro"), ""]
    for cell in book["cells"]:
        if cell["cell_type"] != "code":
            continue
        lines.append(fence("python", "".join(cell["source"])))
        for output in cell["outputs"]:
            label = "downloads.output" if output["name"] == "stdout" else "downloads.errors"
            lines.append(fence("text", output["text"], ui_text.text(language, label)))
    return "\n".join(lines)


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
    runs = download.run_alone(root, [entry.snippet for entry, _ in entries], "interpreter")
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
            here = posixpath.dirname(ipynb.src_uri)
            markdown = notebook_page(book, language, f"{entry.id} · {entry.view(language).heading}", posixpath.basename(ipynb.src_uri),
                                     posixpath.relpath(page.src_uri, here))
            shown = File.generated(config, f"{prefix}notebooks/{relative}.md", content=markdown,
                                   inclusion=InclusionLevel.NOT_IN_NAV)
            files.append(ipynb)
            files.append(shown)
            _generated[page.src_uri] = (script, shown)
            _notebooks[shown.src_uri] = markdown
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

