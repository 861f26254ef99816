/*
 * Planning a run's files before any I/O: one worker per clone with its
 * file list (fio's filename list shared by all clones, or per clone
 * directory/"$jobname.$jobnum.$filenum" names), each file's region
 * (offset + clone * offset_increment, up to filesize as in fio, else size
 * split over the files, size=N% of an existing file, or the whole existing
 * file), what must be laid out (nothing with create_on_open: openfiles.c
 * creates missing files at their first open, and extends none), and the
 * safety rules.
 *
 * Safety: luabench writes (or extends) only files it created (files.h),
 * unless the job has allow_overwrite; never a block or character device
 * without it, except /dev/null.  readonly never creates, extends or writes.
 * Engines with LB_ENG_NOFILES touch no file: none is looked at.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/files.h"
#include "run/plan.h"
#include "run/run_state.h"

static const char *job_name(const struct lb_job *j)
{
    return j->name && *j->name ? j->name : "job";
}

static struct lb_worker *worker_new(struct lb_run *r, size_t j, unsigned clone, unsigned nfiles)
{
    struct lb_worker *w = calloc(1, sizeof(*w));

    if (!w)
        return NULL;
    w->files = calloc(nfiles, sizeof(*w->files));
    if (!w->files) {
        free(w);
        return NULL;
    }
    w->run = r;
    w->job = &r->jobs[j];
    w->eng = r->jr[j].eng;
    w->job_index = (unsigned)j;
    w->clone = clone;
    w->id = (unsigned)r->nw;
    w->sync = r->jr[j].flags & LB_ENG_SYNC;
    w->nofiles = r->jr[j].flags & LB_ENG_NOFILES;
    w->writes = lb_job_writes(w->job);
    w->nfiles = nfiles;
    for (unsigned i = 0; i < nfiles; i++) {
        w->files[i].fd = -1;
        w->files[i].reg_index = -1;
    }
    return w;
}

static int name_files(struct lb_worker *w, char **names, char **dirs, unsigned nd)
{
    const struct lb_job *job = w->job;

    for (unsigned i = 0; i < w->nfiles; i++) {
        const char *dir = nd ? dirs[(w->clone * w->nfiles + i) % nd] : NULL;

        w->files[i].path = names ? strdup(names[i])
                         : lb_file_name(dir, job->filename_format, job_name(job), w->clone, i);
        if (!w->files[i].path)
            return -ENOMEM;
    }
    return 0;
}

static int job_workers(struct lb_run *r, size_t j)
{
    const struct lb_job *job = &r->jobs[j];
    char **names = NULL, **dirs = NULL;
    unsigned nn = 0, nd = 0, nfiles;
    int ret = 0;

    if (job->filename && *job->filename) {
        if (lb_file_split(job->filename, &names, &nn))
            ret = -ENOMEM;
        else if (!nn)
            ret = lb_run_fail(r, -EINVAL, "filename '%s' names no file", job->filename);
        nfiles = nn;
    } else {
        nfiles = job->nrfiles ? job->nrfiles : 1;
        if (job->directory && *job->directory && lb_file_split(job->directory, &dirs, &nd))
            ret = -ENOMEM;
    }
    for (unsigned c = 0; c < r->jr[j].nclones && !ret; c++) {
        struct lb_worker *w = worker_new(r, j, c, nfiles);

        if (!w) {
            ret = -ENOMEM;
            break;
        }
        r->w[r->nw++] = w;
        ret = name_files(w, names, dirs, nd);
    }
    lb_file_list_free(names, nn);
    lb_file_list_free(dirs, nd);
    return ret == -ENOMEM ? lb_run_fail(r, ret, "out of memory") : ret;
}

/* targets: the distinct paths, found through a small hash table */

struct path_index {
    size_t *slot;                /* target index + 1, 0 = empty */
    size_t mask;
};

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;

    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}

static int target_find_or_add(struct lb_plan *p, struct path_index *ix, const char *path,
                              unsigned *out)
{
    size_t i = hash_str(path) & ix->mask;

    for (; ix->slot[i]; i = (i + 1) & ix->mask)
        if (strcmp(p->t[ix->slot[i] - 1].path, path) == 0) {
            *out = (unsigned)(ix->slot[i] - 1);
            return 0;
        }
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 16;
        struct lb_target *t = realloc(p->t, cap * sizeof(*t));

        if (!t)
            return -ENOMEM;
        p->t = t;
        p->cap = cap;
    }
    memset(&p->t[p->n], 0, sizeof(p->t[p->n]));
    p->t[p->n].path = strdup(path);
    if (!p->t[p->n].path)
        return -ENOMEM;
    ix->slot[i] = ++p->n;
    *out = (unsigned)(p->n - 1);
    return 0;
}

