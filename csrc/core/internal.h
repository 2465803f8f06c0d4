/* Everything the layers above the kernels share (api, rules, driver): the
 * kernel ABI, the tables, errors and parameter rules. A kernel includes
 * core/kernel_abi.h and kernels/registry.h instead. */
#ifndef SIMDOPS_INTERNAL_H
#define SIMDOPS_INTERNAL_H

#include "core/errors.h"
#include "core/kernel_abi.h"
#include "dispatch/dispatch.h"
#include "driver/requant_channels.h"
#include "rules/params.h"

#endif
