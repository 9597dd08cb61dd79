"""The site's search index: BM25F scores computed at build time, split into small files a query fetches.

Material's own search downloads every page's text before the first result can show (1 MB at 63
entries, growing with each). Here each language gets, under ``search/<language>/``:

* ``meta.json``: how many shards there are, and the stop words (a few hundred bytes);
* ``t<k>.json``: the postings of the terms whose hash falls in shard ``k``, each ``[document, score]``
  with the term's whole BM25F contribution precomputed (field weights, length normalisation and the
  saturation are per term and document, so a query's score is the sum over its terms);
* ``d<k>.json``: the documents ``32 k`` to ``32 k + 31``: location, title and the text a result shows
  (the page's description: the answer, not code).

A query fetches the shards of its terms and the documents of its top results, nothing else, so what
it downloads grows with the number of its terms, not with the handbook. The shard count grows with
the index, so a shard stays near ``SHARD_BYTES``.

What is indexed, per language: every page of the handbook (title, description, body), and for an
entry the fields explain ranks it on, each holding every language (title, description, symptoms,
keywords, claimed messages, body), so a Chinese query meets the English words of an entry too; each
claimed message is also a document of its own, leading to its line in the Symptom section
(``#error-N``), so a pasted message finds its entry. The scores are explain's
(``retrieval.FIELDS``, ``retrieval.K1``, and a term's rarity counted in the fields that say what an
entry is about, not in the bodies), so the search box and ``triton-faq explain`` rank alike. The terms are those of
``triton_faq.retrieval`` (explain's tokeniser: noise removed, identifiers split and kept whole,
English stemmed), except that Chinese is cut into character pairs, which a query can do in the
browser without a dictionary; ``overrides/assets/javascripts/search-worker.js`` tokenises a query
the same way (a test compares the two on the handbook's own texts).
"""

from __future__ import annotations

import functools
import json
import math
import re
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from . import handbook, retrieval

DOCUMENTS_PER_FILE = 32
SHARD_BYTES = 12_000  # a shard's size the shard count aims at
HAN = retrieval.HAN
VERSION = 1


def han_pairs(run: str) -> list[str]:
    """A run of Chinese characters as overlapping character pairs (one character alone stays whole)."""
    return [run] if len(run) < 2 else [run[i:i + 2] for i in range(len(run) - 1)]


HAN_STOP = re.compile("|".join(sorted((re.escape(word) for word in retrieval.STOP if HAN.fullmatch(word)),
                                     key=lambda word: (-len(word), word))))


def terms(text: str) -> list[str]:
    """What the search index and a query are matched on: explain's English terms (``retrieval``), and
    Chinese as character pairs of each run, its stop words (longest first) cut out."""
    return list(_terms(text))


@functools.lru_cache(maxsize=4096)
def _terms(text: str) -> tuple[str, ...]:
    """``terms``, cached: each language's index reads every language's fields of an entry."""
    text = retrieval.strip_noise(text)
    found = retrieval.english_terms(HAN.sub(" ", text))
    for run in HAN.findall(text):
        for part in HAN_STOP.sub(" ", run).split():
            found += han_pairs(part)
    return tuple(found)


def shard_of(term: str, shards: int) -> int:
    """FNV-1a of the term's UTF-8 bytes, modulo the shard count (the worker computes the same)."""
    value = 0x811C9DC5
    for byte in term.encode("utf-8"):
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value % shards


@dataclass
class Document:
    location: str  # relative to the language's root, as Material's results are
    title: str
    text: str  # what a result shows
    fields: dict[str, list[str]] = field(default_factory=dict)  # field -> terms
    entry: bool = False  # an entry's page (its rarity counts), not another page or a message's line


MARKDOWN_NOISE = re.compile(r"```.*?```|<!--.*?-->|\{[^}]*#[^}]*\}|[#>*_`|\[\]()]", re.S)


CJK_BREAK = re.compile(r"(?<=[\u3400-\u9fff\uf900-\ufaff])\n[ \t]*(?=[\u3400-\u9fff\uf900-\ufaff])")