static int targets_collect(struct lb_run *r, struct lb_plan *p)
{
    struct path_index ix = { 0 };
    size_t total = 0, size = 16;
    int ret = 0;

    for (size_t i = 0; i < r->nw; i++)
        total += r->w[i]->nofiles ? 0 : r->w[i]->nfiles;
    while (size < 2 * total)
        size *= 2;
    ix.slot = calloc(size, sizeof(*ix.slot));
    ix.mask = size - 1;
    p->tix = calloc(r->nw, sizeof(*p->tix));
    if (!ix.slot || !p->tix)
        ret = -ENOMEM;
    for (size_t i = 0; i < r->nw && !ret; i++) {
        struct lb_worker *w = r->w[i];

        if (w->nofiles)
            continue;
        p->tix[i] = calloc(w->nfiles, sizeof(unsigned));
        if (!p->tix[i])
            ret = -ENOMEM;
        for (unsigned f = 0; f < w->nfiles && !ret; f++)
            ret = target_find_or_add(p, &ix, w->files[f].path, &p->tix[i][f]);
    }
    free(ix.slot);
    return ret ? lb_run_fail(r, ret, "out of memory") : 0;
}

/* Whether a missing path would be created among the device nodes: its
 * directory is /dev or below (/dev/shm excepted: a tmpfs for files). */
static bool under_dev(const char *path)
{
    char dir[PATH_MAX], real[PATH_MAX];
    const char *slash = strrchr(path, '/');

    if (!slash)
        snprintf(dir, sizeof(dir), ".");
    else
        snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
    if (!realpath(dir, real))
        return false;
    if (strcmp(real, "/dev") != 0 && strncmp(real, "/dev/", 5) != 0)
        return false;
    return strcmp(real, "/dev/shm") != 0 && strncmp(real, "/dev/shm/", 9) != 0;
}

/* The facts of an existing regular file or block device, read through one
 * descriptor that must be the file st describes. */
static int target_probe(struct lb_run *r, struct lb_target *t)
{
    int fd = lb_file_open_checked(t->path, O_RDONLY | O_NONBLOCK | O_NOCTTY, &t->id), ret = 0;

    if (fd == -ESTALE || fd == -ELOOP)
        return lb_run_fail(r, -EPERM, "refusing to use %s: it was replaced while it was "
                           "checked", t->path);
    if (fd < 0 && t->reg && fd == -EACCES)
        return 0;                        /* unreadable: not ours, its size from stat */
    if (fd < 0)
        return lb_run_fail(r, fd, "cannot open %s: %s", t->path, strerror(-fd));
    if (t->reg)
        t->ours = lb_file_is_ours_fd(fd, t->path) == 1;
    else if ((ret = lb_file_dev_size(fd, &t->have)) != 0)
        ret = lb_run_fail(r, ret, "cannot get the size of %s: %s", t->path, strerror(-ret));
    close(fd);
    return ret;
}

static int target_stat(struct lb_run *r, struct lb_target *t)
{
    struct stat st;
    bool link = false;
    int err = 0;

    if (lstat(t->path, &st) < 0 || ((link = S_ISLNK(st.st_mode)) && stat(t->path, &st) < 0))
        err = errno;
    if (err == ENOENT && under_dev(t->path))
        return lb_run_fail(r, -EINVAL, "refusing to create %s: no such device (a missing "
                           "path under /dev is never created)", t->path);
    if (err == ENOENT && link)
        return lb_run_fail(r, -EINVAL, "refusing to use %s: a symbolic link to nothing",
                           t->path);
    if (err == ENOENT)
        return 0;
    if (err)
        return lb_run_fail(r, -err, "cannot access %s: %s", t->path, strerror(err));
    t->exists = true;
    lb_file_id_set(&t->id, &st, link);
    if (S_ISREG(st.st_mode)) {
        t->reg = true;
        t->have = (uint64_t)st.st_size;
        return target_probe(r, t);
    } else if (S_ISBLK(st.st_mode)) {
        t->blk = true;
        return target_probe(r, t);
    } else if (S_ISCHR(st.st_mode)) {
        t->chr = true;
        t->devnull = lb_file_is_devnull(&st);
    } else {
        return lb_run_fail(r, -EINVAL, "%s is not a regular file or a device", t->path);
    }
    return 0;
}

/* regions */

