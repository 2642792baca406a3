import { escapeHtml } from '@billing/platform';
import type { DocumentText } from '../rendering/document-text';
import type { DocumentLabels } from '../rendering/labels';

const STYLE = `
  *{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;
  background:#f4f5f7;color:#1a1d23}main{max-width:46rem;margin:0 auto;padding:1.5rem 1rem}
  .card{background:#fff;border-radius:12px;padding:1.5rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
  header{display:flex;justify-content:space-between;align-items:baseline;gap:1rem;flex-wrap:wrap}
  h1{font-size:1.5rem;margin:0}h2{font-size:1rem;margin:0 0 .25rem;color:#3d434d}
  .badge{font-weight:700;border:2px solid currentColor;border-radius:6px;padding:.1rem .5rem;margin:0}
  .badge.paid{color:#0a6b3d}.badge.open{color:#8a4b00}.badge.other{color:#5b6270}
  dl{margin:0}dl div{display:flex;justify-content:space-between;gap:1rem;padding:.2rem 0}dd{margin:0;text-align:right}
  .facts{margin:1rem 0;max-width:24rem}.parties{display:grid;grid-template-columns:repeat(auto-fit,minmax(14rem,1fr));
  gap:1rem;margin:1rem 0}address{font-style:normal}table{width:100%;border-collapse:collapse;margin:1rem 0}
  th,td{padding:.4rem .3rem;border-bottom:1px solid #d5d9e0;text-align:left;vertical-align:top}
  th.figure,td.figure{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
  .totals{margin-left:auto;max-width:24rem}.totals dd{font-variant-numeric:tabular-nums}
  .totals .strong{font-weight:700;border-top:1px solid #d5d9e0}.lists{margin:1rem 0}.notes p{color:#3d434d}
  .actions{display:flex;gap:1rem;align-items:center;flex-wrap:wrap;margin-top:1.5rem}
  button{padding:.8rem 2rem;font-size:1.05rem;font-weight:700;border:0;border-radius:8px;cursor:pointer;
  background:#1b5fd9;color:#fff}a{color:#1b4fb3}button:focus-visible,a:focus-visible{outline:3px solid #f0a500;
  outline-offset:2px}.notice{background:#e8f5ee;color:#0a4d2c;border:1px solid #a9d8bd;border-radius:8px;padding:.75rem}
  .notice.problem{background:#fdecec;color:#8a1414;border-color:#f3b4b4}`;

/** A page of the documents service: the document's language, no script, nothing from elsewhere. */
export function documentPage(title: string, lang: string, body: string): string {
  return `<!doctype html>
<html lang="${escapeHtml(lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body><main><div class="card">${body}</div></main></body>
</html>`;
}

/** What the page offers besides the document: "Pay" (an OPEN invoice that owes), "Download PDF", a notice. */
export interface InvoicePageActions {
  /** The page's own path (`/i/<token>`): its forms and links are relative to it. */
  path: string;
  payable: boolean;
  notice: { text: string; problem: boolean } | null;
}

const rows = (pairs: { label: string; value: string; strong?: boolean }[], strongClass = false) =>
  pairs
    .map(
      (row) =>
        `<div${strongClass && row.strong ? ' class="strong"' : ''}><dt>${escapeHtml(row.label)}</dt><dd>${escapeHtml(row.value)}</dd></div>`,
    )
    .join('');

/**
 * The hosted invoice page (docs/api-behaviour.md §22): the same words and figures as the PDF
 * (one DocumentText, rendering/document-text.ts), laid out in HTML that works with the keyboard
 * alone and without script. "Pay" is a form posting to the page's own path.
 */
export function invoicePage(
  text: DocumentText,
  labels: DocumentLabels,
  status: string,
  actions: InvoicePageActions,
): string {
  const badgeClass = status === 'PAID' ? 'paid' : status === 'OPEN' ? 'open' : 'other';
  const notice = actions.notice
    ? `<p role="status" class="notice${actions.notice.problem ? ' problem' : ''}">${escapeHtml(actions.notice.text)}</p>`
    : '';
  const parties = text.parties
    .map(
      (party) =>
        `<section><h2>${escapeHtml(party.heading)}</h2><address>${party.lines.map(escapeHtml).join('<br>')}</address></section>`,
    )
    .join('');
  const header = text.table.columns
    .map(
      (column) => `<th scope="col"${column.kind === 'text' ? '' : ' class="figure"'}>${escapeHtml(column.label)}</th>`,
    )
    .join('');
  const body = text.table.rows
    .map(
      (row) =>
        `<tr>${row
          .map(
            (cell, index) =>
              `<td${text.table.columns[index].kind === 'text' ? '' : ' class="figure"'}>${escapeHtml(cell)}</td>`,
          )
          .join('')}</tr>`,
    )
    .join('');
  const lists = text.lists
    .map((list) => `<section class="lists"><h2>${escapeHtml(list.heading)}</h2><dl>${rows(list.rows)}</dl></section>`)
    .join('');
  const notes = text.notes.length
    ? `<div class="notes">${text.notes.map((note) => `<p>${escapeHtml(note)}</p>`).join('')}</div>`
    : '';
  const pay = actions.payable
    ? `<form method="post" action="${escapeHtml(actions.path)}/pay"><button type="submit">${escapeHtml(labels.page.pay)}</button></form>`
    : '';
  return documentPage(
    `${text.title} ${text.number}`,
    text.locale,
    `<header><h1>${escapeHtml(`${text.title} ${text.number}`)}</h1>${
      text.badge === null ? '' : `<p class="badge ${badgeClass}">${escapeHtml(text.badge)}</p>`
    }</header>
${notice}
<dl class="facts">${rows(text.facts)}</dl>
<div class="parties">${parties}</div>
<table><thead><tr>${header}</tr></thead><tbody>${body}</tbody></table>
<dl class="totals">${rows(text.totals, true)}</dl>
${lists}${notes}
<div class="actions">${pay}<a href="${escapeHtml(actions.path)}/pdf">${escapeHtml(labels.page.downloadPdf)}</a></div>`,
  );
}
