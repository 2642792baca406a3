import type { Request } from 'express';
import { z } from 'zod';
import { DashboardApi, dashboardKeyId, type DashboardCaller } from '../src/dashboard/dashboard-api';
import { numberOf, checkedOf, listOf, textOf } from '../src/dashboard/form-fields';
import { HttpError, RequestValidationError } from '../src/http/http-error';
import { defineRoute, type MountedRoute, type Route } from '../src/http/route';
import type { AuthenticatedMerchant } from '../src/middleware/auth';

const merchant = { id: 'ff613ee1-fe5c-466d-8756-658678551110', email: 'owner@acme.example' } as AuthenticatedMerchant;
const caller: DashboardCaller = { merchant, projectId: 'ef9238db-8506-45d2-9f44-ceb035f33c2d', livemode: false };
const req = {} as Request;

/** A route that answers what it was given: its principal and its validated inputs. */
const echo = (operationId: string, auth: Route['auth'], extra: Partial<Route> = {}): MountedRoute => ({
  path: `/${operationId}`,
  tag: { name: 'Echo', description: 'Echo' },
  alias: false,
  route: defineRoute({
    method: 'post',
    path: `/${operationId}`,
    operationId,
    summary: operationId,
    description: operationId,
    auth,
    response: { status: 200, description: 'echo' },
    handle: async (ctx: unknown) => ctx as never,
    ...extra,
  } as never),
});

/**
 * DashboardApi (docs/decisions.md, "Dashboard: server-rendered pages of the gateway that call the
 * API's own operations"): the route of an operationId, its own schemas, the principal its scheme takes.
 */
describe('the dashboard calling the API in-process', () => {
  const api = new DashboardApi(
    [
      echo('whoAmI', 'jwt'),
      echo('projectThings', 'apiKey', {
        params: z.object({ thing_id: z.uuid({ message: 'Thing not found' }) }),
        query: z.object({ limit: z.coerce.number().int().min(1).max(100).optional() }),
        body: z.object({ amount: z.number().positive() }),
      }),
      echo('both', 'dual'),
      echo('open', 'none'),
      { ...echo('whoAmI', 'jwt'), alias: true, path: '/old/whoAmI' },
    ],
    false,
  );
  const thing = '5b0f3b7e-2d4c-4f0e-9a55-6f1e8c2d7a31';

  it("gives each scheme its principal: the merchant, the chosen project's key, both, or none", async () => {
    const key = {
      keyId: dashboardKeyId(caller),
      projectId: caller.projectId,
      merchantId: merchant.id,
      livemode: false,
    };
    await expect(api.call('whoAmI', caller, {}, req)).resolves.toMatchObject({ auth: { merchant } });
    await expect(
      api.call('projectThings', caller, { params: { thing_id: thing }, body: { amount: 5 } }, req),
    ).resolves.toMatchObject({ auth: { apiKey: key } });
    await expect(api.call('both', caller, {}, req)).resolves.toMatchObject({ auth: { merchant, apiKey: key } });
    await expect(api.call('open', undefined, {}, req)).resolves.toMatchObject({ auth: {} });
    await expect(api.call('whoAmI', undefined, {}, req)).rejects.toThrow('without a signed-in merchant');
  });

  it("validates with the route's own schemas, as the router does: a bad id is its 404, bad fields its 422", async () => {
    await expect(
      api.call(
        'projectThings',
        caller,
        { params: { thing_id: thing }, query: { limit: '3' }, body: { amount: 5 } },
        req,
      ),
    ).resolves.toMatchObject({ params: { thing_id: thing }, query: { limit: 3 }, body: { amount: 5 } });
    const notFound = await api
      .call('projectThings', caller, { params: { thing_id: 'nope' }, body: { amount: 5 } }, req)
      .catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(HttpError);
    expect(notFound).toMatchObject({ status: 404, detail: 'Thing not found' });
    const invalid = await api
      .call('projectThings', caller, { params: { thing_id: thing }, query: { limit: '0' }, body: { amount: 'x' } }, req)
      .catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(RequestValidationError);
    expect((invalid as RequestValidationError).violations.map((v) => v.loc.join('.'))).toEqual([
      'query.limit',
      'body.amount',
    ]);
    await expect(api.call('noSuchOperation', caller, {}, req)).rejects.toThrow('no operation noSuchOperation');
  });

  it('names the dashboard in a project and mode with one stable key id, another per mode', () => {
    expect(dashboardKeyId(caller)).toBe(dashboardKeyId({ ...caller }));
    expect(dashboardKeyId(caller)).not.toBe(dashboardKeyId({ ...caller, livemode: true }));
    expect(dashboardKeyId(caller)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('reads form fields into the shapes the routes take, leaving every rule to their schemas', () => {
    expect([numberOf('2500.25'), numberOf(' 10 '), numberOf(''), numberOf('1e3'), numberOf('12,50')]).toEqual([
      2500.25,
      10,
      undefined,
      '1e3',
      '12,50',
    ]);
    expect([textOf('  a '), textOf('   '), textOf(['a'])]).toEqual(['a', undefined, undefined]);
    expect([checkedOf('true'), checkedOf(undefined)]).toEqual([true, false]);
    expect([listOf('a'), listOf(['a', 'b']), listOf(undefined)]).toEqual([['a'], ['a', 'b'], []]);
  });
});
