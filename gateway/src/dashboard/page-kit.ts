import type { Request, Response } from 'express';
import type { RouteInput } from '../http/route';
import type { DashboardApi, DashboardCaller } from './dashboard-api';
import type { DashboardSessions, LiveSession } from './dashboard-sessions';
import { queryText } from './form-fields';
import { SECTIONS, type Frame, type Section } from './views/layout';

/** What a signed-in request carries from the session middleware (dashboard.router.ts) to its page. */
export interface SignedIn {
  session: LiveSession;
  caller: DashboardCaller;
  frame: Frame;
}

export const signedIn = (res: Response): SignedIn => {
  const state = res.locals.dashboard as SignedIn | undefined;
  if (!state) throw new Error('a dashboard page mounted before the session middleware');
  return state;
};

/** The page's frame (who, which project and mode, the navigation) with its section marked. */
export const frameFor = (res: Response, section: Section): Frame => ({ ...signedIn(res).frame, section });

/** The section a path is in, for the navigation of its page (error pages included). */
export function sectionOf(path: string): Section {
  const first = `/${path.split('/')[1] ?? ''}`;
  const found = (Object.keys(SECTIONS) as Section[]).find((s) => SECTIONS[s].path === first);
  return found ?? 'home';
}

/** Fixed notices after a change, by the code its redirect carries: nothing a URL says is shown as such. */
const NOTICES: Record<string, string> = {
  credit_note: 'Credit note issued.',
  resent: 'Delivery resent: one attempt was made now.',
  created: 'API key created.',
  revoked: 'API key revoked: calls with it are refused from now on.',
  saved: 'Saved.',
  plan_created: 'Plan created.',
  coupon_created: 'Coupon created.',
  tax_rate_created: 'Tax rate created.',
};
export const noticeOf = (req: Request): string | undefined => NOTICES[queryText(req, 'done') ?? ''];

/** The API's default page size (docs/api-behaviour.md §1); "Next page" follows a full page. */
export const PAGE_SIZE = 20;

/** What every section's pages use: the API as the signed-in caller, paging, the sessions. */
export interface PageKit {
  /** An operation of the API as the request's signed-in merchant, project and mode (DashboardApi). */
  call<T>(req: Request, res: Response, operationId: string, input?: RouteInput): Promise<T>;
  /** The list query of a page: the API's page size and the request's `starting_after`. */
  page(req: Request): { limit: number; starting_after: string | undefined };
  onFirstPage(req: Request): boolean;
  sessions: DashboardSessions;
}

export function pageKit(api: DashboardApi, sessions: DashboardSessions): PageKit {
  return {
    call: (req, res, operationId, input = {}) => api.call(operationId, signedIn(res).caller, input, req),
    page: (req) => ({ limit: PAGE_SIZE, starting_after: queryText(req, 'starting_after') }),
    onFirstPage: (req) => queryText(req, 'starting_after') === undefined,
    sessions,
  };
}
