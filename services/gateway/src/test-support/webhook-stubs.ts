import { allowList } from '@audit/shared';
import type { WebhookRoutesOptions } from '../routes/webhooks.route.js';

const unused = () => Promise.reject(new Error('no webhook store in this test'));

/** The webhook dependencies of the app, for tests of other routes: an empty store, nothing resolvable. */
export const webhookStubs: Pick<WebhookRoutesOptions, 'webhooks' | 'targets'> = {
  webhooks: { create: unused, list: async () => [], disable: unused, remove: unused },
  targets: { allowHttp: false, allowed: allowList([]), resolve: unused },
};
