// Checks what `npm run package` ships: the manifest's files exist and the
// grammar and language configuration are JSON whose patterns compile.
const fs = require('fs');
const path = require('path');
const pkg = require('./package.json');
const files = [pkg.main, ...pkg.contributes.grammars.map((g) => g.path), ...pkg.contributes.languages.map((l) => l.configuration)];
for (const f of files) {
  if (!fs.existsSync(path.join(__dirname, f))) throw new Error(`package.json names ${f}, which is missing`);
}
const grammar = JSON.parse(fs.readFileSync(path.join(__dirname, 'syntaxes/pdl.tmLanguage.json'), 'utf8'));
for (const [name, rule] of Object.entries(grammar.repository)) {
  for (const key of ['match', 'begin', 'end']) {
    if (rule[key]) new RegExp(rule[key]); // throws on a pattern that does not compile
  }
  console.log(`ok ${name}`);
}
JSON.parse(fs.readFileSync(path.join(__dirname, 'language-configuration.json'), 'utf8'));
