/*
 * Description: the posixaio engine reaps as fio's posixaio: getevents
 * returns every I/O it finds complete, more than max if so (fio's ignores
 * max), so a reap that waits for 8 of 8 in flight returns the 8 at once;
 * the I/Os come back with their bytes, and commit submits nothing more.
 */
#include <stdio.h>
#include <stdlib.h>
#include "engine_harness.h"
#include "tsan.h"

int main(void)
{
    const struct lb_engine_ops *ops = lb_engine_find("posixaio");
    struct lb_job job = { 0 };
    struct lb_io ios[8], *evs[8];
    char path[] = "/tmp/lb_posixaio_XXXXXX";
    unsigned char block[H_BS];
    struct harness h;
    int fd, n;

#ifdef LB_TSAN
    printf("skip: glibc's AIO threads are invisible to ThreadSanitizer\n");
    return 77;
#endif
    lb_clock_init();
    CHECK(ops && (lb_engine_flags(ops, &job) & LB_ENG_NOCOMMIT), "posixaio has no commit of its own");
    fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    for (unsigned b = 0; b < H_BLOCKS && fd >= 0; b++) {
        h_pattern(block, sizeof(block), (uint64_t)b * H_BS, 7);
        CHECK(write(fd, block, sizeof(block)) == (ssize_t)sizeof(block), "write");
    }
    close(fd);
    n = h_start(&h, ops, &job, path, O_RDONLY, 8);
    if (n < 0) {
        printf("skip: posixaio: %s\n", h.why[0] ? h.why : strerror(-n));
        unlink(path);
        return 77;
    }
    for (unsigned i = 0; i < 8; i++) {
        h_io(&ios[i], &h, LB_READ, (uint64_t)(3 + i) * H_BS, H_BS, (char *)h.bufs + i * H_BS);
        CHECK(ops->queue(h.priv, &ios[i]) == LB_Q_QUEUED, "read %u queued", i);
    }
    CHECK(ops->commit(h.priv) == 0, "commit");
    n = ops->getevents(h.priv, 8, 1, evs);
    CHECK(n == 8, "a reap of at least 8, at most 1, returned %d (fio's posixaio: all 8)", n);
    for (int i = 0; i < n; i++) {
        h_pattern(block, sizeof(block), evs[i]->offset, 7);
        CHECK(evs[i]->result == H_BS && memcmp(evs[i]->buf, block, H_BS) == 0,
              "read at %llu: result %lld or bytes wrong", (unsigned long long)evs[i]->offset,
              (long long)evs[i]->result);
    }
    CHECK(ops->getevents(h.priv, 0, 8, evs) == 0, "nothing left in flight");
    h_stop(&h);
    unlink(path);
    return failures ? 1 : 0;
}
