/*
 * Atomic slot migration (Valkey 9). Valkey refuses CLUSTER MIGRATESLOTS while a loaded module
 * has not declared it can live with it. emq keeps no state per slot: rows, pending sets and
 * records move as plain keys, and the fence is per node. So it declares support, on servers
 * that know the option (GetModuleOptionsAll is the mask of the options a server understands).
 *
 * One slot must not move that way: the fence's own, 9051 (CRC16("emq") mod 16384). Every
 * primary keeps a copy of {emq}:version there whatever node serves the slot, and Valkey 9.1.2
 * asserts that a slot it imports is empty: the target crashes (tested here). The module's command
 * filter (fence-move.c) turns a CLUSTER MIGRATESLOTS whose ranges hold that slot into
 * EMQ.MIGRATESLOTS-REFUSED, which answers why, before anything starts.
 */
#include "slot-migration.h"

#include <stddef.h>

#define FENCE_SLOT 9051
#define REFUSED "emq.migrateslots-refused"

static int covers_fence_slot(FilterCtx *f) {
    int argc = CommandFilterArgsCount(f);
    for (int i = 2; i < argc; i++) {
        size_t n;
        const char *s = StringPtrLen(CommandFilterArgGet(f, i), &n);
        if (!word_eq(s, n, "slotsrange")) continue;
        long long start, end;
        while (i + 2 < argc && StringToLongLong(CommandFilterArgGet(f, i + 1), &start) == OK &&
               StringToLongLong(CommandFilterArgGet(f, i + 2), &end) == OK) {
            if (start <= FENCE_SLOT && FENCE_SLOT <= end) return 1;
            i += 2;
        }
    }
    return 0;
}

void migrateslots_guard(FilterCtx *f) {
    size_t n;
    const char *s = StringPtrLen(CommandFilterArgGet(f, 1), &n);
    if (!word_eq(s, n, "migrateslots") || !covers_fence_slot(f)) return;
    /* The filter owns the replacement; the server frees the argument it replaces. */
    CommandFilterArgReplace(f, 0, CreateString(NULL, REFUSED, sizeof REFUSED - 1));
}

static int refused_cmd(Ctx *ctx, Str **argv, int argc) {
    (void)argv, (void)argc;
    return ReplyWithError(ctx, "ERR EMQ slot 9051 holds {emq}:version, of which every primary "
                               "keeps its own copy: CLUSTER MIGRATESLOTS would crash the target "
                               "(it must import into an empty slot). Leave slot 9051 out of the "
                               "ranges");
}

int slot_migration_setup(Ctx *ctx, int *declared) {
    *declared = (GetModuleOptionsAll() & OPTION_HANDLE_ATOMIC_SLOT_MIGRATION) != 0;
    if (!*declared) return 1;
    SetModuleOptions(ctx, OPTION_HANDLE_ATOMIC_SLOT_MIGRATION);
    return CreateCommand(ctx, REFUSED, refused_cmd, "fast", 0, 0, 0) == OK;
}
