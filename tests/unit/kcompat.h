/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kcompat.h - the few kernel primitives module/na_*.h use, for user space
 *
 * Lets the unit tests compile the module's pure logic from the very same
 * headers.  The atomics map to the GCC builtins with the kernel's
 * semantics: cmpxchg() is fully ordered, smp_store_release() releases.
 */
#ifndef NA_KCOMPAT_H
#define NA_KCOMPAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

typedef uint8_t u8;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

/* the kernel's sort() without its swap function, and no scheduler */
#define sort(base, num, size, cmp, swap)	qsort(base, num, size, cmp)
#define cond_resched()				do { } while (0)

#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)

#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)

#define cmpxchg(p, old, new)						\
({									\
	__typeof__(*(p)) __old = (old);					\
	__atomic_compare_exchange_n((p), &__old, (new), 0,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);\
	__old;								\
})

#endif /* NA_KCOMPAT_H */
