/*
 * emq: the EchoMQ Valkey module (docs/wire.md, "The calls", "The fence"), a product part that
 * self-managed clusters load.
 *
 *   EMQ.ENQUEUE 2 emq:{q}:job:<id> emq:{q}:pending <id> <payload>
 *   EMQ.ADMIT <5+n> <pending> <slot0..3> <row_i>×n <wire> <ttl-ms> (<claim_i> <payload_i>)×n
 *   EMQ.WIRE            (read: [module identity, this node's value or nil])
 *   EMQ.WIRE.INSTALL    (write this node's copy)
 *
 * Loaded with `--loadmodule emq.so [wire <identity>]`; the identity defaults to "1".
 * api.h declares the module API by hand; fence.c holds the wire fence, jobs.c EMQ.ENQUEUE,
 * admit*.c EMQ.ADMIT, slot-migration.c what Valkey 9's atomic slot migration needs.
 */
#include "admit.h"
#include "api.h"
#include "fence-move.h"
#include "fence.h"
#include "jobs.h"
#include "slot-migration.h"

#define EMQ_EXPORT __attribute__((visibility("default")))

EMQ_EXPORT int ValkeyModule_OnLoad(Ctx *ctx, Str **argv, int argc);
EMQ_EXPORT int RedisModule_OnLoad(Ctx *ctx, Str **argv, int argc);

int ValkeyModule_OnLoad(Ctx *ctx, Str **argv, int argc) {
    if (!api_init_attribs(ctx)) return ERR;
    if (IsModuleNameBusy && IsModuleNameBusy("emq")) return ERR;
    SetModuleAttribs(ctx, "emq", 1, 1);
    if (!api_init() || !records_setup() || !fence_setup(ctx, argv, argc)) return ERR;

    int asm_ok;
    if (!slot_migration_setup(ctx, &asm_ok) || !fence_move_setup(ctx, asm_ok)) return ERR;

    /* Key positions make the server answer MOVED / CROSSSLOT before the handler runs, as for
     * EVAL; a keynum key-spec alone is not used for routing (measured on Valkey 8.0.1 and
     * 9.1.2). EMQ.ADMIT's keys are at variable positions: getkeys-api, and the handler
     * declares them (admit.c). The ACL
     * flags follow EMQ.ENQUEUE's. */
    if (CreateCommand(ctx, "emq.enqueue", enqueue_cmd, "write deny-oom fast", 2, 3, 1) != OK ||
        CreateCommand(ctx, "emq.admit", admit_cmd, "write deny-oom fast getkeys-api", 0, 0, 0) !=
            OK)
        return ERR;
    /* The read and the install are separate commands, so an ACL can grant one alone
     * (docs/wire.md, "The fence"). The read is readonly: it answers on replicas, under CLIENT PAUSE
     * WRITE, NOREPLICAS and OOM. "write" keeps the install off replicas and behind a pause. */
    if (CreateCommand(ctx, "emq.wire", fence_read_cmd, "readonly fast", 0, 0, 0) != OK ||
        CreateCommand(ctx, "emq.wire.install", fence_install_cmd, "write deny-oom", 0, 0, 0) != OK)
        return ERR;

    Log(ctx, "notice", "emq: wire identity '%s'%s%s", fence_wire(),
        (GetContextFlags(ctx) & CTX_CLUSTER) ? " (cluster mode)" : "",
        asm_ok ? ", atomic slot migration supported" : "");
    return OK;
}

int RedisModule_OnLoad(Ctx *ctx, Str **argv, int argc) {
    return ValkeyModule_OnLoad(ctx, argv, argc);
}
