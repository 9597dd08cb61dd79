"""Where the handbook lives: its languages, its folder of pages and its public URL.

All of it is read from ``mkdocs.yml`` (``docs_dir``, ``site_url``, ``repo_url`` and the i18n
plugin's ``languages``), once per process while the file is unchanged. A page of the site is
named by its path inside a language's folder, without ``.md`` (``garbage-values/masked-load-
without-other``, ``lint``); everything else (its file in a language, its URL) comes from here.
"""

from __future__ import annotations

import functools
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath

import yaml


class SiteError(ValueError):
    """mkdocs.yml cannot be read as this handbook's configuration; the message says what to fix."""


class _Loader(yaml.SafeLoader):
    """mkdocs.yml may hold tags for MkDocs (``!ENV``, ``!!python/name:``): read them as plain values."""


_Loader.add_multi_constructor("", lambda loader, suffix, node: None)
_Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


@dataclass(frozen=True)
class Site:
    root: Path  # the checkout: mkdocs.yml's folder
    docs_dir: Path  # absolute
    languages: tuple[str, ...]  # the default language first
    url: str  # site_url, ending in "/"
    repo_url: str
    nav_translations: dict = field(compare=False, repr=False)  # {language: {English section: its name}}

    @property
    def default(self) -> str:
        return self.languages[0]

    @property
    def translations(self) -> tuple[str, ...]:
        """The languages other than the default one."""
        return self.languages[1:]

    def folder(self, language: str) -> Path:
        """The folder that holds the pages of ``language``."""
        self._known(language)
        return self.docs_dir / language

    def page_file(self, name: str, language: str) -> Path:
        """The Markdown file of page ``name`` (``topic/question``, ``lint``, ``topic/index``) in ``language``."""
        return self.folder(language) / f"{name}.md"

    def src_uri(self, name: str, language: str) -> str:
        """The page's path inside the docs folder, as MkDocs names its files (``zh/topic/question.md``)."""
        return self.page_file(name, language).relative_to(self.docs_dir).as_posix()

    def pages(self, language: str) -> list[Path]:
        """Every Markdown file of ``language``, sorted."""
        return sorted(self.folder(language).rglob("*.md"))

    def name_of(self, path: Path | str) -> tuple[str, str]:
        """(language, name) of a page file, absolute or relative to the root or to the docs folder,
        or of a page's ``src_uri`` in the build (``zh/garbage-values/x.md``)."""
        path = Path(path)
        for base in (self.docs_dir, self.docs_dir.relative_to(self.root) if self.docs_dir.is_relative_to(self.root)
                     else None):
            if base is not None and path.is_relative_to(base):
                path = path.relative_to(base)
                break
        parts = PurePosixPath(path.as_posix()).parts
        if parts and parts[0] not in self.languages and self.docs_dir.name in parts[:-1]:
            # a copy of the tree elsewhere: the part after its last folder named like the docs folder
            at = len(parts) - 1 - parts[::-1].index(self.docs_dir.name)
            parts = parts[at + 1:]
        if not parts or parts[0] not in self.languages:
            raise SiteError(f"{path} is not a page of the site: it is not under {self.docs_dir.name}/<language>/ "
                            f"with a language of mkdocs.yml ({', '.join(self.languages)})")
        return parts[0], PurePosixPath(*parts[1:]).with_suffix("").as_posix()

    def language_of(self, path: Path | str) -> str:
        """The language of a page file or ``src_uri`` (see :meth:`name_of`)."""
        return self.name_of(path)[0]

    def url_path(self, name: str, language: str) -> str:
        """The page's path on the site, from the site's root: ``zh/topic/question/``."""
        self._known(language)
        prefix = "" if language == self.default else f"{language}/"
        page = "" if name in ("index", "") else (name[: -len("/index")] if name.endswith("/index") else name) + "/"
        return prefix + page

    def url_of(self, name: str, language: str | None = None) -> str:
        """The full URL of page ``name`` in ``language`` (default: the default language)."""
        return self.url + self.url_path(name, language or self.default)

    def source_url(self, name: str, language: str) -> str:
        """The page's Markdown in the repository (when the site has no URL)."""
        docs = self.docs_dir.relative_to(self.root).as_posix() if self.docs_dir.is_relative_to(self.root) else "docs"
        return f"{self.repo_url.rstrip('/')}/blob/main/{docs}/{language}/{name}.md"

    def topics(self) -> list[str]:
        """The topics: the folders of the default language's pages."""
        return sorted(path.name for path in self.folder(self.default).iterdir() if path.is_dir())

    def _known(self, language: str) -> None:
        if language not in self.languages:
            raise SiteError(f"no language {language!r} in mkdocs.yml (it has {', '.join(self.languages)})")


def _signature(config: Path) -> tuple[int, int]:
    try:
        stat = config.stat()
    except FileNotFoundError:
        raise SiteError(f"{config} does not exist: run this from a checkout of the handbook") from None
    return stat.st_mtime_ns, stat.st_size


PUBLISHED = Path(__file__).with_name("published.json")
"""The site's languages and URLs for an installed copy without mkdocs.yml (``triton-faq lint`` in a
pre-commit hook links its entries): written from mkdocs.yml, and a test keeps the two equal."""
INSTALLED = Path(__file__).resolve().parent.parent.parent


def load_site(root: Path) -> Site:
    """The site of the checkout at ``root``, read from its mkdocs.yml (cached while the file is unchanged).
    An installed copy of the package, with no mkdocs.yml above it, reads what mkdocs.yml published."""
    root = Path(root).resolve()
    config = root / "mkdocs.yml"
    if not config.is_file() and root == INSTALLED and PUBLISHED.is_file():
        data = json.loads(PUBLISHED.read_text(encoding="utf-8"))
        return Site(root=root, docs_dir=root / data["docs_dir"], languages=tuple(data["languages"]), url=data["url"],
                    repo_url=data["repo_url"], nav_translations={})
    return _read(config, *_signature(config))


def published(site: Site) -> dict:
    """What an installed copy needs of the site (``PUBLISHED``)."""
    values = asdict(site)
    return {"docs_dir": site.docs_dir.relative_to(site.root).as_posix(), "languages": list(site.languages),
            "url": values["url"], "repo_url": values["repo_url"]}


@functools.lru_cache(maxsize=64)
def _read(config: Path, mtime_ns: int, size: int) -> Site:
    try:
        data = yaml.load(config.read_text(encoding="utf-8"), Loader=_Loader) or {}
    except yaml.YAMLError as error:
        raise SiteError(f"{config}: not valid YAML: {error}") from None
    i18n = next((plugin["i18n"] for plugin in data.get("plugins", []) if isinstance(plugin, dict) and "i18n" in plugin),
                None)
    if not i18n or not i18n.get("languages"):
        raise SiteError(f"{config}: the i18n plugin lists no languages")
    listed = i18n["languages"]
    default = [item["locale"] for item in listed if item.get("default")]
    if len(default) != 1:
        raise SiteError(f"{config}: exactly one i18n language must be the default (found {len(default)})")
    languages = tuple(default + [item["locale"] for item in listed if not item.get("default")])
    site_url = data.get("site_url") or ""
    if site_url and not site_url.endswith("/"):
        site_url += "/"
    root = config.parent
    return Site(root=root, docs_dir=root / data.get("docs_dir", "docs"), languages=languages, url=site_url,
                repo_url=data.get("repo_url", ""),
                nav_translations={item["locale"]: dict(item.get("nav_translations") or {}) for item in listed})
