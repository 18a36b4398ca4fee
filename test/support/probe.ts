// The fail-fast probe connection is shared with the bench and the local stack (scripts/valkey/).
export { infoField, stringReply, withProbe } from '../../scripts/valkey/probe.js';
