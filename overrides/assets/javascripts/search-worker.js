// Material's search worker, answered by Pagefind (hooks/search.py says why).
//
// Material's script sends this worker the messages of its own worker: SETUP (0) with what it
// fetched from search/search_index.json (here a stub naming the language and where its pages
// start), then a QUERY (2) per search; it expects READY (1) and RESULT (3) with the items to show,
// one group per page. Pagefind loads only the index fragments a query needs.
"use strict";

const SETUP = 0, READY = 1, QUERY = 2, RESULT = 3;
const SHOWN = 20;  // results sent back: Material shows ten, then more as one scrolls
let pagefind = null;
let prefix = "";

function escape(text) {
  return text.replace(/[&<>"]/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

// Pagefind's URLs start at the site's root ("/zh/topic/question/"); Material's are relative to the
// language's root, where the page's search base points ("topic/question/").
function location(url) {
  const path = url.replace(/^\//, "");
  return path.startsWith(prefix) ? path.slice(prefix.length) : path;
}

async function setup(config) {
  prefix = config.prefix || "";
  pagefind = await import(new URL("../../pagefind/pagefind.js", self.location.href).href);
  await pagefind.options({ baseUrl: "/", excerptLength: 24 });
  await pagefind.init(config.lang[0]);
}

async function search(query) {
  const found = await pagefind.search(query);
  if (!found || !found.results) return { items: [] };
  const pages = await Promise.all(found.results.slice(0, SHOWN).map(result => result.data()));
  const items = pages.map((page, rank) => {
    const score = found.results[rank].score;
    const text = page.meta.description ? escape(page.meta.description) : page.excerpt;
    return [{ location: location(page.url), title: page.meta.title || page.url, text: text, score: score,
              terms: {} }];
  });
  return { items: items, total: found.results.length };
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
    postMessage({ type: RESULT, data: data });
  }
});
