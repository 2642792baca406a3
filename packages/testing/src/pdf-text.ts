import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/**
 * The text layer of a PDF, as pdfjs-dist reads it: what a reader's search or copy finds
 * (docs/api-behaviour.md §22). pdfjs-dist is published as ES modules only, which jest's CommonJS
 * module system cannot load, so a child `node` process extracts the text and prints it as JSON.
 */
const PDFJS = pathToFileURL(require.resolve('pdfjs-dist/legacy/build/pdf.mjs')).href;

/** pdf.js for a browser (its module and its worker), for a test that shows a PDF in Chromium. */
export const PDFJS_BROWSER_BUILD = {
  module: require.resolve('pdfjs-dist/build/pdf.mjs'),
  worker: require.resolve('pdfjs-dist/build/pdf.worker.mjs'),
};

const EXTRACT = `
const { getDocument } = await import(process.env.PDFJS_MODULE);
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const pdf = await getDocument({ data: new Uint8Array(Buffer.concat(chunks)), isEvalSupported: false, verbosity: 0 })
  .promise;
const pages = [];
for (let number = 1; number <= pdf.numPages; number++) {
  const content = await (await pdf.getPage(number)).getTextContent();
  pages.push(content.items.filter((item) => 'str' in item && item.str.trim() !== '').map((item) => item.str));
}
process.stdout.write(JSON.stringify(pages));
`;

/** The strings of each page, in the order the PDF draws them. */
export function pdfPages(pdf: Buffer): Promise<string[][]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', EXTRACT], {
      env: { ...process.env, PDFJS_MODULE: PDFJS },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) {
        reject(new Error(`pdfjs-dist could not read the PDF (exit ${code}): ${Buffer.concat(err).toString()}`));
        return;
      }
      resolve(JSON.parse(Buffer.concat(out).toString('utf8')) as string[][]);
    });
    child.stdin.end(pdf);
  });
}

/**
 * Spaces as one plain space: Intl writes no-break (U+00A0), narrow no-break (U+202F) and thin
 * (U+2009) spaces, which a text layer gives back as plain ones.
 */
export function plainSpaces(text: string): string {
  return text.replace(/[\u00a0\u202f\u2009]/g, ' ');
}

/** Every string of the PDF, each with plain spaces. */
export async function pdfStrings(pdf: Buffer): Promise<string[]> {
  return (await pdfPages(pdf)).flat().map(plainSpaces);
}

/** Which of `expected` the PDF's strings lack: `[]` when it shows them all. */
export function missingFrom(strings: string[], expected: string[]): string[] {
  return expected.filter((text) => !strings.includes(text));
}

/**
 * Each string after a label, where the layout writes a label and then its value on one row:
 * "Total" -> "₦8,059.70". The first row of a label wins.
 */
export function labelledValues(strings: string[]): Map<string, string> {
  const pairs = new Map<string, string>();
  strings.forEach((value, index) => {
    if (index > 0 && !pairs.has(strings[index - 1])) pairs.set(strings[index - 1], value);
  });
  return pairs;
}
