/*
 * Moving slot 9051 ({emq}:version's slot) the ordinary way: CLUSTER SETSLOT <slot> IMPORTING /
 * MIGRATING, MIGRATE ... KEYS ..., CLUSTER SETSLOT <slot> NODE, which `valkey-cli --cluster
 * reshard` runs (docs/wire.md, "The fence"). Every primary holds its own copy of the key in that
 * slot whatever node serves it, so the plain procedure broke the fence: MIGRATE found the target's
 * copy (BUSYKEY: the tool aborted and left the slot open) or, with REPLACE, replaced it and deleted
 * the source's own, after which the source refused every write.
 *
 * The copies never move; two measures make the procedure leave each in place:
 * - MIGRATE never carries {emq}:version: the filter takes it out of the key list, and a MIGRATE
 *   left without a key answers NOKEY, as for a key that expired meanwhile. The target keeps
 *   its own copy, the source keeps its own.
 * - While this primary has slot 9051 MIGRATING, its copy is parked outside the keyspace
 *   (fence-keep.c: node-locally, nothing propagated; the write check and EMQ.WIRE go on seeing
 *   it). So the slot holds only keys that must move: CLUSTER GETKEYSINSLOT, which the tool
 *   loops on until the slot is empty, ends; CLUSTER SETSLOT NODE, refused while the node "still
 *   holds keys for this hash slot", runs; and the source's migrating state clears with the
 *   last key. When the slot is no longer migrating (moved, or the move abandoned with SETSLOT
 *   STABLE), the copy is put back, a plain SET replicated like any put-back.
 * A copy that cannot be parked (a TTL, another type: it counts as missing already) would stay a
 * key of the slot, so SETSLOT 9051 MIGRATING is refused on that node, before anything moved.
 * The migration state is read from CLUSTER NODES (this node's "[9051->-<id>]"): right before a
 * command that reads the slot's keys (GETKEYSINSLOT, COUNTKEYSINSLOT, SETSLOT NODE), and by a
 * timer that any CLUSTER command about slot 9051 or a MIGRATE naming the key starts, because
 * SETSLOT MIGRATING / STABLE / NODE take effect after the filter (a primary with replicas first
 * waits for their acknowledgement).
 */
#include "fence-move.h"

#include <string.h>

#include "fence-keep.h"
#include "slot-migration.h"

#define FENCE_KEY "{emq}:version"
#define FENCE_SLOT_TEXT "9051"
#define FAST_MS 10        /* poll period just after a command about the slot */
#define SLOW_MS 200       /* ... later, while the copy is parked */
#define FAST_FOR_MS 60000 /* a SETSLOT waits for its replicas up to 2 x node timeout */
#define REFUSED "emq.setslot-refused"

static int cluster, guard_migrateslots;
static Ctx *timers; /* a filter has no context: timers are created on this one */
static int timer_armed;
static long long last_seen; /* ms: the last command about slot 9051 */

static int arg_is(FilterCtx *f, int pos, const char *lower) {
    size_t n;
    const char *s = StringPtrLen(CommandFilterArgGet(f, pos), &n);
    return word_eq(s, n, lower);
}

static int arg_bytes(FilterCtx *f, int pos, const char *bytes) {
    size_t n;
    const char *s = StringPtrLen(CommandFilterArgGet(f, pos), &n);
    return bytes_eq(s, n, bytes, strlen(bytes));
}

/* A CLUSTER NODES line "<id> <addr> <flags> ...": its flags hold "myself". */
static int is_myself(const char *line, size_t len) {
    const char *addr = memchr(line, ' ', len);
    if (!addr) return 0;
    const char *flags = memchr(addr + 1, ' ', (size_t)(line + len - addr - 1));
    if (!flags) return 0;
    flags++;
    const char *end = memchr(flags, ' ', (size_t)(line + len - flags));
    size_t n = end ? (size_t)(end - flags) : (size_t)(line + len - flags);
    for (size_t i = 0; i + 6 <= n; i++)
        if (memcmp(flags + i, "myself", 6) == 0 && (i == 0 || flags[i - 1] == ',')) return 1;
    return 0;
}

/* This node, a primary, has slot 9051 in migrating state ([9051->-<node id>] on its line). */
static int migrating(Ctx *ctx) {
    if (!(GetContextFlags(ctx) & CTX_PRIMARY)) return 0;
    Reply *r = Call(ctx, "CLUSTER", "c", "NODES");
    int found = 0;
    size_t n = 0;
    const char *text = r && CallReplyType(r) == REPLY_STRING ? CallReplyStringPtr(r, &n) : NULL;
    for (const char *line = text, *end = text ? text + n : NULL; line && line < end;) {
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        size_t len = eol ? (size_t)(eol - line) : (size_t)(end - line);
        if (is_myself(line, len)) {
            static const char mark[] = "[" FENCE_SLOT_TEXT "->-";
            for (size_t i = 0; !found && i + sizeof mark - 1 <= len; i++)
                found = memcmp(line + i, mark, sizeof mark - 1) == 0;
            break;
        }
        line = eol ? eol + 1 : end;
    }
    if (r) FreeCallReply(r);
    return found;
}

static void watch(Ctx *ctx, void *unused);

static void arm(Ctx *ctx, long long ms) {
    if (timer_armed) return;
    timer_armed = 1;
    CreateTimer(ctx, ms, watch, NULL);
}

