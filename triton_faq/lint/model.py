"""A rule and a finding."""

from __future__ import annotations

from dataclasses import dataclass

from .. import handbook


@dataclass(frozen=True)
class Rule:
    id: str
    page: str  # the entry's page name (topic/question)
    default: bool  # on without --select
    summary: str  # one line, English (the page's strings are in triton_faq/ui_text.py, key lint.rule.<id>)
    since: tuple[int, int] | None = None  # the pitfall exists from this Triton release on (None: in every one)
    once_per_file: bool = False  # report the first finding of a file only, saying how many more there are

    def url(self, language: str | None = None) -> str:
        """The entry's page on the site (default: in the site's default language)."""
        return handbook.load_site(handbook.ROOT).url_of(self.page, language)

    def applies_to(self, version: tuple[int, int] | None) -> bool:
        """Whether the pitfall exists in Triton ``version`` (None: the newest, where every rule applies)."""
        return version is None or self.since is None or version >= self.since


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    col: int  # 1-based
    rule: str
    message: str

    @property
    def url(self) -> str:
        from .rules import RULES

        return RULES[self.rule].url()

    def text(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.rule} {self.message} [{self.url}]"
