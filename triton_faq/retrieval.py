"""Ranking the handbook's entries for a pasted message, a traceback or a described symptom.

One tokeniser for both languages (``terms``), used on the entries and on what the user types:

- noise first: traceback frames, log prefixes, URLs, file paths, hex, numbers, GPU and model names
  are removed, so that what is left is the words of the error and of the description;
- English: identifiers split at dots, underscores and case changes (``tl.float32`` -> ``tl``,
  ``float32``; ``OutOfResources`` -> ``out``, ``of``, ``resources``), the whole identifier kept too,
  stop words dropped, the rest reduced to a stem (``writes``, ``writing`` -> ``writ``);
- Chinese: each run of Han characters segmented by jieba (``han_words``), stop words dropped.

The stop words are the site search's own (``ui_text``: ``search.stop_words``, every
language), so explain and the search box drop the same words.

Each entry is a document of six fields, each holding every language (read through
:mod:`triton_faq.handbook`): title, description, symptoms,
keywords, the messages it claims, and the page's body. A Chinese query therefore meets the Chinese
pages, and the English words inside it meet the English ones. The score is BM25F (per-field weights
and length normalisation, one saturation over the weighted sum): see ``FIELDS``.

The tokenised entries are cached per user (``$XDG_CACHE_HOME/triton-faq``), keyed by the pages'
sizes and modification times and by this module's ``INDEX_VERSION``; a query is segmented with a
jieba dictionary made of the entries' own Chinese words, so a call does not load jieba's full
dictionary.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import handbook, ui_text
from .handbook import Entry
from .handbook.schema import SCRIPTS

INDEX_VERSION = 5

# field: (weight, length normalisation b)
FIELDS = {
    "title": (3.0, 0.3),
    "description": (1.5, 0.5),
    "symptoms": (3.5, 0.4),
    "keywords": (2.0, 0.4),
    "messages": (2.0, 0.4),
    "body": (0.25, 0.75),
}
IDF_FIELDS = ("title", "description", "symptoms", "keywords", "messages")
K1 = 2.0  # chosen on the development set (tests/data/real_messages.yaml, tests/search_questions.json)
# A report's first line is its title, the user's own summary: its terms count this much more than the
# body's, when there is a body (chosen on the tuning set, tests/data/tuning_reports/scores/README.md)
TITLE_WEIGHT = 1.5

HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
FRAME = re.compile(r'^\s*File "[^"]*", line \d+(, in .*)?$', re.MULTILINE)
BOILERPLATE = re.compile(r"Traceback \(most recent call last\):|During handling of the above exception, another "
                         r"exception occurred:|The above exception was the direct cause of the following exception:")
LOG_PREFIX = re.compile(
    r"^\s*(\[rank\d+\]:\s*|\d{4}-\d\d-\d\dT[\d:.]+[+\-\d:]*\s+\w+\s+\w\s+|[EWIF]\d{4} [\d:.]+ \d+ \S+\] ?"
    r"|(INFO|WARNING|ERROR|DEBUG)\s*[\d\-:, ]*\s*(\[[^\]]*\])?\s*)",
    re.MULTILINE)
URL = re.compile(r"\bhttps?://\S+")
PATH = re.compile(r"(?<![\w.])(?:[A-Za-z]:)?(?:~|\.{1,2})?(?:[\\/][\w.+@-]+){2,}[\\/]?")
HEX = re.compile(r"\b0x[0-9a-fA-F]+\b")
SIZE = re.compile(r"\b\d+(?:\.\d+)?\s?(?:[KMGT]i?B|[KMGT]|ms|us|µs|s)\b")
NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w])")
GPU = re.compile(
    r"\b(?:NVIDIA|GeForce|Tesla|Quadro|Radeon|Instinct|AMD|Intel|Ascend|Atlas|Jetson|DGX)\b"
    r"|\b(?:[ABHLTVP]\d{1,3}[A-Z]?|GB\d{2,3}|RTX\s?\d{3,4}(?:\s?Ti)?|GTX\s?\d{3,4}|MI\d{3}[A-Z]?|gfx\d+\w*|sm_?\d+[a-z]?|PVC|BMG)\b",
    re.IGNORECASE)
MODEL = re.compile(
    r"\b(?:Qwen|Llama|DeepSeek|Mistral|Mixtral|Gemma|Phi|GPT|gpt-oss|ChatGLM|GLM|InternLM|Baichuan|Falcon|Yi|Kimi"
    r"|Flux|SDXL|Wan|ModernBERT|BERT|ViT|Whisper)[\w.\-]*",
    re.IGNORECASE)
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.']*[A-Za-z0-9_]|[A-Za-z]")
CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+\d*|[A-Z]+\d*|\d+[a-z]*")


def stop_words() -> frozenset[str]:
    """The words that find nothing, every language (the site search's list, ui_text.py)."""
    return frozenset(word for language in handbook.load_site(handbook.ROOT).languages
                     for word in ui_text.text(language, "search.stop_words").split())


STOP = stop_words()


def strip_noise(text: str) -> str:
    """The text without what names this run rather than the problem: frames, prefixes, paths, numbers."""
    text = ANSI.sub(" ", text)
    text = LOG_PREFIX.sub(" ", text)
    text = FRAME.sub(" ", text)
    text = BOILERPLATE.sub(" ", text)
    for pattern in (URL, PATH, HEX, MODEL, GPU, SIZE, NUMBER):
        text = pattern.sub(" ", text)
    return text


def stem(word: str) -> str:
    """A light English stemmer: plural, -ing, -ed and a final e removed, so inflections meet."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif re.search(r"(s|x|z|ch|sh)es$", word):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


def english_terms(text: str) -> list[str]:
    found = []
    for chunk in WORD.findall(text):
        found += _chunk_terms(chunk)
    return found


SEPARATORS = re.compile(r"[._']+")


@functools.lru_cache(maxsize=1 << 16)
def _chunk_terms(chunk: str) -> tuple[str, ...]:
    """One identifier's terms: its parts' stems, and the whole identifier when it has several parts
    (cached: a handbook's pages repeat the same few thousand words)."""
    chunk = chunk.strip("'.")
    parts = [p.lower() for piece in SEPARATORS.split(chunk) for p in CAMEL.findall(piece)]
    kept = [stem(p) for p in parts if p not in STOP and len(p) > 1]
    whole = chunk.lower()
    if len(parts) > 1 and whole not in STOP:
        kept.append(whole)
    return tuple(kept)


_query_segmenter = None


def han_words(run: str, segmenter=None) -> list[str]:
    """A run of Chinese characters as words: jieba's search-mode cut (every word and its parts)."""
    if segmenter is None:
        import jieba

        jieba.setLogLevel(60)
        if jieba.dt.tmp_dir is None:  # its dictionary's cache beside ours, not in a temporary folder that may be a run's own
            jieba.dt.tmp_dir = str(_cache_dir())
        segmenter = jieba
    return [word for word in segmenter.cut_for_search(run) if word.strip()]


def terms(text: str, segmenter=None) -> list[str]:
    """What a text is matched on, in order: English stems and identifiers, Chinese words."""
    text = strip_noise(text)
    found = english_terms(HAN.sub(" ", text))
    for run in HAN.findall(text):
        found += [word for word in han_words(run, segmenter) if word not in STOP]
    return found


# --- the entries as documents --------------------------------------------------------------------

def entry_texts(entry: Entry) -> dict[str, str]:
    """The text of each of an entry's fields (``FIELDS``), every language: what explain ranks and the
    site's search index (``search_index``) scores."""
    texts = {name: [] for name in FIELDS}
    texts["messages"] = [error.message for error in entry.errors]
    for view in entry.views():
        texts["title"].append(view.title)
        texts["description"].append(view.description)
        texts["symptoms"] += view.symptoms
        texts["keywords"] += view.keywords
        texts["body"].append(view.body)
    return {name: "\n".join(parts) for name, parts in texts.items()}


def _fields(entry: Entry) -> dict[str, list[str]]:
    return {name: terms(text) for name, text in entry_texts(entry).items()}


# --- BM25F, for explain (per query) and the site's index (per term, at build time) ----------------

def idf(count: int, df: int) -> float:
    """The rarity of a term that ``df`` of ``count`` entries use."""
    return math.log(1 + (count - df + 0.5) / (df + 0.5))


def field_frequency(name: str, tf: int, length: int, average: float) -> float:
    """A term's count in one field, weighted and normalised by the field's length (``FIELDS``)."""
    weight, b = FIELDS[name]
    return weight * tf / (1 - b + b * length / (average or 1))


def contribution(rarity: float, weighted: float) -> float:
    """One term's share of a document's score: its rarity times its saturated weighted frequency."""
    return rarity * weighted / (K1 + weighted)


def _signature(root: Path, entries: list[Entry]) -> str:
    digest = hashlib.sha256(f"{INDEX_VERSION}\0{root}".encode())
    for entry in entries:
        for view in entry.views():
            stat = view.page.path.stat()
            digest.update(f"{view.page.path}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
    return digest.hexdigest()[:24]


def _cache_dir() -> Path:
    """The per-user cache ($XDG_CACHE_HOME/triton-faq), or one under the temporary directory when
    the home is not writable (a container run as another user)."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")) / "triton-faq"
    try:
        base.mkdir(parents=True, exist_ok=True)
        if os.access(base, os.W_OK):
            return base
    except OSError:
        pass
    uid = os.getuid() if hasattr(os, "getuid") else os.getpid()
    return Path(tempfile.gettempdir()) / f"triton-faq-{uid}"


@dataclass
class Index:
    signature: str
    ids: list[str]
    docs: dict[str, dict[str, dict[str, int]]]  # id -> field -> term -> count
    lengths: dict[str, dict[str, int]]
    average: dict[str, float]
    frequency: dict[str, int]  # term -> number of entries using it
    han_vocabulary: dict[str, int]

    def idf(self, term: str) -> float:
        return idf(len(self.ids), self.frequency.get(term, 0))

    def score(self, query: list[str] | dict[str, float]) -> dict[str, float]:
        """BM25F of every entry for the query's distinct terms (a term: weight mapping weighs them)."""
        weights = query if isinstance(query, dict) else dict.fromkeys(query, 1.0)
        scores = dict.fromkeys(self.ids, 0.0)
        for term, weight in weights.items():
            if term in self.frequency:
                rarity = self.idf(term)
                for entry_id, weighted in self.postings.get(term, ()):
                    scores[entry_id] += weight * contribution(rarity, weighted)
        return scores

    @functools.cached_property
    def postings(self) -> dict[str, list[tuple[str, float]]]:
        """term -> (entry ID, weighted frequency summed over the fields), for the entries that use it."""
        found: dict[str, list[tuple[str, float]]] = {}
        for entry_id in self.ids:
            doc, lengths = self.docs[entry_id], self.lengths[entry_id]
            for term in set().union(*(doc[name] for name in FIELDS)):
                weighted = sum(field_frequency(name, doc[name][term], lengths[name], self.average[name])
                               for name in FIELDS if doc[name].get(term))
                if weighted:
                    found.setdefault(term, []).append((entry_id, weighted))
        return found


def _build(root: Path, entries: list[Entry]) -> dict:
    docs, lengths = {}, {}
    han = {}
    for entry in entries:
        fields = _fields(entry)
        docs[entry.id] = {}
        lengths[entry.id] = {}
        for name, found in fields.items():
            counts: dict[str, int] = {}
            for term in found:
                counts[term] = counts.get(term, 0) + 1
                if HAN.fullmatch(term):
                    han[term] = han.get(term, 0) + 1
            docs[entry.id][name] = counts
            lengths[entry.id][name] = len(found)
    return {"ids": [entry.id for entry in entries], "docs": docs, "lengths": lengths, "han": han}


_indexes: dict[str, Index] = {}


_last: dict[Path, tuple[handbook.Handbook, Index]] = {}  # per root: the handbook last indexed, and its index


def index(root: Path = handbook.ROOT) -> Index:
    """The entries as BM25F documents, from the per-user cache when the pages have not changed."""
    book = handbook.load(root)  # the same object while no page has changed: its index is kept beside it
    known = _last.get(Path(root))
    if known is not None and known[0] is book:
        return known[1]
    built = _index(root, book.entries)
    if len(_last) >= 16:
        _last.clear()
    _last[Path(root)] = (book, built)
    return built


def _index(root: Path, entries: list[Entry]) -> Index:
    signature = _signature(root, entries)
    if signature in _indexes:
        return _indexes[signature]
    cached = _cache_dir() / f"index-{signature}.json"
    data = None
    try:
        data = json.loads(cached.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = _build(root, entries)
        try:  # written whole or not at all
            cached.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("w", dir=cached.parent, delete=False, suffix=".tmp",
                                             encoding="utf-8") as stream:
                json.dump(data, stream, ensure_ascii=False)
            os.replace(stream.name, cached)
        except OSError:
            pass  # an unwritable cache only costs the next call the build
    # how many entries use a term, counted in the fields that say what the entry is about (the body
    # of every page uses the everyday words of its language, which would make them all weightless)
    frequency: dict[str, int] = {}
    body: set[str] = set()
    for fields in data["docs"].values():
        for term in set().union(*(counts for name, counts in fields.items() if name in IDF_FIELDS)):
            frequency[term] = frequency.get(term, 0) + 1
        body.update(fields.get("body", {}))
    for term in body - frequency.keys():
        frequency[term] = 0
    average = {name: sum(lengths[name] for lengths in data["lengths"].values()) / max(len(data["ids"]), 1)
               for name in FIELDS}
    built = Index(signature, data["ids"], data["docs"], data["lengths"], average, frequency, data["han"])
    _indexes[signature] = built
    return built


def query_segmenter(built: Index):
    """jieba with a dictionary of the entries' own Chinese words (loads in milliseconds)."""
    global _query_segmenter
    if _query_segmenter is None or _query_segmenter[0] != built.signature:
        import jieba

        jieba.setLogLevel(60)
        words = "".join(f"{word} {count}\n" for word, count in sorted(built.han_vocabulary.items())) or "的 1\n"
        folder = _cache_dir()
        try:
            folder.mkdir(parents=True, exist_ok=True)
            dictionary = folder / f"words-{built.signature}.txt"
            if not dictionary.is_file():
                with tempfile.NamedTemporaryFile("w", dir=folder, delete=False, suffix=".tmp", encoding="utf-8") as out:
                    out.write(words)
                os.replace(out.name, dictionary)
        except OSError:
            folder = Path(tempfile.mkdtemp(prefix="triton-faq-"))
            dictionary = folder / "words.txt"
            dictionary.write_text(words, encoding="utf-8")
        tokenizer = jieba.Tokenizer(dictionary=str(dictionary))
        tokenizer.tmp_dir = str(folder)
        tokenizer.initialize()
        _query_segmenter = (built.signature, tokenizer)
    return _query_segmenter[1]


def query_terms(text: str, built: Index) -> list[str]:
    segmenter = query_segmenter(built) if HAN.search(text) else None
    return terms(text, segmenter)


def query_weights(text: str, built: Index) -> dict[str, float]:
    """Each distinct term of a query and its weight: ``TITLE_WEIGHT`` for the first line's terms when
    more lines follow it (a report's title over its body), 1 for the rest."""
    lines = text.strip().splitlines()
    title, body = (lines[0], "\n".join(lines[1:])) if len(lines) > 1 else ("", text)
    weights = dict.fromkeys(query_terms(body, built), 1.0)
    weights.update(dict.fromkeys(query_terms(title, built), TITLE_WEIGHT) if title else {})
    return weights


def rank(text: str, root: Path = handbook.ROOT, built: Index | None = None) -> list[tuple[str, float]]:
    """(entry ID, score) for every entry with a positive score, best first."""
    built = built or index(root)
    scores = built.score(query_weights(text, built))
    return sorted(((i, s) for i, s in scores.items() if s > 0), key=lambda pair: -pair[1])


def language_of(text: str, root: Path = handbook.ROOT) -> str:
    """The language whose script the text is written in (two characters of it are enough: a Chinese user
    pastes English errors too), else the site's default language."""
    site = handbook.load_site(root)
    for language in site.translations:
        script = SCRIPTS.get(language)
        if script and len(re.findall(script, text)) >= 2:
            return language
    return site.default
