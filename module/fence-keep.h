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

#endif