def _plain(markdown: str) -> str:
    """A page's Markdown as words: code fences, comments, anchors and markup left out, and a line break
    between two Chinese characters joined, as the page shows them (hooks/cjk_spacing.py)."""
    return MARKDOWN_NOISE.sub(" ", CJK_BREAK.sub("", markdown))


def documents(book: handbook.Handbook, language: str) -> list[Document]:
    """Every page of ``language`` as a search document, and each claimed message as one of its own."""
    site = book.site
    docs = []
    by_name = {entry.name: entry for entry in book.entries}
    for name, page in sorted(book.pages.get(language, {}).items()):
        location = site.url_path(name, site.default)  # the path below the language's root
        entry = by_name.get(name)
        title = str(page.front_matter.get("title", name))
        description = str(page.front_matter.get("description", ""))
        if entry is None or language not in entry.pages:
            fields = {"title": terms(title), "description": terms(description), "body": terms(_plain(page.body))}
            docs.append(Document(location, title, description, fields))
            continue
        texts = retrieval.entry_texts(entry)
        texts["body"] = _plain(texts["body"])
        fields = {name: terms(text) for name, text in texts.items()}
        docs.append(Document(location, title, description, fields, entry=True))
        docs += [Document(f"{location}#error-{number}", error.message, description,
                          {"title": terms(error.message), "messages": terms(error.message)})
                 for number, error in enumerate(entry.errors, 1)]
    return docs


def postings(docs: list[Document]) -> dict[str, list[list]]:
    """term -> [[document, score], ...], best first: each term's BM25F contribution to each document."""
    # as explain (retrieval.Index): field lengths and how many entries use a term are counted over the
    # entries, the latter in the fields that say what an entry is about (every page's body uses the
    # everyday words of its language)
    about = [doc for doc in docs if doc.entry] or docs
    average = {name: sum(len(doc.fields.get(name, [])) for doc in about) / len(about) for name in retrieval.FIELDS}
    frequency: Counter = Counter()
    for doc in about:
        frequency.update({term for name, terms_ in doc.fields.items() if name in retrieval.IDF_FIELDS
                          for term in terms_})
    count = len(about)
    found: dict[str, list[list]] = {}
    for number, doc in enumerate(docs):
        weighted: Counter = Counter()
        for name in retrieval.FIELDS:
            words = doc.fields.get(name, [])
            for term, tf in Counter(words).items():
                weighted[term] += retrieval.field_frequency(name, tf, len(words), average[name])
        for term, w in weighted.items():
            rarity = retrieval.idf(count, min(frequency[term], count))
            found.setdefault(term, []).append([number, round(retrieval.contribution(rarity, w), 3)])
    for items in found.values():
        items.sort(key=lambda item: -item[1])
    return found


def write(book: handbook.Handbook, language: str, folder: Path, stop_words: list[str]) -> dict:
    """The index of ``language`` into ``folder`` (replaced whole); returns its sizes."""
    docs = documents(book, language)
    index = postings(docs)
    total = sum(len(json.dumps(items, separators=(",", ":"))) + len(term) + 4 for term, items in index.items())
    shards = 1 << max(3, math.ceil(math.log2(max(total / SHARD_BYTES, 1))))
    folder.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}."))
    try:
        by_shard: dict[int, dict] = {}
        for term, items in index.items():
            by_shard.setdefault(shard_of(term, shards), {})[term] = items
        for number in range(shards):
            (partial / f"t{number}.json").write_text(
                json.dumps(by_shard.get(number, {}), ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
        for start in range(0, len(docs), DOCUMENTS_PER_FILE):
            chunk = [[doc.location, doc.title, doc.text] for doc in docs[start:start + DOCUMENTS_PER_FILE]]
            (partial / f"d{start // DOCUMENTS_PER_FILE}.json").write_text(
                json.dumps(chunk, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
        meta = {"version": VERSION, "shards": shards, "per_file": DOCUMENTS_PER_FILE, "documents": len(docs),
                "stop": stop_words}
        (partial / "meta.json").write_text(json.dumps(meta, ensure_ascii=False, separators=(",", ":")),
                                           encoding="utf-8")
        if folder.exists():
            shutil.rmtree(folder)
        partial.rename(folder)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return {"documents": len(docs), "terms": len(index), "shards": shards}
