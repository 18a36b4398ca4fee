/* The wire fence (docs/wire.md, "The fence"): {emq}:version on this node, read on every write. */
#ifndef EMQ_FENCE_H
#define EMQ_FENCE_H

#include "api.h"

/* Parses `wire <identity>` module arguments and prepares the fence; 0 on a bad argument. */
int fence_setup(Ctx *ctx, Str **argv, int argc);
/* The identity this module was loaded with, for the load log line. */
const char *fence_wire(void);
/* Step 3 of every write: replies EMQWIRE and returns 0 unless this node holds the identity. */
int fence_ok(Ctx *ctx);
/* EMQ.WIRE -> [module identity, this node's value or nil]. */
int fence_read_cmd(Ctx *ctx, Str **argv, int argc);
/* EMQ.WIRE.INSTALL: writes this node's copy, replicated as a plain SET. */
int fence_install_cmd(Ctx *ctx, Str **argv, int argc);

#endif
