// Material's search worker, answered from the handbook's sharded index (triton_faq/search_index.py).
//
// Material's script sends this worker the messages of its own worker: SETUP (0) with what it fetched
// from search/search_index.json (here a stub naming the language and where its index is), then a
// QUERY (2) per search; it expects READY (1) and RESULT (3) with the items to show. A query fetches
// only the shards of its terms and the documents of its best results.
//
// terms() is triton_faq/search_index.py's terms() in JavaScript (a test compares the two).
"use strict";

const SETUP = 0, READY = 1, QUERY = 2, RESULT = 3;
const SHOWN = 10;  // results sent back: the ten Material shows first

let base = null;  // the index's folder
let meta = null;
let stop = new Set();
let hanStop = null;
const shards = new Map();  // number -> Promise of {term: [[document, score], ...]}
const documents = new Map();  // file number -> Promise of [[location, title, text], ...]

// -- the tokeniser (triton_faq/retrieval.py and search_index.py) -------------------------------------

const HAN = /[\u3400-\u9fff\uf900-\ufaff]+/gu;
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;
const FRAME = /^\s*File "[^"]*", line \d+(, in .*)?$/gm;
const BOILERPLATE = /Traceback \(most recent call last\):|During handling of the above exception, another exception occurred:|The above exception was the direct cause of the following exception:/g;
const LOG_PREFIX = /^\s*(\[rank\d+\]:\s*|\d{4}-\d\d-\d\dT[\d:.]+[+\-\d:]*\s+\w+\s+\w\s+|[EWIF]\d{4} [\d:.]+ \d+ \S+\] ?|(INFO|WARNING|ERROR|DEBUG)\s*[\d\-:, ]*\s*(\[[^\]]*\])?\s*)/gm;
const URL_ = /\bhttps?:\/\/\S+/g;
const PATH = /(?<![\w.])(?:[A-Za-z]:)?(?:~|\.{1,2})?(?:[\\/][\w.+@-]+){2,}[\\/]?/g;
const HEX = /\b0x[0-9a-fA-F]+\b/g;
const SIZE = /\b\d+(?:\.\d+)?\s?(?:[KMGT]i?B|[KMGT]|ms|us|µs|s)\b/g;
const NUMBER = /(?<![\w.])[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w])/g;
const GPU = /\b(?:NVIDIA|GeForce|Tesla|Quadro|Radeon|Instinct|AMD|Intel|Ascend|Atlas|Jetson|DGX)\b|\b(?:[ABHLTVP]\d{1,3}[A-Z]?|GB\d{2,3}|RTX\s?\d{3,4}(?:\s?Ti)?|GTX\s?\d{3,4}|MI\d{3}[A-Z]?|gfx\d+\w*|sm_?\d+[a-z]?|PVC|BMG)\b/gi;
const MODEL = /\b(?:Qwen|Llama|DeepSeek|Mistral|Mixtral|Gemma|Phi|GPT|gpt-oss|ChatGLM|GLM|InternLM|Baichuan|Falcon|Yi|Kimi|Flux|SDXL|Wan|ModernBERT|BERT|ViT|Whisper)[\w.\-]*/gi;
const WORD = /[A-Za-z_][A-Za-z0-9_.']*[A-Za-z0-9_]|[A-Za-z]/g;
const CAMEL = /[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+\d*|[A-Z]+\d*|\d+[a-z]*/g;

function stripNoise(text) {
  text = text.replace(ANSI, " ").replace(LOG_PREFIX, " ").replace(FRAME, " ").replace(BOILERPLATE, " ");
  for (const pattern of [URL_, PATH, HEX, MODEL, GPU, SIZE, NUMBER]) text = text.replace(pattern, " ");
  return text;
}

function stem(word) {
  if (word.length <= 3 || !/^[A-Za-z]+$/.test(word)) return word;
  if (word.endsWith("ies") && word.length > 4) word = word.slice(0, -3) + "y";
  else if (word.endsWith("sses")) word = word.slice(0, -2);
  else if (/(s|x|z|ch|sh)es$/.test(word)) word = word.slice(0, -2);
  else if (word.endsWith("s") && !(word.endsWith("ss") || word.endsWith("us") || word.endsWith("is"))) word = word.slice(0, -1);
  for (const suffix of ["ing", "ed"]) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 3) {
      word = word.slice(0, -suffix.length);
      if (word.length > 3 && word[word.length - 1] === word[word.length - 2] && !"lsz".includes(word[word.length - 1])) {
        word = word.slice(0, -1);
      }
      break;
    }
  }
  if (word.endsWith("e") && word.length > 3) word = word.slice(0, -1);
  return word;
}

