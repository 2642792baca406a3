import { dirname, join } from 'node:path';
import { openSync, type Font } from 'fontkit';

/**
 * The typeface every document is set in, embedded in each PDF (subset to the glyphs it uses):
 * DejaVu Sans, which has every sign the platform's currencies need (₦ U+20A6, GH₵ U+20B5, R, KES,
 * $) and the spaces French number formatting uses (U+00A0, U+202F). It comes as TrueType files in
 * the `dejavu-fonts-ttf` npm package (its licence: that package's LICENSE, permissive), so no
 * machine's installed fonts change what a document looks like (docs/decisions.md, "Invoice PDFs
 * with PDFKit").
 */
const FONT_FOLDER = join(dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');

export const DOCUMENT_FONT_FILES = {
  regular: join(FONT_FOLDER, 'DejaVuSans.ttf'),
  bold: join(FONT_FOLDER, 'DejaVuSans-Bold.ttf'),
} as const;

export interface DocumentFonts {
  regular: Font;
  bold: Font;
}

let parsed: DocumentFonts | undefined;

/**
 * The fonts, parsed once per process and shared by every PDF: parsing the two 700 KB files took
 * most of a render's time when each PDF did it (docs/benchmarks.md, "invoice-pdf"). A parsed font
 * is only read from afterwards; each PDF keeps its own subset and layout cache.
 */
export function documentFonts(): DocumentFonts {
  parsed ??= { regular: openFont(DOCUMENT_FONT_FILES.regular), bold: openFont(DOCUMENT_FONT_FILES.bold) };
  return parsed;
}

function openFont(path: string): Font {
  const font = openSync(path);
  if (!('layout' in font)) throw new Error(`${path} is a font collection, not one font`);
  return font;
}
