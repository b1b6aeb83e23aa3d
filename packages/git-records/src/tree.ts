/** CONTRACT §5 tree entry. */
export interface TreeEntry {
  name: string;
  path: string;
  type: 'blob' | 'tree' | 'commit';
  mode: string;
  sha: string;
  size: number | null;
}
