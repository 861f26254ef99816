/*
 * Large zeroed arrays on mappings of their own (bigmem.h).
 */
#include <stdint.h>
#include <sys/mman.h>

#include "base/bigmem.h"

#define HUGE_FROM (4u << 20)    /* smaller: a huge page would be mostly waste */

void *lb_big_alloc(size_t n)
{
    void *p = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    if (n >= HUGE_FROM)
        madvise(p, n, MADV_HUGEPAGE);   /* a hint: refused, 4 KiB pages */
#endif
    return p;
}

void lb_big_free(void *p, size_t n)
{
    if (p)
        munmap(p, n ? n : 1);
}