static int size_existing(struct lb_run *r, const struct lb_job *job, const struct lb_target *t,
                         uint64_t foff, uint64_t *out)
{
    uint64_t v;

    if (!t->exists || t->chr)
        return lb_run_fail(r, -EINVAL, "no size for %s: %s; set size= or filesize=", t->path,
                           t->chr ? "a character device has none" : "the file does not exist");
    if (!t->have)
        return lb_run_fail(r, -EINVAL, "no size for %s: it is empty; set size= or filesize=",
                           t->path);
    if (foff >= t->have)
        return lb_run_fail(r, -EINVAL, "offset %llu is beyond the end of %s (%llu bytes)",
                           (unsigned long long)foff, t->path, (unsigned long long)t->have);
    v = job->size_pct ? (uint64_t)((unsigned __int128)t->have * job->size_pct / 100000) : t->have;
    *out = foff + v > t->have ? t->have - foff : v;
    return 0;
}

/* fio's rule (filesetup.c): filesize is the size of the file, so the
 * region runs from the offset to filesize; without it, size / nrfiles
 * bytes from the offset. */
static int region_size(struct lb_run *r, const struct lb_worker *w, const struct lb_target *t,
                       uint64_t foff, uint64_t *out)
{
    const struct lb_job *job = w->job;

    if (job->filesize && foff > job->filesize)
        return lb_run_fail(r, -EINVAL, "job '%s': offset %llu is beyond filesize %llu",
                           job_name(job), (unsigned long long)foff,
                           (unsigned long long)job->filesize);
    if (job->filesize)
        *out = job->filesize - foff;
    else if (job->size)
        *out = job->size / w->nfiles;
    else if (w->nofiles)
        *out = LB_NOFILES_SIZE / w->nfiles;
    else
        return size_existing(r, job, t, foff, out);
    return 0;
}

/* fio's get_start_offset: offset + clone * offset_increment; where either
 * is a percentage, it is of the file's size before the run (0 for a new
 * file, size / nrfiles without files) and the sum rounds up to offset_align
 * (the smallest bs of the three directions when 0). */
static int start_offset(struct lb_run *r, const struct lb_worker *w, const struct lb_target *t,
                        uint64_t *out)
{
    const struct lb_job *job = w->job;
    uint64_t real, inc, off, a;

    if (!job->offset_pct && !job->offset_increment_pct) {
        *out = job->offset + w->clone * job->offset_increment;
        return 0;
    }
    if (t)
        real = t->exists ? t->have : 0;
    else if (job->size)
        real = job->size / w->nfiles;
    else
        return lb_run_fail(r, -EINVAL, "job '%s': a percentage offset without files needs "
                           "size= (fio takes it of size / nrfiles)", job_name(job));
    inc = job->offset_increment_pct ? real * job->offset_increment_pct / 100
                                    : job->offset_increment;
    off = job->offset_pct ? real * job->offset_pct / 100 : job->offset;
    off += w->clone * inc;
    a = job->offset_align ? job->offset_align : lb_job_bs_min(job, 7);
    *out = (off + a - 1) / a * a;
    return 0;
}

static int regions(struct lb_run *r, struct lb_plan *p)
{
    for (size_t i = 0; i < r->nw; i++) {
        struct lb_worker *w = r->w[i];
        const struct lb_job *job = w->job;
        uint64_t align = lb_job_align(job);

        for (unsigned f = 0; f < w->nfiles; f++) {
            struct lb_target *t = w->nofiles ? NULL : &p->t[p->tix[i][f]];
            uint64_t size = 0, foff = 0;
            int ret = start_offset(r, w, t, &foff);

            if (ret)
                return ret;

            /* fio's file_append (filesetup.c get_start_offset): a regular
             * file's I/O starts at its end, whatever offset says */
            if (job->file_append && t && (!t->exists || t->reg))
                foff = t->exists ? t->have : 0;
            ret = region_size(r, w, t, foff, &size);

            if (ret)
                return ret;
            if (size < align)
                return lb_run_fail(r, -EINVAL, "%s: %llu bytes at offset %llu are less than "
                                   "one block (%llu bytes)", w->files[f].path,
                                   (unsigned long long)size, (unsigned long long)foff,
                                   (unsigned long long)align);
            w->files[f].size = size - size % align;
            w->files[f].file_offset = foff;
            if (t && foff + size > t->need)
                t->need = foff + size;
        }
    }
    return 0;
}

/* Where each file ends once laid out: its size or the bytes the run
 * needs, whichever is more (fio's real_file_size); a job without files, or
 * on a character device, has no end (fio's -1). */
static void file_ends(struct lb_run *r, struct lb_plan *p)
{
    for (size_t i = 0; i < r->nw; i++) {
        struct lb_worker *w = r->w[i];

        for (unsigned f = 0; f < w->nfiles; f++) {
            const struct lb_target *t = w->nofiles ? NULL : &p->t[p->tix[i][f]];

            w->files[f].file_end = !t || t->chr || t->devnull ? UINT64_MAX
                                   : t->have > t->need ? t->have : t->need;
        }
    }
}

