/* Description: the block map of the random map (core/run/blkmap.c), over
 * sizes around its 64-block words and 4096-block summary words: a mark
 * stops before the first done block and at the end; the next free block is
 * found after a done one, wrapping to the start; the map is full exactly
 * when every block is done, never beyond its end.  Checked against a plain
 * array of flags under a fixed sequence of random marks. */
#include <stdlib.h>
#include <string.h>
#include "run/blkmap.h"
#include "check.h"

static uint64_t x = 88172645463325252ull;

static uint64_t next(void)
{
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
}

static uint64_t slow_next_free(const unsigned char *done, uint64_t n, uint64_t b)
{
    for (uint64_t k = 0; k < n; k++)
        if (!done[(b + k) % n])
            return (b + k) % n;
    return UINT64_MAX;
}

static void one_size(uint64_t n)
{
    struct lb_blkmap m;
    unsigned char *done = calloc(n, 1);
    uint64_t count = 0, steps = 0;

    CHECK(lb_blkmap_init(&m, n) == 0, "init %llu", (unsigned long long)n);
    CHECK(lb_blkmap_next_free(&m, n - 1) == n - 1, "n %llu: the last block free",
          (unsigned long long)n);
    while (!lb_blkmap_full(&m) && steps++ < 4 * n + 64) {
        uint64_t b = next() % n, want = 1 + next() % 100, f, got, k;

        f = lb_blkmap_next_free(&m, b);
        CHECK(f == slow_next_free(done, n, b), "n %llu: next free after %llu: %llu",
              (unsigned long long)n, (unsigned long long)b, (unsigned long long)f);
        if (f == UINT64_MAX)
            break;
        for (k = 0; k < want && f + k < n && !done[f + k]; k++)
            done[f + k] = 1;
        got = lb_blkmap_mark(&m, f, want);
        CHECK(got == k, "n %llu: mark %llu from %llu: %llu, expected %llu",
              (unsigned long long)n, (unsigned long long)want, (unsigned long long)f,
              (unsigned long long)got, (unsigned long long)k);
        CHECK(lb_blkmap_mark(&m, f, want) == 0, "n %llu: %llu marked twice",
              (unsigned long long)n, (unsigned long long)f);
        count += k;
        CHECK(m.done == count && lb_blkmap_full(&m) == (count == n), "n %llu: %llu done",
              (unsigned long long)n, (unsigned long long)m.done);
    }
    CHECK(count == n && lb_blkmap_next_free(&m, 0) == UINT64_MAX,
          "n %llu: %llu blocks done at the end", (unsigned long long)n,
          (unsigned long long)count);
    lb_blkmap_clear(&m);
    CHECK(m.done == 0 && lb_blkmap_next_free(&m, n / 2) == n / 2 &&
          lb_blkmap_mark(&m, 0, n + 100) == n && lb_blkmap_full(&m),
          "n %llu: after clear, one mark of every block", (unsigned long long)n);
    lb_blkmap_free(&m);
    lb_blkmap_free(&m);
    free(done);
}

int main(void)
{
    static const uint64_t sizes[] = { 1, 2, 63, 64, 65, 127, 128, 4095, 4096, 4097,
                                      64 * 64 * 3 + 5, 262144 + 1 };

    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        one_size(sizes[i]);
    return failures ? 1 : 0;
}
