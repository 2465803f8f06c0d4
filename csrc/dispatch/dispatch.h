/* The built tables: iteration over entries and slots, the tiers known and
 * usable here, the calling thread's table (dispatch.c). Seen by the layers
 * above the kernels, never by a kernel. */
#ifndef SIMDOPS_DISPATCH_H
#define SIMDOPS_DISPATCH_H

#include "kernels/registry.h"

/* Iteration over the table (for dispatch, info, the harness, Python). */
typedef void (*simdops_any_fn)(void);
int simdops_kernel_entry_count(void);
const char *simdops_kernel_entry_name(int entry);
int simdops_kernel_entry_slots(int entry);
/* The dtype name of a slot ("float32"; requant slots: the output type). */
const char *simdops_kernel_slot_name(int entry, int slot);
/* The dtype of a slot (requant slots: the output dtype). */
simdops_dtype simdops_kernel_slot_dtype(int entry, int slot);
/* 1 when the entry's slots are indexed by the call's output dtype (requant,
 * quantize), 0 when by x's dtype. */
int simdops_kernel_slot_is_output(int entry);
/* 1 when the op of this entry supports the slot's dtype (the entry must be set). */
int simdops_kernel_slot_required(int entry, int slot);
simdops_any_fn simdops_kernel_get(const simdops_kernel_table *t, int entry, int slot);
/* Every tier this target knows (all architectures; see simdops_tier_known). */
int simdops_tier_count(void);
/* 1 when tier i is built for this architecture. */
int simdops_tier_known(int i);
/* 1 when this CPU passes tier i's test and its parents' (whether or not the
 * tier was compiled in: a supported tier without a table is a build fault). */
int simdops_tier_cpu_supported(int i);
/* The built table of tier i, or NULL when it is not compiled in or not supported. */
const simdops_kernel_table *simdops_tier_table(int i);
const char *simdops_tier_name(int i);
/* The tier tier i inherits its missing entries from (0 for scalar). */
int simdops_tier_parent(int i);
/* The tier whose own kernel tier i's table uses for (entry, slot); -1 when unset. */
int simdops_kernel_origin(int tier, int entry, int slot);

/* The calling thread's table (its forced tier, else the process tier); also
 * records it as the thread's last-call tier. Entry points call it once and
 * pass the table down. Never NULL. */
const simdops_kernel_table *simdops_current_kernels(void);

/* The scalar kernel table: the reference every tier is tested against. */
const simdops_kernel_table *simdops_scalar_kernels(void);

/* Builds the tables (idempotent; done at import, under the GIL). */
void simdops_init(void);

#endif
