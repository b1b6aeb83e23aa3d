/**
 * What a deleted repository leaves behind in this service, removed in this order in one
 * transaction (`$1` = repository id). Children before parents; a table added later whose rows
 * belong to a repository or a merge request adds its statement here.
 */
export const REPOSITORY_DATA_DELETES: string[] = [
  'DELETE FROM merge_request_comments WHERE mr_id IN (SELECT id FROM merge_requests WHERE repo_id = $1)',
  'DELETE FROM merge_intents WHERE repo_id = $1',
  'DELETE FROM merge_requests WHERE repo_id = $1',
  'DELETE FROM merge_request_counters WHERE repo_id = $1',
  'DELETE FROM activity WHERE repo_id = $1',
  'DELETE FROM handled_events WHERE repo_id = $1',
];
