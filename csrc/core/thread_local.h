/* The storage class of a per-thread static in the C core (dispatch.c's forced tier,
 * rules/qbinary_proof.c's proof memo): written once here so every user spells the
 * same three compiler cases. (The Python extensions' memos have their own,
 * SIMDOPS_PY_TLS in src/simdops/_ext/_memo_common.h: they see csrc/include only.) */
#ifndef SIMDOPS_THREAD_LOCAL_H
#define SIMDOPS_THREAD_LOCAL_H

#if defined(_MSC_VER)
#define SIMDOPS_THREAD_LOCAL __declspec(thread)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define SIMDOPS_THREAD_LOCAL _Thread_local
#else
#define SIMDOPS_THREAD_LOCAL __thread
#endif

#endif
