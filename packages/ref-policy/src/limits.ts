/** The most approving reviews a rule may require (docs/decisions/README.md: GitHub stops at 6; 10 leaves
 *  room for larger teams while keeping a rule satisfiable). Accounts refuses more, and the web's
 *  settings form says the same bound. */
export const MAX_REQUIRED_APPROVALS = 10;
