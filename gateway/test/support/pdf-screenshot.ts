import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { PDFJS_BROWSER_BUILD } from '@billing/testing';

const VIEWER = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>PDF</title>
<style>body{margin:0;background:#888}canvas{display:block;margin:0 auto;background:#fff}</style></head>
<body><canvas id="page"></canvas><script type="module">
import { getDocument, GlobalWorkerOptions } from '/pdf.mjs';
GlobalWorkerOptions.workerSrc = '/pdf.worker.mjs';
const pdf = await getDocument('/document.pdf').promise;
const first = await pdf.getPage(1);
const viewport = first.getViewport({ scale: 1.5 });
const canvas = document.getElementById('page');
canvas.width = viewport.width;
canvas.height = viewport.height;
await first.render({ canvas, canvasContext: canvas.getContext('2d'), viewport }).promise;
document.body.dataset.rendered = 'yes';
</script></body></html>`;

/**
 * A PNG of a PDF's first page, drawn by pdf.js in Chromium from a server of this process (no
 * CDN, no file:// modules): how the README shows what "Download PDF" gives.
 */
export async function screenshotPdfFirstPage(browser: Browser, pdf: Buffer, path: string): Promise<void> {
  const files: Record<string, [string, Buffer | string]> = {
    '/': ['text/html', VIEWER],
    '/pdf.mjs': ['text/javascript', readFileSync(PDFJS_BROWSER_BUILD.module)],
    '/pdf.worker.mjs': ['text/javascript', readFileSync(PDFJS_BROWSER_BUILD.worker)],
    '/document.pdf': ['application/pdf', pdf],
  };
  const server = createServer((req, res) => {
    const file = files[req.url ?? ''];
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file[0] }).end(file[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const context = await browser.newContext({ viewport: { width: 960, height: 1260 } });
  try {
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await page.waitForSelector('body[data-rendered="yes"]', { timeout: 30_000 });
    await page.locator('#page').screenshot({ path });
  } finally {
    await context.close();
    server.close();
  }
}
