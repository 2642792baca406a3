import { html, type SafeHtml } from '@billing/platform';
import { dashboardPage, signedOutPage, type Frame } from './layout';

/**
 * A refusal or failure as a page: the status's title and the API's detail (a 422's violations one
 * per line). Inside the dashboard's frame when the session is known, on its own otherwise.
 */
export function messagePage(frame: Frame | undefined, title: string, lines: string[], back?: string): string {
  const content: SafeHtml = html`<div class="notice problem" role="alert">
      ${lines.map((line) => html`<p>${line}</p>`)}
    </div>
    ${back ? html`<p><a href="${back}">Back</a></p>` : ''}`;
  return frame ? dashboardPage(frame, title, content) : signedOutPage(title, content);
}
