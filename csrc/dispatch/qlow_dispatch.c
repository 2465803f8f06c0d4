/* Builds the low-bit kernel tables: scalar, then each tier over a copy of its
 * parent's, its own register function (when it has a file and the tier is
 * usable) overriding what it improves. */
#include <string.h>

#include "dispatch/qlow_dispatch.h"
#include "dispatch/dispatch.h"
#include "kernels/qlow/qlow_kernels.h"

/* every quantized row of SIMDOPS_QTYPES has kernels (QLOW_QUANTIZED) */
#define QLOW_X_ONE(tag) +1
#define QLOW_X_ROW_COUNT(NAME, tag, onnx, bits, kind, ...) +((kind) == QT_INT || (kind) == QT_F8 || (kind) == QT_F4)
typedef char qlow_quantized_list_matches_qtypes[(0 QLOW_QUANTIZED(QLOW_X_ONE)) == (0 SIMDOPS_QTYPES(QLOW_X_ROW_COUNT)) ? 1 : -1];

static simdops_qlow_table tables[SIMDOPS_TIER_COUNT];

static int register_tier(const char *name, simdops_qlow_table *t)
{
#define SIMDOPS_X_QLOW_CALL(tier)                                                                 \
    if (!strcmp(name, #tier))                                                                     \
        return simdops_qlow_register__##tier(t);
    SIMDOPS_QLOW_TIER_FILES(SIMDOPS_X_QLOW_CALL)
#undef SIMDOPS_X_QLOW_CALL
    return 0;
}

static void inherit(simdops_qlow_table *t, const simdops_qlow_table *below)
{
#define SIMDOPS_X_QLOW_INHERIT(field, type)                                                       \
    for (int q = 0; q < SIMDOPS_QT_COUNT; q++)                                                    \
        for (int f = 0; f < SIMDOPS_QF_COUNT; f++)                                                \
            if (!t->field[q][f])                                                                  \
                t->field[q][f] = below->field[q][f];
    SIMDOPS_QLOW_ENTRIES(SIMDOPS_X_QLOW_INHERIT)
#undef SIMDOPS_X_QLOW_INHERIT
}

/* called by simdops_init after it built the main tables, before it publishes them */
void simdops_qlow_init(const int *usable)
{
    for (int i = 0; i < SIMDOPS_TIER_COUNT; i++) {
        memset(&tables[i], 0, sizeof(tables[i]));
        if (usable[i])
            register_tier(simdops_tier_name(i), &tables[i]);
        if (i > 0)
            inherit(&tables[i], &tables[simdops_tier_parent(i)]);
    }
}

const simdops_qlow_table *simdops_qlow_tier_table(int i)
{
    return simdops_tier_table(i) ? &tables[i] : NULL;
}

const simdops_qlow_table *simdops_qlow_kernels(const simdops_kernel_table *kt)
{
    for (int i = 0; i < SIMDOPS_TIER_COUNT; i++)
        if (simdops_tier_table(i) == kt)
            return &tables[i];
    return &tables[0];
}
