import { POLY_HAVEN_API, PolyHavenApi } from '../src/assets/polyhaven-api.ts';
import { showNotice } from '../src/world/notices.ts';

/**
 * The API a page talks to: the real Poly Haven API unless `?api=<base URL>` names another (tests
 * point it at the fixture). A bad value is reported on the page and the real API is used.
 */
export function apiFromLocation(params: URLSearchParams = new URLSearchParams(location.search)): PolyHavenApi {
  const requested = params.get('api');
  if (requested) {
    try {
      return new PolyHavenApi({ baseUrl: requested });
    } catch (error) {
      showNotice({ level: 'warn', title: 'Ignoring ?api=', detail: `${(error as Error).message}\nUsing ${POLY_HAVEN_API}.` });
    }
  }
  return new PolyHavenApi();
}
