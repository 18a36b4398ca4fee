/* EMQ.ENQUEUE and the writes every admission call shares (docs/wire.md, "The row at birth",
 * "The calls"). */
#ifndef EMQ_JOBS_H
#define EMQ_JOBS_H

#include "api.h"

extern const char WRONGTYPE[];
extern const char KIND[];

/* EMQ.ENQUEUE 2 <row> <pending> <id> <payload> -> 1 written, 0 row existed. */
int enqueue_cmd(Ctx *ctx, Str **argv, int argc);

/* Step 2 of the row calls: row = emq:{q}:job:<id>, pending = emq:{q}:pending; the q or NULL. */
const char *row_layout_ok(const Str *row, const Str *pending, const Str *id, size_t *qlen);
/* The key's type without touching its LRU/LFU (as EXISTS and TYPE); EMPTY when missing. */
int key_type(Ctx *ctx, Str *name);
/* Forwards a failed Call() as this command's reply (0); 1 when it succeeded. */
int call_ok(Ctx *ctx, Reply *r);
/* Step 7: replies ERR EMQ write-paused and returns 1 while the server pauses writes. */
int paused(Ctx *ctx);
/* Step 8, the row at birth: HSET of three fields in order, then ZADD 0 (replicated as such). */
int write_row(Ctx *ctx, Str *row, Str *pending, Str *id, Str *payload);

#endif