function stripChars(text, chars) {
  let start = 0, end = text.length;
  while (start < end && chars.includes(text[start])) start++;
  while (end > start && chars.includes(text[end - 1])) end--;
  return text.slice(start, end);
}

function englishTerms(text) {
  const found = [];
  for (const match of text.matchAll(WORD)) {
    const chunk = stripChars(match[0], "'.");
    const parts = [];
    for (const piece of chunk.split(/[._']+/)) {
      for (const part of piece.matchAll(CAMEL)) parts.push(part[0].toLowerCase());
    }
    for (const part of parts) if (!stop.has(part) && part.length > 1) found.push(stem(part));
    const whole = chunk.toLowerCase();
    if (parts.length > 1 && !stop.has(whole)) found.push(whole);
  }
  return found;
}

function hanPairs(run) {
  const characters = Array.from(run);
  if (characters.length < 2) return [run];
  const pairs = [];
  for (let i = 0; i + 1 < characters.length; i++) pairs.push(characters[i] + characters[i + 1]);
  return pairs;
}

function terms(text) {
  text = stripNoise(text);
  const found = englishTerms(text.replace(HAN, " "));
  for (const match of text.matchAll(HAN)) {
    const kept = hanStop ? match[0].replace(hanStop, " ") : match[0];
    for (const part of kept.split(/\s+/)) if (part) found.push(...hanPairs(part));
  }
  return found;
}

// -- the index ---------------------------------------------------------------------------------------

function shardOf(term) {  // FNV-1a of the UTF-8 bytes
  let value = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(term)) value = Math.imul(value ^ byte, 0x01000193) >>> 0;
  return value % meta.shards;
}

function fetchJSON(name) {
  return fetch(new URL(name, base)).then(response => response.json());
}

function shard(number) {
  if (!shards.has(number)) shards.set(number, fetchJSON(`t${number}.json`));
  return shards.get(number);
}

function documentFile(number) {
  if (!documents.has(number)) documents.set(number, fetchJSON(`d${number}.json`));
  return documents.get(number);
}

function setStopWords(words) {
  stop = new Set(words);
  const han = words.filter(word => /^[\u3400-\u9fff\uf900-\ufaff]+$/u.test(word))
    .sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  hanStop = han.length ? new RegExp(han.map(word => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "gu") : null;
}

async function setup(config) {
  base = new URL(config.index, self.location.href);
  meta = await fetchJSON("meta.json");
  setStopWords(meta.stop);
}

async function search(query) {
  const wanted = [...new Set(terms(query))];
  const tables = await Promise.all(wanted.map(term => shard(shardOf(term))));
  const scores = new Map();
  wanted.forEach((term, i) => {
    for (const [document, score] of tables[i][term] || []) scores.set(document, (scores.get(document) || 0) + score);
  });
  const best = [...scores.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, SHOWN);
  const files = await Promise.all(best.map(([document]) => documentFile(Math.floor(document / meta.per_file))));
  const groups = new Map();  // a page and the messages of it that were found: one result, as Material shows them
  best.forEach(([document, score], i) => {
    const [location, title, text] = files[i][document % meta.per_file];
    const page = location.split("#")[0];
    if (!groups.has(page)) groups.set(page, []);
    groups.get(page).push({ location, title, text, score, terms: {} });
  });
  return { items: [...groups.values()], total: scores.size };
}

addEventListener("message", async event => {
  const message = event.data;
  if (message.type === SETUP) {
    await setup(message.data.config);
    postMessage({ type: READY });
  } else if (message.type === QUERY) {
    let data = { items: [] };
    try {
      data = await search(message.data);
    } catch (error) {
      console.warn("search failed for", message.data, error);
    }
    postMessage({ type: RESULT, data });
  }
});

// for the test that compares this tokeniser with the Python one (tests/test_search_cost.py)
self.searchTokeniser = { terms, useStopWords: words => setStopWords(words) };
