// Parses each Mermaid file named on the command line with Mermaid's own parser (in jsdom, as it
// needs a DOM), and exits 1 on the first that does not parse. The Makefile installs mermaid and
// jsdom beside a copy of this script (`make picture-tools`); test/picture runs it.
import { JSDOM } from 'jsdom';
import { readFileSync } from 'node:fs';

const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import('mermaid');

for (const file of process.argv.slice(2)) {
  try {
    await mermaid.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    console.error(`${file}: ${e.message || e}`);
    process.exit(1);
  }
}
