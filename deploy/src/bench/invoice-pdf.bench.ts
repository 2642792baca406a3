/**
 * Benchmark "invoice-pdf": the two ways considered to render invoice PDFs (docs/decisions.md,
 * "Invoice PDFs with PDFKit"), on the same 20-line invoice and the same embedded DejaVu Sans:
 *   - PDFKit: the documents service's renderer (services/documents/src/rendering/);
 *   - Chromium: the same document text as one HTML template, printed by Debian's Chromium with
 *     playwright-core's `page.pdf()`, the page and the browser kept open between renders.
 * For each, PDFs per second and p50/p99 of one render at a time: cold (every request a state the
 * cache has not seen: key, render, keep) and cached (the same state again: the PdfCache's
 * answer), beside a baseline in the same process that writes the same strings without layout
 * through the same tool (PDFKit's plain `text()` calls; one `<pre>` printed by the same page),
 * with each figure's ratio to its baseline. Also the CPU each PDF took (this process and the
 * browser's processes), the bytes of a PDF, whether a render of the same state gives the same
 * bytes, and what each way adds to the image. Run with `npm run bench -- invoice-pdf`.
 *
 * Environment: BENCH_PDF_SECONDS [5] per measured run, BENCH_PDF_WARMUP_S [1] before each.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { dirname, join } from 'node:path';
import PDFDocument from 'pdfkit';
import { chromium, type Browser, type Page } from 'playwright-core';
import { sampleInvoice } from '@billing/testing';
import {
  documentFonts,
  DOCUMENT_FONT_FILES,
  documentStateKey,
  documentStrings,
  invoiceText,
  PdfCache,
  renderInvoicePdf,
  type DocumentText,
  type InvoiceDocument,
} from '@billing/documents';
import { ensureChromium, thisMachine } from '../chromium';
import { processTreeSeconds } from './cpu-meter';
import { percentile, round, runBenchmark, table } from './measure';

const SECONDS = Number(process.env.BENCH_PDF_SECONDS || 5);
const WARMUP_S = Number(process.env.BENCH_PDF_WARMUP_S || 1);
const REPO_ROOT = join(__dirname, '../../..');

type Render = (invoice: InvoiceDocument) => Promise<Buffer>;

interface Figures {
  pdfs: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  cpuMsPerPdf: number;
  bytes: number;
}

/**
 * Renders one PDF at a time for `SECONDS` after `WARMUP_S` of the same (JIT, the browser's
 * caches), `next(k)` choosing the k-th request's invoice.
 */
async function measure(render: Render, next: (k: number) => InvoiceDocument): Promise<Figures> {
  let k = 0;
  for (const warmEnd = performance.now() + WARMUP_S * 1000; performance.now() < warmEnd;) await render(next(k++));
  const latencies: number[] = [];
  let bytes = 0;
  const cpuBefore = processTreeSeconds(process.pid);
  const started = performance.now();
  const end = started + SECONDS * 1000;
  while (performance.now() < end) {
    const invoice = next(k++);
    const at = performance.now();
    bytes = (await render(invoice)).length;
    latencies.push(performance.now() - at);
  }
  const elapsed = (performance.now() - started) / 1000;
  const cpu = processTreeSeconds(process.pid) - cpuBefore;
  latencies.sort((a, b) => a - b);
  return {
    pdfs: latencies.length,
    perSecond: latencies.length / elapsed,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    cpuMsPerPdf: (cpu * 1000) / latencies.length,
    bytes,
  };
}

/** The baseline of PDFKit: the same strings, in the same embedded font, one `text()` call each. */
function pdfkitPlainText(invoice: InvoiceDocument): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'A4', margin: 50, info: { CreationDate: new Date(invoice.issued_at) } });
  const bytes = collect(doc);
  const font = documentFonts().regular;
  doc.registerFont('regular', font as unknown as PDFKit.Mixins.PDFFontSource, font.postscriptName);
  doc.font('regular').fontSize(9);
  for (const line of documentStrings(invoiceText(invoice))) doc.text(line);
  doc.end();
  return bytes;
}

