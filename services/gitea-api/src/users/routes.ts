import { Router } from 'express';
import { apiPath } from '@githost/api-client';
import { notFound, unauthenticated } from '@githost/errors';
import { route } from '@githost/http';
import { gatewayFor, type FeatureDeps } from '../http/context.js';
import { giteaUserOf } from './map-users.js';

/** `GET /user` and `GET /users/{username}`. */
export function userRoutes({ config }: FeatureDeps): Router {
  const router = Router();

  router.get(
    '/user',
    route(async (req, res) => {
      const gateway = gatewayFor(req, config);
      if (!gateway.signedIn) throw unauthenticated('token is required');
      const me = await gateway.get(apiPath('/api/user'));
      res.json(giteaUserOf({ username: me.username, email: me.email, is_admin: me.is_admin }, config.publicUrl));
    }),
  );

  router.get(
    '/users/:username',
    route(async (req, res) => {
      const username = String(req.params.username);
      const gateway = gatewayFor(req, config);
      // The explore list finds users by a part of the name; the exact one is picked from it.
      const found = await gateway.get(apiPath('/api/users', {}, `?q=${encodeURIComponent(username)}&per_page=100`));
      const user = found.find((u) => u.username.toLowerCase() === username.toLowerCase());
      if (!user) throw notFound(`user redirect does not exist [name: ${username}]`);
      res.json(giteaUserOf(user, config.publicUrl));
    }),
  );

  return router;
}
