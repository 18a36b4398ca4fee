/* Cluster mode: the fence (docs/wire.md, "The fence") across the ordinary slot migration
 * (SETSLOT, MIGRATE). */
#ifndef EMQ_FENCE_MOVE_H
#define EMQ_FENCE_MOVE_H

#include "api.h"

/* Installs the module's one command filter: in cluster mode MIGRATE never carries
 * {emq}:version and a CLUSTER command about slot 9051 starts the watch of its migration state;
 * with `migrateslots`, CLUSTER MIGRATESLOTS of slot 9051 is refused (slot-migration.c).
 * 0 on failure. */
int fence_move_setup(Ctx *ctx, int migrateslots);

#endif