function collect(doc: PDFKit.PDFDocument): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
}

const escape = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);

/** The fonts as the page loads them: from the local server, same origin, kept by the browser's cache. */
const FONT_FACES = `
@font-face { font-family: 'Doc'; font-weight: 400; src: url('/fonts/regular.ttf') format('truetype'); }
@font-face { font-family: 'Doc'; font-weight: 700; src: url('/fonts/bold.ttf') format('truetype'); }
@page { size: A4; margin: 50pt; }
body { font-family: 'Doc'; font-size: 9pt; margin: 0; }`;

/** The Chromium candidate's one template: the document text as the PDFKit layout places it. */
function invoiceHtml(text: DocumentText): string {
  const rows = (cells: string[], tag: 'td' | 'th') =>
    `<tr>${cells
      .map((cell, i) => `<${tag} class="${text.table.columns[i].kind}">${escape(cell)}</${tag}>`)
      .join('')}</tr>`;
  const pairs = (rows: { label: string; value: string; strong?: boolean }[]) =>
    rows
      .map((r) => `<tr${r.strong ? ' class="strong"' : ''}><td>${escape(r.label)}</td><td>${escape(r.value)}</td></tr>`)
      .join('');
  return `<!doctype html><html lang="${text.locale}"><head><meta charset="utf-8"><style>${FONT_FACES}
h1 { font-size: 18pt; margin: 0 0 6pt; } .badge { float: right; font-size: 13pt; font-weight: 700; }
.facts td:first-child { color: #555; width: 100pt; } .parties { display: flex; gap: 14pt; margin: 14pt 0; }
.parties div { flex: 1; } .parties b { display: block; }
table.lines { width: 100%; border-collapse: collapse; } .lines td, .lines th { border-bottom: 0.5pt solid #999; padding: 4pt; }
.lines .text { text-align: left; } .lines .quantity, .lines .amount { text-align: right; } .lines .quantity { width: 50pt; }
.lines .amount { width: 95pt; } .totals { margin: 14pt 0 0 auto; } .totals td { text-align: right; padding: 1pt 4pt; }
.strong { font-weight: 700; } .notes { color: #555; font-size: 8pt; margin-top: 14pt; }
</style></head><body>
<div class="badge">${escape(text.badge ?? '')}</div><h1>${escape(`${text.title} ${text.number}`)}</h1>
<table class="facts">${pairs(text.facts)}</table>
<div class="parties">${text.parties.map((p) => `<div><b>${escape(p.heading)}</b>${p.lines.map(escape).join('<br>')}</div>`).join('')}</div>
<table class="lines"><thead>${rows(
    text.table.columns.map((c) => c.label),
    'th',
  )}</thead><tbody>${text.table.rows.map((r) => rows(r, 'td')).join('')}</tbody></table>
<table class="totals">${pairs(text.totals)}</table>
${text.lists.map((l) => `<h3>${escape(l.heading)}</h3><table>${pairs(l.rows)}</table>`).join('')}
<div class="notes">${text.notes.map(escape).join('<br>')}</div></body></html>`;
}

/** The baseline of Chromium: the same strings in one `<pre>`, printed by the same page. */
function plainHtml(invoice: InvoiceDocument): string {
  return `<!doctype html><html><head><meta charset="utf-8"><style>${FONT_FACES}</style></head><body><pre style="font-family: 'Doc'">${documentStrings(
    invoiceText(invoice),
  )
    .map(escape)
    .join('\n')}</pre></body></html>`;
}

