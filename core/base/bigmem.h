/*
 * Arrays of one entry per file or sample (millions of them): zeroed
 * memory mapped on its own and backed by huge pages where the kernel
 * allows (transparent huge pages on madvise).  Touching 80 MB in 4 KiB
 * pages costs half a second of page faults on a VM, in 2 MiB pages a few
 * milliseconds.  Small arrays are as cheap with calloc: use these for
 * arrays that grow with the dataset.
 */
#ifndef LB_BIGMEM_H
#define LB_BIGMEM_H

#include <stddef.h>

/* n zeroed bytes, or NULL (errno set). */
void *lb_big_alloc(size_t n);
/* Frees what lb_big_alloc(n) returned; NULL is fine. */
void lb_big_free(void *p, size_t n);

#endif