/* safety */

/* fio's rule (filesetup.c extend_file): a new file's data is written
 * before the run when the job reads it, or writes with overwrite=1, or
 * through an engine that cannot extend a file; a job that only writes or
 * trims finds it allocated and sized, never written. */
static bool fills(const struct lb_job *job, unsigned eng_flags)
{
    bool writes = lb_job_writes_data(job);

    return (lb_rw_dirs(job->rw) & (1u << LB_READ)) || job->verify_only ||
           (writes && (job->overwrite || (eng_flags & LB_ENG_NOEXTEND)));
}

static int check_target(struct lb_run *r, const struct lb_job *job, unsigned eng_flags,
                        struct lb_target *t)
{
    bool writes = lb_job_writes(job);
    bool extend = t->exists && t->reg && t->have < t->need && !job->create_on_open;

    if (job->readonly) {
        if (writes)
            return lb_run_fail(r, -EROFS, "refusing to write to %s: readonly is set", t->path);
        if (!t->exists)
            return lb_run_fail(r, -ENOENT, "cannot open %s: No such file or directory "
                               "(readonly: nothing is created)", t->path);
        if (extend)
            return lb_run_fail(r, -EROFS, "%s holds %llu bytes, the job needs %llu (readonly: "
                               "files are not extended)", t->path,
                               (unsigned long long)t->have, (unsigned long long)t->need);
        return 0;
    }
    if (!t->exists && !job->allow_file_create && !t->devnull)
        return lb_run_fail(r, -ENOENT, "cannot open %s: No such file or directory "
                           "(file creation disallowed by allow_file_create=0)", t->path);
    if (t->exists && (writes || extend) && !job->allow_overwrite && !t->devnull &&
        !(t->reg && t->ours))
        return lb_run_fail(r, -EPERM, "refusing to write to %s: not created by luabench "
                           "(use allow_overwrite=true or --allow-overwrite)", t->path);
    if (t->blk && t->need > t->have)
        return lb_run_fail(r, -EINVAL, "%s holds %llu bytes, the job needs %llu", t->path,
                           (unsigned long long)t->have, (unsigned long long)t->need);
    if ((!t->exists && !job->create_on_open) || extend) {
        if (!t->layout) {
            t->fallocate = job->fallocate;
            t->job = job;
            t->create_fsync = job->create_fsync;
        }
        t->layout = true;
        t->fill |= fills(job, eng_flags);
    }
    return 0;
}

static int safety(struct lb_run *r, struct lb_plan *p)
{
    for (size_t i = 0; i < r->nw; i++) {
        struct lb_worker *w = r->w[i];

        for (unsigned f = 0; f < w->nfiles && !w->nofiles; f++) {
            int ret = check_target(r, w->job, lb_engine_flags(w->eng, w->job), &p->t[p->tix[i][f]]);

            if (ret)
                return ret;
        }
    }
    return 0;
}

int lb_plan_files(struct lb_run *r, struct lb_plan *p)
{
    size_t nw = 0;
    int ret = 0;

    memset(p, 0, sizeof(*p));
    for (size_t j = 0; j < r->njobs; j++) {
        r->jr[j].nclones = r->jobs[j].numjobs ? r->jobs[j].numjobs : 1;
        nw += r->jr[j].nclones;
    }
    r->w = calloc(nw, sizeof(*r->w));
    if (!r->w)
        return lb_run_fail(r, -ENOMEM, "out of memory");
    for (size_t j = 0; j < r->njobs && !ret; j++) {
        r->jr[j].first = (unsigned)r->nw;
        ret = job_workers(r, j);
    }
    if (!ret)
        ret = targets_collect(r, p);
    for (size_t t = 0; t < p->n && !ret; t++)
        ret = target_stat(r, &p->t[t]);
    if (!ret)
        ret = regions(r, p);
    if (!ret)
        file_ends(r, p);
    return ret ?: safety(r, p);
}

void lb_plan_free(struct lb_run *r, struct lb_plan *p)
{
    for (size_t i = 0; i < r->nw && p->tix; i++) {
        struct lb_worker *w = r->w[i];

        for (unsigned f = 0; f < w->nfiles && p->tix[i]; f++)
        {
            w->files[f].created = p->t[p->tix[i][f]].created;
            w->files[f].id = p->t[p->tix[i][f]].id;
        }
        free(p->tix[i]);
    }
    free(p->tix);
    for (size_t t = 0; t < p->n; t++)
        free(p->t[t].path);
    free(p->t);
    memset(p, 0, sizeof(*p));
}
