/**
 * What a deleted repository leaves behind in this service, removed in this order in one
 * transaction (`$1` = repository id), children before parents. After these, every other table of
 * the schema with a `repo_id` column is swept too (lifecycle-queries.ts), so a table added later
 * is covered without an entry here; one whose rows hang on a merge request needs
 * `ON DELETE CASCADE` or a statement here.
 */
export const REPOSITORY_DATA_DELETES: string[] = [
  'DELETE FROM merge_request_comments WHERE mr_id IN (SELECT id FROM merge_requests WHERE repo_id = $1)',
  'DELETE FROM merge_intents WHERE repo_id = $1',
  'DELETE FROM merge_requests WHERE repo_id = $1',
  'DELETE FROM merge_request_counters WHERE repo_id = $1',
  'DELETE FROM activity WHERE repo_id = $1',
  'DELETE FROM handled_events WHERE repo_id = $1',
];
