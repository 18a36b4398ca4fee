/* Atomic slot migration (Valkey 9): declared where the server knows it, with one guard. */
#ifndef EMQ_SLOT_MIGRATION_H
#define EMQ_SLOT_MIGRATION_H

#include "api.h"

/* Declares support and installs the guard where the server knows the option; 0 on failure.
 * *declared tells whether it did. */
int slot_migration_setup(Ctx *ctx, int *declared);
/* A CLUSTER <sub> ... command (3 arguments or more) passing the module's filter: a MIGRATESLOTS
 * whose ranges hold slot 9051 becomes EMQ.MIGRATESLOTS-REFUSED. */
void migrateslots_guard(FilterCtx *f);

#endif
