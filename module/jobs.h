/* The admission commands (SPEC §4). */
#ifndef EMQ_JOBS_H
#define EMQ_JOBS_H

#include "api.h"

/* EMQ.ENQUEUE 2 <row> <pending> <id> <payload> -> 1 written, 0 row existed. */
int enqueue_cmd(Ctx *ctx, Str **argv, int argc);
/* EMQ.ADMIT 3 <row> <pending> <dedupe> <id> <payload> <ttl-ms> -> [status, id]. */
int admit_cmd(Ctx *ctx, Str **argv, int argc);

#endif
