// The condition wait is shared with the bench and the local stack (scripts/valkey/).
export { waitFor } from '../../scripts/valkey/wait.js';
