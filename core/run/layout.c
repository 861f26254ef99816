/*
 * Laying out files before the timed phase: every file the plan marked
 * (missing, or ours and too small) is written sequentially from its
 * current end to the size the run needs, in 1 MiB writes of pseudo-random
 * bytes, then fsync'd (fio's create_fsync).  Up to four files are written
 * in parallel, each by one thread; progress is counted in r->laid_out.
 * A new file is marked as luabench's (files.h) right after its creation.
 * Ctrl-C (lb_run_interrupt_all) or lb_run_stop ends the layout.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/files.h"
#include "run/layout.h"
#include "run/run_state.h"

#define LAYOUT_CHUNK (1u << 20)
#define LAYOUT_THREADS 4

struct layout {
    struct lb_run *r;
    struct lb_plan *p;
    size_t *todo, ntodo;
    atomic_size_t next;
    pthread_mutex_t mu;
    int err;                     /* the first failure; l->mu */
};

static int layout_err(struct layout *l)
{
    int err;

    pthread_mutex_lock(&l->mu);
    err = l->err;
    pthread_mutex_unlock(&l->mu);
    return err;
}

static int layout_fail(struct layout *l, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int layout_fail(struct layout *l, int err, const char *fmt, ...)
{
    va_list ap;

    pthread_mutex_lock(&l->mu);
    if (!l->err) {
        l->err = err;
        va_start(ap, fmt);
        vsnprintf(l->r->err, sizeof(l->r->err), fmt, ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&l->mu);
    return err;
}

static bool layout_stopped(struct layout *l)
{
    return __atomic_load_n(&l->r->stop, __ATOMIC_RELAXED) ||
           atomic_load(&lb_interrupt_gen) != l->r->intr0;
}

static int write_range(struct layout *l, struct lb_target *t, int fd, uint64_t off, void *buf)
{
    while (off < t->need) {
        size_t n = t->need - off < LAYOUT_CHUNK ? t->need - off : LAYOUT_CHUNK;
        ssize_t w;

        if (layout_stopped(l))
            return layout_fail(l, -EINTR, "interrupted while laying out %s", t->path);
        w = pwrite(fd, buf, n, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return layout_fail(l, w < 0 ? -errno : -ENOSPC, "cannot lay out %s: %s", t->path,
                               strerror(w < 0 ? errno : ENOSPC));
        off += (uint64_t)w;
        atomic_fetch_add(&l->r->laid_out, (uint64_t)w);
    }
    return 0;
}

static int layout_one(struct layout *l, struct lb_target *t, void *buf)
{
    int flags = O_WRONLY | O_CLOEXEC | (t->exists ? 0 : O_CREAT | O_EXCL);
    int fd = open(t->path, flags, 0644), ret;
    struct stat st;

    if (fd < 0)
        return layout_fail(l, -errno, t->exists ? "cannot open %s for writing: %s"
                           : "cannot create %s: %s", t->path, strerror(errno));
    if (!t->exists) {
        t->created = true;
        lb_file_mark(fd, t->path);
    }
    if (fstat(fd, &st) < 0)
        ret = layout_fail(l, -errno, "cannot stat %s: %s", t->path, strerror(errno));
    else
        ret = write_range(l, t, fd, (uint64_t)st.st_size, buf);
    if (!ret && fsync(fd) < 0)
        ret = layout_fail(l, -errno, "cannot fsync %s: %s", t->path, strerror(errno));
    close(fd);
    return ret;
}

static void *layout_thread(void *arg)
{
    struct layout *l = arg;
    uint64_t *buf = malloc(LAYOUT_CHUNK), x = (uint64_t)(uintptr_t)&buf | 1;

    if (!buf) {
        layout_fail(l, -ENOMEM, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < LAYOUT_CHUNK / 8; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        buf[i] = x;
    }
    for (;;) {
        size_t i = atomic_fetch_add(&l->next, 1);

        if (i >= l->ntodo || layout_err(l))
            break;
        layout_one(l, &l->p->t[l->todo[i]], buf);
    }
    free(buf);
    return NULL;
}

int lb_layout_files(struct lb_run *r, struct lb_plan *p)
{
    struct layout l = { .r = r, .p = p };
    pthread_t tid[LAYOUT_THREADS];
    unsigned nt = 0;

    l.todo = calloc(p->n ? p->n : 1, sizeof(*l.todo));
    if (!l.todo)
        return lb_run_fail(r, -ENOMEM, "out of memory");
    for (size_t i = 0; i < p->n; i++)
        if (p->t[i].layout)
            l.todo[l.ntodo++] = i;
    pthread_mutex_init(&l.mu, NULL);
    atomic_init(&l.next, 0);
    while (nt + 1 < LAYOUT_THREADS && nt + 1 < l.ntodo &&
           pthread_create(&tid[nt], NULL, layout_thread, &l) == 0)
        nt++;
    if (l.ntodo)
        layout_thread(&l);
    for (unsigned i = 0; i < nt; i++)
        pthread_join(tid[i], NULL);
    pthread_mutex_destroy(&l.mu);
    free(l.todo);
    return l.err;
}