/* Parks the copy while the slot migrates away, puts it back once it does not; 1 while it does. */
static int settle(Ctx *ctx) {
    if (migrating(ctx)) {
        /* Again on every tick: an EMQ.WIRE.INSTALL meanwhile writes the key back. */
        if (keep_park(ctx) == 2)
            Log(ctx, "notice", "emq: {emq}:version parked while slot 9051 migrates away");
        return 1;
    }
    if (keep_parked()) {
        keep_unpark(ctx);
        Log(ctx, "notice", "emq: slot 9051 no longer migrating: {emq}:version put back");
    }
    return 0;
}

static void watch(Ctx *ctx, void *unused) {
    (void)unused;
    timer_armed = 0;
    int recent = Milliseconds() - last_seen < FAST_FOR_MS;
    if (settle(ctx)) arm(ctx, recent ? FAST_MS : SLOW_MS);
    else if (recent) arm(ctx, FAST_MS); /* a SETSLOT may still be waiting for its replicas */
}

/* A command about slot 9051's migration: watch its state from now on. `now`: the command
 * reads the slot's keys (GETKEYSINSLOT, COUNTKEYSINSLOT, SETSLOT NODE's check), so the copy is
 * parked before it runs, not a tick later. The filter runs on the main thread between
 * commands, where the key API and Call() (CLUSTER NODES, which this module's filter skips)
 * are safe. */
static void seen(int now) {
    last_seen = Milliseconds();
    if (now) settle(timers);
    if (!timer_armed) {
        timer_armed = 1;
        CreateTimer(timers, 0, watch, NULL);
    }
}

/* MIGRATE host port key|"" db timeout [COPY] [REPLACE] [AUTH pw | AUTH2 user pw] [KEYS k...]
 * A copy this node cannot park (a TTL, another type: one that counts as missing anyway) is left
 * in the command and moves as a plain key, as without the module: kept out, it would stay listed
 * by GETKEYSINSLOT and valkey-cli would loop on it. */
static void migrate(FilterCtx *f) {
    int argc = CommandFilterArgsCount(f);
    if (argc < 6) return;
    int j = 6;
    while (j < argc && !arg_is(f, j, "keys"))
        j += arg_is(f, j, "auth") ? 2 : arg_is(f, j, "auth2") ? 3 : 1;
    int named = arg_bytes(f, 3, FENCE_KEY);
    for (int k = j + 1; !named && k < argc; k++) named = arg_bytes(f, k, FENCE_KEY);
    if (!named) return;
    seen(0);
    if (!keep_parkable(timers)) return;
    if (j >= argc) { /* the one-key form: as if the key were not there (NOKEY) */
        CommandFilterArgReplace(f, 3, CreateString(NULL, "", 0));
        CommandFilterArgInsert(f, argc, CreateString(NULL, "KEYS", 4));
        return;
    }
    for (int k = argc - 1; k > j; k--)
        if (arg_bytes(f, k, FENCE_KEY)) CommandFilterArgDelete(f, k);
}

/* Every command passes here: the first test (the name's length) lets all but a few go. */
static void filter(FilterCtx *f) {
    int argc = CommandFilterArgsCount(f);
    size_t n;
    const char *name = StringPtrLen(CommandFilterArgGet(f, 0), &n);
    if (n != 7) return; /* CLUSTER and MIGRATE have 7 letters */
    if (cluster && word_eq(name, n, "migrate")) {
        migrate(f);
        return;
    }
    if (argc < 3 || !word_eq(name, n, "cluster")) return;
    if (guard_migrateslots) migrateslots_guard(f);
    if (!cluster || !arg_bytes(f, 2, FENCE_SLOT_TEXT)) return;
    if (arg_is(f, 1, "getkeysinslot") || arg_is(f, 1, "countkeysinslot")) {
        seen(1);
    } else if (arg_is(f, 1, "setslot")) {
        /* A copy that cannot be parked would stay a key of the slot: refused before anything
         * moved (the filter owns the replacement; the server frees the argument it replaces). */
        if (argc >= 5 && arg_is(f, 3, "migrating") && !keep_parkable(timers)) {
            CommandFilterArgReplace(f, 0, CreateString(NULL, REFUSED, sizeof REFUSED - 1));
            return;
        }
        seen(argc >= 4 && arg_is(f, 3, "node"));
    }
}

static int refused_cmd(Ctx *ctx, Str **argv, int argc) {
    (void)argv, (void)argc;
    return ReplyWithError(ctx, "ERR EMQ slot 9051 holds {emq}:version, and this node's copy has a "
                               "TTL or is not a string, so it would move with the slot: reinstall "
                               "it (emq install, EMQ.WIRE.INSTALL) before moving slot 9051");
}

int fence_move_setup(Ctx *ctx, int migrateslots) {
    cluster = (GetContextFlags(ctx) & CTX_CLUSTER) != 0;
    guard_migrateslots = migrateslots;
    if (!cluster && !migrateslots) return 1;
    timers = GetDetachedThreadSafeContext(ctx);
    return timers && (!cluster || CreateCommand(ctx, REFUSED, refused_cmd, "fast", 0, 0, 0) == OK) &&
           RegisterCommandFilter(ctx, filter, FILTER_NOSELF) != NULL;
}
