import { html } from '@billing/platform';
import { signedOutPage } from './layout';

/**
 * The sign-in form (docs/api-behaviour.md §3, §25): email and password, as POST /auth/login takes
 * them. `problem` is why the last attempt was refused (the API's own words).
 */
export function signInPage(signInToken: string, email = '', problem?: string): string {
  return signedOutPage(
    'Sign in',
    html`${problem ? html`<p class="notice problem" role="alert" id="sign-in-problem">${problem}</p>` : ''}
      <form
        method="post"
        action="/dashboard/sign-in"
        class="stacked"
        ${problem ? html` aria-describedby="sign-in-problem"` : ''}
      >
        <input type="hidden" name="csrf_token" value="${signInToken}" />
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required value="${email}" />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit">Sign in</button>
      </form>`,
  );
}
