/* Cluster mode: keeping this node's {emq}:version across the server's own unowned-slot cleanup. */
#ifndef EMQ_FENCE_KEEP_H
#define EMQ_FENCE_KEEP_H

#include "api.h"

/* Subscribes to role changes; `key` is the fence key, `refresh` re-reads the node's copy into the
 * write check's cache. 0 on failure. */
int keep_setup(Ctx *ctx, Str *key, void (*refresh)(Ctx *ctx));
/* A trusted node-local read found a string without a TTL (`valid`), or not. */
void keep_remember(int valid, const char *v, size_t len);
/* A `del` keyspace event on the fence key: 1 when it was the server's cleanup and the copy will
 * be put back (the caller keeps its cache), 0 when it is an operator's change. */
int keep_on_delete(Ctx *ctx);
/* Any other change to the key (a command, a flush, a load): an operator's intent wins. */
void keep_cancel(void);
/* While a put-back is pending: the value the node holds by intent. 0 when none is pending. */
int keep_pending(const char **v, size_t *len);
/* Parks this node's copy outside the keyspace (node-locally, nothing propagated) while slot 9051
 * migrates away: 2 when a copy (a string without a TTL) was taken out now, 1 when it is parked
 * already, 0 when there is none.
 * The write check and EMQ.WIRE go on seeing it (keep_pending). */
int keep_park(Ctx *ctx);
/* Ends a park: the copy is put back (if the key is still absent), as after a cleanup. */
void keep_unpark(Ctx *ctx);
/* A copy is parked. */
int keep_parked(void);
/* The key is absent, parked, or a copy keep_park could park (a string without a TTL). */
int keep_parkable(Ctx *ctx);

#endif
