// The free-port probe is shared with the bench and the local stack (scripts/valkey/).
export { BUS_OFFSET, freePort, freePorts, isFree, LOOPBACK } from '../../scripts/valkey/ports.js';
