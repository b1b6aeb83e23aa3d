import type { PageDefinition } from '../registry.js';
import { addComment, addReview, merge, setState } from './actions.js';
import { detailPage } from './detail.js';
import { editPage, saveEdit } from './edit.js';
import { listPage } from './list.js';

const MR = '/:owner/:repo/-/merge-requests/:number';
export const mergeRequestPages: PageDefinition[] = [
  { method: 'GET', path: '/:owner/:repo/-/merge-requests', handle: (ctx, p) => listPage(ctx, p.owner!, p.repo!) },
  { method: 'GET', path: MR, keepable: true, handle: (ctx, p) => detailPage(ctx, p.owner!, p.repo!, p.number!) },
  { method: 'GET', path: `${MR}/edit`, signedIn: true, handle: (ctx, p) => editPage(ctx, p.owner!, p.repo!, p.number!) },
  { method: 'POST', path: `${MR}/edit`, signedIn: true, handle: (ctx, p) => saveEdit(ctx, p.owner!, p.repo!, p.number!) },
  { method: 'POST', path: `${MR}/comments`, signedIn: true, handle: (ctx, p) => addComment(ctx, p.owner!, p.repo!, p.number!) },
  { method: 'POST', path: `${MR}/reviews`, signedIn: true, handle: (ctx, p) => addReview(ctx, p.owner!, p.repo!, p.number!) },
  { method: 'POST', path: `${MR}/merge`, signedIn: true, handle: (ctx, p) => merge(ctx, p.owner!, p.repo!, p.number!) },
  { method: 'POST', path: `${MR}/state`, signedIn: true, handle: (ctx, p) => setState(ctx, p.owner!, p.repo!, p.number!) },
];