/** Serves a blank page and the two font files to the browser, with a long cache life. */
async function startFontServer(): Promise<{ server: Server; url: string }> {
  const files: Record<string, Buffer> = {
    '/fonts/regular.ttf': readFileSync(DOCUMENT_FONT_FILES.regular),
    '/fonts/bold.ttf': readFileSync(DOCUMENT_FONT_FILES.bold),
  };
  const server = createServer((req, res) => {
    const file = files[req.url ?? ''];
    if (file) res.writeHead(200, { 'content-type': 'font/ttf', 'cache-control': 'max-age=86400' }).end(file);
    else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>documents</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/` };
}

/** One page, kept open: each render replaces its content, waits for its fonts and prints it. */
function chromiumPrint(page: Page, html: (invoice: InvoiceDocument) => string): Render {
  return async (invoice) => {
    await page.setContent(html(invoice), { waitUntil: 'load' });
    // Web fonts load as the page lays itself out, not before its load event: print once they have.
    await page.evaluate('document.fonts.ready.then(() => true)');
    return page.pdf({ format: 'A4', printBackground: true });
  };
}

/** A cache for cold (a new state each time) and cached (the same state) runs of `render`. */
function throughCache(render: Render): Render {
  const cache = new PdfCache({ maxBytes: 64 * 1024 * 1024 });
  return (invoice) => cache.get(documentStateKey('invoice', invoice), () => render(invoice));
}

/** Disk taken by npm packages and everything they depend on, as installed under node_modules. */
function npmClosureBytes(names: string[]): number {
  const seen = new Set<string>();
  const visit = (name: string, from: string) => {
    for (let dir = from; ; dir = dirname(dir)) {
      const candidate = join(dir, 'node_modules', name);
      if (existsSync(join(candidate, 'package.json'))) {
        if (seen.has(candidate)) return;
        seen.add(candidate);
        const manifest = JSON.parse(readFileSync(join(candidate, 'package.json'), 'utf8')) as {
          dependencies?: Record<string, string>;
          optionalDependencies?: Record<string, string>;
        };
        for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies }))
          visit(dep, candidate);
        return;
      }
      if (dir === dirname(dir)) return;
    }
  };
  for (const name of names) visit(name, join(REPO_ROOT, 'services', 'documents'));
  return [...seen].reduce((total, dir) => total + folderBytes(dir), 0);
}

/** A package's own files: the packages nested under its node_modules are counted on their own. */
function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules') total += folderBytes(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

/** Installed size of Debian's Chromium packages (dpkg's own figure), or undefined without dpkg. */
function chromiumPackagesBytes(): number | undefined {
  try {
    const out = execFileSync('dpkg-query', ['-W', '-f=${Package} ${Installed-Size}\\n', 'chromium*'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return out
      .split('\n')
      .map((line) => Number(line.split(' ')[1]))
      .filter((kib) => Number.isFinite(kib) && kib > 0)
      .reduce((total, kib) => total + kib * 1024, 0);
  } catch {
    return undefined;
  }
}

const mb = (bytes: number | undefined) => (bytes === undefined ? 'unknown' : `${round(bytes / 1e6, 1)} MB`);

/** The invoice the documents service's tests read back (@billing/testing's sample). */
const LINES = sampleInvoice().lines.length;

async function main(): Promise<number> {
  process.stdout.write(
    `invoice-pdf benchmark: a ${LINES}-line invoice, one render at a time, ${SECONDS} s per run after ${WARMUP_S} s warm-up\n`,
  );
  const found = ensureChromium(thisMachine, (message) => process.stdout.write(`${message}\n`));
  if (!found.ok) {
    process.stderr.write(`${found.problem}\n`);
    return 1;
  }
  const fonts = await startFontServer();
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({
      executablePath: found.path,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    const page = await browser.newPage();
    await page.goto(fonts.url);
    const chromiumLayout = chromiumPrint(page, (invoice) => invoiceHtml(invoiceText(invoice)));
    const chromiumPlain = chromiumPrint(page, plainHtml);

    const same = sampleInvoice();
    const fresh = (k: number): InvoiceDocument => ({ ...sampleInvoice(), number: `INV-${String(k).padStart(8, '0')}` });
    // A second apart: a PDF that carries the time of its render (to the second) shows it then.
    const sameBytes = async (render: Render) => {
      const first = await render(same);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      return first.equals(await render(same));
    };

    const candidates = [
      { name: 'PDFKit', layout: renderInvoicePdf, plain: pdfkitPlainText },
      { name: 'Chromium page.pdf()', layout: chromiumLayout, plain: chromiumPlain },
    ];
    const results = [];
    for (const candidate of candidates) {
      const baseline = await measure(candidate.plain, fresh);
      const cold = await measure(throughCache(candidate.layout), fresh);
      const cached = await measure(throughCache(candidate.layout), () => same);
      results.push({ name: candidate.name, baseline, cold, cached, deterministic: await sameBytes(candidate.layout) });
    }

    const rows = results.flatMap((r) =>
      (
        [
          [`${r.name}: cold (key, render, keep)`, r.cold],
          [`${r.name}: cached (same state)`, r.cached],
          [`${r.name} baseline: same strings, no layout`, r.baseline],
        ] as const
      ).map(([label, f]) => [
        label,
        round(f.perSecond, 1).toString(),
        round(f.p50Ms, 3).toString(),
        round(f.p99Ms, 3).toString(),
        round(f.cpuMsPerPdf, 2).toString(),
        String(f.bytes),
        round(f.perSecond / r.baseline.perSecond, 3).toString(),
        round(f.p99Ms / r.baseline.p99Ms, 3).toString(),
      ]),
    );
    const pdfkitBytes = npmClosureBytes(['pdfkit', 'fontkit', 'dejavu-fonts-ttf']);
    const playwrightBytes = npmClosureBytes(['playwright-core']);
    const debianBytes = chromiumPackagesBytes();
    process.stdout.write(
      `\n${table([
        ['render', 'PDFs/s', 'p50 ms', 'p99 ms', 'CPU ms/PDF', 'bytes', 'x baseline PDFs/s', 'x baseline p99'],
        ...rows,
      ])}\n\n${results.map((r) => `${r.name}: the same state rendered twice gives the same bytes: ${r.deterministic ? 'yes' : 'no'}`).join('\n')}\n` +
        `what each adds to the image: PDFKit, fontkit and the DejaVu package ${mb(pdfkitBytes)}; ` +
        `playwright-core ${mb(playwrightBytes)} plus Debian's chromium packages ${mb(debianBytes)} (before their shared libraries)\n` +
        `CPU ms/PDF: this process and the browser's processes, over the measured run\n\n`,
    );
    const json = (f: Figures) => ({
      pdfs_per_s: round(f.perSecond, 1),
      p50_ms: round(f.p50Ms, 3),
      p99_ms: round(f.p99Ms, 3),
      cpu_ms_per_pdf: round(f.cpuMsPerPdf, 2),
      bytes: f.bytes,
    });
    process.stdout.write(
      `${JSON.stringify({
        bench: 'invoice-pdf',
        lines: LINES,
        seconds: SECONDS,
        node: process.version,
        chromium: browser.version(),
        candidates: results.map((r) => ({
          name: r.name,
          cold: json(r.cold),
          cached: json(r.cached),
          baseline: json(r.baseline),
          ratio_cold_pdfs_per_s: round(r.cold.perSecond / r.baseline.perSecond, 4),
          ratio_cold_p99: round(r.cold.p99Ms / r.baseline.p99Ms, 4),
          ratio_cached_pdfs_per_s: round(r.cached.perSecond / r.baseline.perSecond, 4),
          same_bytes_for_same_state: r.deterministic,
        })),
        image_bytes: { pdfkit: pdfkitBytes, playwright_core: playwrightBytes, chromium_debian: debianBytes ?? null },
      })}\n`,
    );
    return 0;
  } finally {
    await browser?.close();
    await new Promise<void>((resolve) => fonts.server.close(() => resolve()));
  }
}

runBenchmark('invoice-pdf', main);
