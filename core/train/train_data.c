/*
 * The dataset of a training emulation: sample sizes, file names, the
 * layout step and the descriptors kept open.
 *
 * Sample sizes are a pure function of the sample number (not of the run's
 * seed), so a dataset laid out once is reused by runs that shuffle with
 * other seeds.  The files the layout record counts are trusted without a
 * look (a stat each would be most of the start with millions of files);
 * beyond them, or without the record, or with relayout, a file already
 * present with the expected size is reused, whoever made it (it is only
 * read); one with another size is rewritten only when it is luabench's
 * (core/base/files.h), else the run fails.  Per-file arrays live on
 * huge pages (base/bigmem.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "base/bigmem.h"
#include "base/files.h"
#include "base/rng.h"
#include "train/train_data.h"
#include "train/train_fmt.h"

#define SIZE_KEY 0x3c6ef372fe94f82bull   /* sizes do not follow the seed */
#define DIRECT_ALIGN 4096ull
#define FD_RESERVE 64                    /* descriptors left for the rest */

static int fail(char *err, size_t len, const char *what, const char *path, int e)
{
    snprintf(err, len, "%s %s: %s", what, path, strerror(-e));
    return e;
}

static uint64_t size_draw(const struct lb_train_value *v, uint64_t s)
{
    uint64_t x = SIZE_KEY ^ s * 0x9e3779b97f4a7c15ull;
    uint64_t h1 = lb_rng_splitmix64(&x), h2 = lb_rng_splitmix64(&x);
    switch (v->dist) {
    case LB_TRAIN_UNIFORM:
        return v->a + h1 % (v->b - v->a + 1);
    case LB_TRAIN_NORMAL: {
        double u1 = ((h1 >> 11) + 1) * 0x1.0p-53, u2 = (h2 >> 11) * 0x1.0p-53;
        double z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
        double y = (double)v->a + z * (double)v->b, hi = v->a + 4.0 * v->b;
        return y < 1 ? 1 : y > hi ? (uint64_t)hi : (uint64_t)y;
    }
    default:
        return v->a;
    }
}

uint64_t lb_train_sample_size(const struct lb_train_cfg *c, uint64_t f, uint32_t j)
{
    if (c->container != LB_TRAIN_RAW)
        j = 0;                          /* an array: one sample size per file */
    uint64_t n = size_draw(&c->sample_size, f * c->samples_per_file + j);
    n = n ? n : 1;
    int round = c->direct && c->container == LB_TRAIN_RAW;   /* containers: read whole */
    return round ? (n + DIRECT_ALIGN - 1) & ~(DIRECT_ALIGN - 1) : n;
}

/* Subdirectories of the layout: 0 when the files are all in dir. */
static uint64_t dataset_subdirs(const struct lb_train_cfg *c)
{
    if (c->dlio_names)
        return c->num_subfolders > 1 ? c->num_subfolders : 0;
    if (c->num_subfolders == 0)
        return c->files > LB_DATASET_FANOUT_OVER ?
               (c->files + LB_DATASET_FANOUT - 1) / LB_DATASET_FANOUT : 0;
    return c->num_subfolders > 1 ? c->num_subfolders : 0;
}

static const char *const extensions[] = {".dat", ".npz", ".tfrecord", ".hdf5"};
static const char *const container_names[] = {"raw", "npz", "tfrecord", "hdf5"};
/* format=hdf5 in the record since the files are real HDF5; a bare "hdf5"
 * is the HDF5-like layout of earlier versions, which h5py cannot open. */
#define HDF5_RECORDED "hdf5 libver=latest"

/* lb_train_path's pieces: each appends to buf[*n ..] whole where it fits
 * (len > *n + the piece), else not at all; *n counts it either way.
 * Readers name a file per sample: these cost a fraction of snprintf's. */
static void put_str(char *buf, size_t len, size_t *n, const char *s)
{
    size_t k = strlen(s);
    if (*n + k < len)
        memcpy(buf + *n, s, k + 1);
    *n += k;
}

static void put_num(char *buf, size_t len, size_t *n, unsigned long long v, int width)
{
    char d[24];
    size_t k = 0;
    do
        d[k++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (k < (size_t)width)
        d[k++] = '0';
    if (*n + k < len) {
        for (size_t i = 0; i < k; i++)
            buf[*n + i] = d[k - 1 - i];
        buf[*n + k] = 0;
    }
    *n += k;
}

/* Decimal digits of v: DLIO's padding, len(str(v)). */
static int digits(uint64_t v)
{
    int n = 1;
    while (v >= 10)
        v /= 10, n++;
    return n;
}

/* DLIO's folder of the dataset: train, or valid for the evaluation's. */
static const char *dlio_split(const struct lb_train_cfg *c)
{
    return c->valid ? "/valid" : "/train";
}

/* DLIO's generator names: dir/train/img_F_of_N.ext, F padded to the digits
 * of N; over S > 1 subfolders, in dir/train/(F % S padded to the digits
 * of S)/ (the evaluation's: the same under dir/valid/).  DLIO sorts the
 * names, so its order is the files'. */
static int dlio_path(const struct lb_train_cfg *c, uint64_t f, char *buf, size_t len)
{
    size_t n = 0;
    put_str(buf, len, &n, c->dir);
    put_str(buf, len, &n, dlio_split(c));
    if (dataset_subdirs(c)) {
        put_str(buf, len, &n, "/");
        put_num(buf, len, &n, f % c->num_subfolders, digits(c->num_subfolders));
    }
    put_str(buf, len, &n, "/img_");
    put_num(buf, len, &n, (unsigned long long)f, digits(c->files));
    put_str(buf, len, &n, "_of_");
    put_num(buf, len, &n, (unsigned long long)c->files, 0);
    put_str(buf, len, &n, extensions[c->container]);
    return n < len && n <= INT_MAX ? (int)n : -ENAMETOOLONG;
}

/* The subfolder i of the layout. */
static int subdir_path(const struct lb_train_cfg *c, uint64_t i, char *buf, size_t len)
{
    if (!c->dlio_names)
        return lb_tree_dir(buf, len, c->dir, i);
    int n = snprintf(buf, len, "%s%s/%0*llu", c->dir, dlio_split(c), digits(c->num_subfolders),
                     (unsigned long long)i);
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : n;
}

int lb_train_path(const struct lb_train_cfg *c, uint64_t f, char *buf, size_t len)
{
    int packed = c->format == LB_TRAIN_PACKED;
    size_t n = 0;
    if (len == 0)
        return -ENAMETOOLONG;
    buf[0] = 0;
    if (c->paths) {
        put_str(buf, len, &n, c->paths[f]);
        return n < len ? (int)n : -ENAMETOOLONG;
    }
    if (c->dlio_names)
        return dlio_path(c, f, buf, len);
    put_str(buf, len, &n, c->dir);
    if (dataset_subdirs(c)) {
        uint64_t sub = c->num_subfolders ? f % c->num_subfolders : f / LB_DATASET_FANOUT;
        put_str(buf, len, &n, "/d");
        put_num(buf, len, &n, (unsigned long long)sub, 4);
    }
    put_str(buf, len, &n, packed ? "/shard_" : "/img_");
    put_num(buf, len, &n, (unsigned long long)f, packed ? 4 : 6);
    put_str(buf, len, &n, extensions[c->container]);
    return n < len && n <= INT_MAX ? (int)n : -ENAMETOOLONG;
}

void lb_dataset_shape(const struct lb_dataset *d, uint64_t f, struct lb_fmt_shape *s)
{
    const struct lb_train_cfg *c = d->cfg;
    s->spf = c->samples_per_file;
    s->len = lb_train_sample_size(c, f, 0);
    s->chunk = c->chunk_size;
    s->dsets = c->num_dset_per_record;
    s->deflate = c->compression == LB_TRAIN_ZIP;
    s->gzip = c->compression == LB_TRAIN_GZIP;
    s->level = (int)c->compression_level;
}

static uint64_t max_sample(const struct lb_train_cfg *c)
{
    const struct lb_train_value *v = &c->sample_size;
    uint64_t n = v->dist == LB_TRAIN_UNIFORM ? v->b :
                 v->dist == LB_TRAIN_NORMAL ? v->a + 4 * v->b : v->a;
    n = n ? n : 1;
    return (n + DIRECT_ALIGN - 1) & ~(DIRECT_ALIGN - 1);
}

static int offsets_init(struct lb_dataset *d)
{
    const struct lb_train_cfg *c = d->cfg;
    if (c->format != LB_TRAIN_PACKED || c->sample_size.dist == LB_TRAIN_FIXED ||
        c->container != LB_TRAIN_RAW)
        return 0;
    d->offsets = lb_big_alloc(d->nsamples * sizeof *d->offsets);
    if (d->offsets == NULL)
        return -ENOMEM;
    for (uint64_t f = 0, s = 0; f < c->files; f++) {
        uint64_t off = 0;
        for (uint32_t j = 0; j < c->samples_per_file; j++, s++) {
            d->offsets[s] = off;
            off += lb_train_sample_size(c, f, j);
        }
    }
    return 0;
}

/* An existing dataset: no file is looked at before the reads (a stat of
 * each of millions of files would be most of the start); raw files get
 * their sizes as the readers open them (lb_dataset_size). */
static int sizes_init(struct lb_dataset *d, char *err, size_t len)
{
    const struct lb_train_cfg *c = d->cfg;
    if (c->container != LB_TRAIN_RAW)
        return 0;                       /* the readers parse each file */
    d->sizes = lb_big_alloc(c->files * sizeof *d->sizes);
    if (d->sizes == NULL) {
        snprintf(err, len, "not enough memory for %llu file sizes", (unsigned long long)c->files);
        return -ENOMEM;
    }
    return 0;
}

int lb_dataset_size(struct lb_dataset *d, uint64_t f, int fd, char *msg, size_t len)
{
    const struct lb_train_cfg *c = d->cfg;
    struct stat st;
    if (atomic_load_explicit(&d->sizes[f], memory_order_relaxed))
        return 0;
    if (fstat(fd, &st) < 0)
        return -errno;
    if (!S_ISREG(st.st_mode)) {
        snprintf(msg, len, "not a regular file");
        return -EISDIR;
    }
    uint64_t size = (uint64_t)st.st_size;
    if (size < c->samples_per_file) {
        snprintf(msg, len, "%llu bytes hold fewer than samples_per_file = %u samples",
                 (unsigned long long)size, c->samples_per_file);
        return -EINVAL;
    }
    if (c->direct && (size / c->samples_per_file) % DIRECT_ALIGN) {
        snprintf(msg, len, "direct=true needs samples of whole 4 KiB blocks");
        return -EINVAL;
    }
    atomic_store_explicit(&d->sizes[f], size, memory_order_relaxed);   /* racers agree */
    return 0;
}

int lb_dataset_init(struct lb_dataset *d, const struct lb_train_cfg *c,
                    char *err, size_t len)
{
    memset(d, 0, sizeof *d);
    d->cfg = c;
    d->nsamples = c->files * c->samples_per_file;
    d->nsubdirs = c->paths ? 0 : dataset_subdirs(c);
    d->max_sample = c->paths ? 0 : max_sample(c);
    d->oflags = O_RDONLY | O_CLOEXEC | (c->direct ? O_DIRECT : 0);
    if (c->paths)               /* a FIFO in the list must not block the open */
        d->oflags |= O_NONBLOCK;
    if (c->paths)
        return sizes_init(d, err, len);
    if (offsets_init(d) < 0) {
        snprintf(err, len, "not enough memory for %llu sample offsets",
                 (unsigned long long)d->nsamples);
        return -ENOMEM;
    }
    return 0;
}

void lb_dataset_free(struct lb_dataset *d)
{
    if (d->cfg == NULL)
        return;
    if (d->fds)
        for (uint64_t f = 0; f < d->cfg->files; f++)
            if (d->fds[f] > 0)
                close(d->fds[f] - 1);
    lb_big_free((void *)d->fds, d->cfg->files * sizeof *d->fds);
    lb_big_free(d->offsets, d->nsamples * sizeof *d->offsets);
    lb_big_free((void *)d->sizes, d->cfg->files * sizeof *d->sizes);
    d->fds = NULL;
    d->offsets = NULL;
    d->sizes = NULL;
}

uint64_t lb_dataset_file_size(const struct lb_dataset *d, uint64_t f)
{
    const struct lb_train_cfg *c = d->cfg;
    uint32_t last = c->samples_per_file - 1;
    if (d->sizes)
        return atomic_load_explicit(&d->sizes[f], memory_order_relaxed);
    if (c->container != LB_TRAIN_RAW) {
        struct lb_fmt_shape s;
        lb_dataset_shape(d, f, &s);
        return lb_fmt_file_size(c->container, &s);
    }
    if (c->format != LB_TRAIN_PACKED)
        return lb_train_sample_size(c, f, 0);
    if (d->offsets == NULL)
        return c->samples_per_file * lb_train_sample_size(c, f, 0);
    return d->offsets[f * c->samples_per_file + last] + lb_train_sample_size(c, f, last);
}

int lb_dataset_mkdirs(const struct lb_dataset *d, char *err, size_t len)
{
    char path[PATH_MAX];
    const char *dir = d->cfg->dir;
    if (d->cfg->readonly || d->cfg->paths)
        return 0;                       /* a missing file will say so */
    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
        return fail(err, len, "mkdir", dir, -errno);
    for (int k = 0; d->cfg->dlio_names && k < 2; k++) {   /* DLIO lists both */
        int n = snprintf(path, sizeof path, "%s/%s", dir, k ? "valid" : "train");
        if (n < 0 || (size_t)n >= sizeof path)
            return fail(err, len, "mkdir", dir, -ENAMETOOLONG);
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
            return fail(err, len, "mkdir", path, -errno);
    }
    for (uint64_t i = 0; i < d->nsubdirs; i++) {
        int rc = subdir_path(d->cfg, i, path, sizeof path);
        if (rc < 0)
            return fail(err, len, "mkdir", dir, rc);
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
            return fail(err, len, "mkdir", path, -errno);
    }
    return 0;
}

/* Writes size bytes of the pattern, each 4 KiB block stamped with the
 * file number so that no two blocks of the dataset are alike. */
static int write_pattern(int fd, uint64_t f, uint64_t size, char *buf, size_t buflen)
{
    uint64_t done = 0;
    while (done < size) {
        size_t n = size - done < buflen ? size - done : buflen;
        for (size_t b = 0; b + 16 <= n; b += 4096) {
            uint64_t stamp[2] = {f, done + b};
            memcpy(buf + b, stamp, sizeof stamp);
        }
        ssize_t w = write(fd, buf, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? -errno : -EIO;
        done += (uint64_t)w;
    }
    return 0;
}

/* A file with the wrong size: rewritten when ours, else refused.  The
 * decision is made on the descriptor that is then written, opened
 * without following a symbolic link (a name checked and then opened again
 * may be another file by then). */
static int open_for_layout(const char *path, int *fd)
{
    *fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (*fd >= 0)
        return lb_file_mark(*fd, path);
    if (errno != EEXIST)
        return -errno;
    *fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (*fd < 0)
        return errno == ELOOP ? -EEXIST : -errno;
    if (lb_file_is_ours_fd(*fd, path) != 1)
        return close(*fd), *fd = -1, -EEXIST;
    return ftruncate(*fd, 0) < 0 ? -errno : 0;
}

int lb_dataset_layout(const struct lb_dataset *d, uint64_t f, char *buf,
                      size_t buflen, char *err, size_t len)
{
    char path[PATH_MAX];
    struct stat st;
    uint64_t size = lb_dataset_file_size(d, f);
    int fd = -1, rc = lb_train_path(d->cfg, f, path, sizeof path);
    if (rc < 0)
        return fail(err, len, "layout", d->cfg->dir, rc);
    int there = stat(path, &st) == 0;
    if (there && S_ISREG(st.st_mode) && (uint64_t)st.st_size == size && !d->rewrite)
        return 0;
    if (size == 0 && there && S_ISREG(st.st_mode) && !d->rewrite && d->matched &&
        f < d->laid_before)
        return 0;                       /* deflated: the record vouches for it */
    if (size == 0 && there && S_ISREG(st.st_mode) && !d->rewrite && !d->cfg->relayout &&
        !d->cfg->readonly) {
        snprintf(err, len, "%s is there, and a compressed file's size cannot be checked without "
                 "the layout record: laid out with other parameters? (relayout=1 rewrites "
                 "the dataset)", path);
        return -ESTALE;
    }
    if (there && S_ISREG(st.st_mode) && !d->rewrite && !d->cfg->relayout &&
        !d->cfg->readonly) {
        snprintf(err, len, "%s is %llu bytes, not the %llu this layout gives: laid out with "
                 "other parameters (relayout=1 rewrites the dataset)", path,
                 (unsigned long long)st.st_size, (unsigned long long)size);
        return -ESTALE;
    }
    if (d->cfg->readonly) {
        snprintf(err, len, "layout %s: missing or not %llu bytes, and writing is "
                 "not allowed (--readonly)", path, (unsigned long long)size);
        return -EROFS;
    }
    int rewrite = there;
    rc = open_for_layout(path, &fd);
    if (rc == -EEXIST) {
        snprintf(err, len, "layout %s: exists with another size and was not "
                 "created by luabench", path);
        return rc;
    }
    if (rc == 0 && d->cfg->container != LB_TRAIN_RAW) {
        struct lb_fmt_shape s;
        lb_dataset_shape(d, f, &s);
        rc = lb_fmt_write(d->cfg->container, fd, &s, f, buf, buflen);
    } else if (rc == 0) {
        rc = write_pattern(fd, f, size, buf, buflen);
    }
    if (fd >= 0 && close(fd) < 0 && rc == 0)
        rc = -errno;
    return rc < 0 ? fail(err, len, "layout", path, rc) : rewrite ? 2 : 1;
}

/* Descriptors this process may still open. */
static uint64_t fd_budget(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return 0;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    return rl.rlim_cur > 4 * FD_RESERVE ? rl.rlim_cur - 2 * FD_RESERVE : 0;
}

/* O_DIRECT refused (tmpfs says EINVAL): one clear message up front. */
static int probe_direct(const struct lb_dataset *d, char *err, size_t len)
{
    char path[PATH_MAX];
    lb_train_path(d->cfg, 0, path, sizeof path);
    int fd = open(path, d->oflags);
    if (fd >= 0)
        return close(fd), 0;
    int e = errno;
    if (e == EINVAL)
        snprintf(err, len, "open %s: O_DIRECT is not supported by this filesystem", path);
    else
        fail(err, len, "open", path, -e);
    return -e;
}

int lb_dataset_open(struct lb_dataset *d, char *err, size_t len)
{
    const struct lb_train_cfg *c = d->cfg;
    int rc = c->direct ? probe_direct(d, err, len) : 0;
    if (rc < 0 || c->format != LB_TRAIN_PACKED || c->container != LB_TRAIN_RAW ||
        c->files > fd_budget())
        return rc;
    d->fds = lb_big_alloc(c->files * sizeof *d->fds);     /* none open yet */
    return 0;                           /* NULL is fine: each read opens */
}

int lb_dataset_fd(struct lb_dataset *d, uint64_t f, char *path, size_t plen, int *opened)
{
    int kept = d->fds ? atomic_load_explicit(&d->fds[f], memory_order_acquire) : 0;
    *opened = 0;
    if (kept > 0)
        return kept - 1;
    const char *name = path;
    if (d->cfg->paths)                  /* the list's own name, not a copy */
        name = d->cfg->paths[f];
    else
        lb_train_path(d->cfg, f, path, plen);
    int fd = open(name, d->oflags);
    if (fd < 0)
        return -errno;
    if (d->fds == NULL) {
        *opened = 1;
        return fd;
    }
    if (atomic_compare_exchange_strong(&d->fds[f], &kept, fd + 1))
        return fd;
    close(fd);                          /* another reader kept its own first */
    return kept - 1;
}

/* ---- the record of the layout ---- */

/* DIR/.luabench-img.npz.layout: one per kind of file name, as names tell
 * datasets apart in one directory (DLIO's valid/ set beside train/:
 * .luabench-dlio-valid-img.npz.layout); its name does not end in the files'
 * extension, since readers that list a directory by it (DLIO) would take
 * it for a file of the set.  legacy: the name of earlier versions, without
 * ".layout", still read and replaced. */
static int manifest_name(const struct lb_train_cfg *c, char *buf, size_t len, int legacy)
{
    int n = snprintf(buf, len, "%s/.luabench-%s%s%s", c->dir,
                     c->dlio_names ? (c->valid ? "dlio-valid-img" : "dlio-img") :
                     c->format == LB_TRAIN_PACKED ? "shard" : "img", extensions[c->container],
                     legacy ? "" : ".layout");
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : n;
}

static int manifest_path(const struct lb_train_cfg *c, char *buf, size_t len)
{
    return manifest_name(c, buf, len, 0);
}

enum { M_SPF, M_SIZE, M_DIRECT, M_CHUNK, M_SUBDIRS, M_COMPRESSION, M_FILES, M_FORMAT,
       M_DSETS, M_N };
static const char *const manifest_keys[M_N] = {
    "samples_per_file", "sample_size", "direct", "chunk_size", "num_subfolders", "compression",
    "files", "format", "num_dset_per_record",
};

/* This run's value of each key, as text. */
static void manifest_values(const struct lb_dataset *d, uint64_t files, char v[M_N][64])
{
    const struct lb_train_cfg *c = d->cfg;
    const struct lb_train_value *z = &c->sample_size;
    unsigned long long a = z->a, b = z->b;
    snprintf(v[M_SPF], 64, "%u", c->samples_per_file);
    if (z->dist == LB_TRAIN_UNIFORM)
        snprintf(v[M_SIZE], 64, "uniform %llu %llu", a, b);
    else if (z->dist == LB_TRAIN_NORMAL)
        snprintf(v[M_SIZE], 64, "normal %llu %llu", a, b);
    else
        snprintf(v[M_SIZE], 64, "%llu", a);
    snprintf(v[M_DIRECT], 64, "%d", c->direct ? 1 : 0);
    snprintf(v[M_CHUNK], 64, "%llu", c->container == LB_TRAIN_HDF5 ?
             (unsigned long long)c->chunk_size : 0ull);
    if (c->num_subfolders == 0 && d->nsubdirs)
        snprintf(v[M_SUBDIRS], 64, "0 (groups of %d)", LB_DATASET_FANOUT);
    else
        snprintf(v[M_SUBDIRS], 64, "%llu", (unsigned long long)(d->nsubdirs ? d->nsubdirs : 1));
    if (c->compression == LB_TRAIN_GZIP)
        snprintf(v[M_COMPRESSION], 64, "gzip (level %u)", c->compression_level);
    else
        snprintf(v[M_COMPRESSION], 64, "%s", c->compression == LB_TRAIN_ZIP ? "zip" : "none");
    snprintf(v[M_FILES], 64, "%llu", (unsigned long long)files);
    snprintf(v[M_DSETS], 64, "%u", c->container == LB_TRAIN_HDF5 && c->num_dset_per_record ?
             c->num_dset_per_record : 1);
    snprintf(v[M_FORMAT], 64, "%s", c->container == LB_TRAIN_HDF5 ? HDF5_RECORDED :
             container_names[c->container]);
}

/* direct only changes the layout where it rounds sizes up. */
static int direct_matters(const struct lb_train_cfg *c)
{
    return c->container == LB_TRAIN_RAW &&
           (c->sample_size.dist != LB_TRAIN_FIXED || c->sample_size.a % DIRECT_ALIGN);
}

/* The record's value of each key ("" when missing); 0, or -ENOENT. */
static int manifest_read(const struct lb_train_cfg *c, char old[M_N][64])
{
    char path[PATH_MAX], line[256];
    memset(old, 0, sizeof(char[M_N][64]));
    if (manifest_path(c, path, sizeof path) < 0)
        return -ENAMETOOLONG;
    FILE *fp = fopen(path, "re");
    if (fp == NULL && errno == ENOENT && manifest_name(c, path, sizeof path, 1) >= 0)
        fp = fopen(path, "re");         /* an earlier version's record */
    if (fp == NULL)
        return -errno;
    while (fgets(line, sizeof line, fp)) {
        line[strcspn(line, "\n")] = 0;
        for (int k = 0; k < M_N; k++) {
            size_t n = strlen(manifest_keys[k]);
            if (!strncmp(line, manifest_keys[k], n) && line[n] == ' ') {
                size_t len = strnlen(line + n + 1, 63);   /* a longer value is cut */
                memcpy(old[k], line + n + 1, len);
                old[k][len] = 0;
            }
        }
    }
    fclose(fp);
    if (!old[M_COMPRESSION][0])
        snprintf(old[M_COMPRESSION], 64, "none");   /* a record from before the key */
    if (!old[M_DSETS][0])
        snprintf(old[M_DSETS], 64, "1");            /* likewise */
    return 0;
}

int lb_dataset_manifest_check(struct lb_dataset *d, char *what, size_t wlen,
                              char *err, size_t len)
{
    const struct lb_train_cfg *c = d->cfg;
    char old[M_N][64], cur[M_N][64];
    what[0] = 0;
    if (c->paths || manifest_read(c, old) < 0)
        return 0;                       /* none: each file's size is checked */
    d->laid_before = strtoull(old[M_FILES], NULL, 10);
    if (c->dlio_names && d->laid_before != c->files) {
        snprintf(err, len, "%s%s holds DLIO's names for a set of %llu files (img_N_of_%llu), "
                 "this run asks for %s%llu: the names carry the count, so another count "
                 "needs another dir", c->dir, c->valid ? "/valid" : "",
                 (unsigned long long)d->laid_before, (unsigned long long)d->laid_before,
                 c->valid ? "num_files_eval=" : "", (unsigned long long)c->files);
        return -ESTALE;
    }
    manifest_values(d, c->files > d->laid_before ? c->files : d->laid_before, cur);
    d->recorded = 1;
    for (int k = 0; k < M_N; k++)
        d->recorded &= !strcmp(old[k], cur[k]);
    d->matched = 1;
    d->trusted = c->relayout ? 0 : d->laid_before < c->files ? d->laid_before : c->files;
    for (int k = 0; k < M_N; k++) {
        if (!strcmp(old[k], cur[k]) || (k == M_DIRECT && !direct_matters(c)))
            continue;
        if ((k == M_CHUNK && c->container != LB_TRAIN_HDF5) || k == M_FILES)
            continue;
        if (k == M_FORMAT && strcmp(old[k], "hdf5"))
            continue;                   /* the record's name says the format */
        snprintf(what, wlen, "%s=%s (this run: %s)", manifest_keys[k], old[k], cur[k]);
        d->matched = 0;
        d->trusted = 0;
        if (c->relayout) {
            d->rewrite = 1;
            return 0;
        }
        if (k == M_FORMAT && !strcmp(old[k], "hdf5"))
            snprintf(err, len, "%s holds the HDF5-like files of an earlier luabench, which "
                     "h5py cannot open: relayout=1 rewrites them as HDF5", c->dir);
        else
            snprintf(err, len, "%s was laid out with %s=%s, this run asks for %s=%s: "
                     "relayout=1 rewrites it", c->dir, manifest_keys[k], old[k],
                     manifest_keys[k], cur[k]);
        return -ESTALE;
    }
    return 0;
}

int lb_dataset_manifest_write(const struct lb_dataset *d, char *err, size_t len)
{
    const struct lb_train_cfg *c = d->cfg;
    char path[PATH_MAX], v[M_N][64], buf[1024];
    size_t n = 0;
    if (c->paths || c->readonly || (d->recorded && !d->rewrite) ||
        manifest_path(c, path, sizeof path) < 0)
        return 0;
    manifest_values(d, c->files > d->laid_before || d->rewrite ? c->files : d->laid_before, v);
    n += (size_t)snprintf(buf, sizeof buf, "luabench dataset 1\n");
    for (int k = 0; k < M_N && n < sizeof buf; k++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s %s\n", manifest_keys[k], v[k]);
    int rc = 0, fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) {
        rc = lb_file_mark(fd, path);
    } else if (errno == EEXIST) {
        fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0 && lb_file_is_ours_fd(fd, path) != 1)
            return close(fd), 0;        /* someone else's: left alone */
    }
    if (fd < 0)
        return fail(err, len, "write", path, -errno);
    if (rc == 0 && ftruncate(fd, 0) < 0)
        rc = -errno;
    if (rc == 0 && write(fd, buf, n) != (ssize_t)n)
        rc = -EIO;
    if (close(fd) < 0 && rc == 0)
        rc = -errno;
    if (rc < 0)
        return fail(err, len, "write", path, rc);
    if (manifest_name(c, path, sizeof path, 1) >= 0)
        lb_file_unlink_ours(path);      /* the record under its earlier name */
    return 0;
}

/* ---- the evaluation's schedule and cfg ---- */

/* DLIO's run(): next_eval_epoch = eval_after_epoch; after epoch e, when
 * e >= next_eval_epoch, next_eval_epoch += epochs_between_evals. */
int lb_train_eval_due(const struct lb_train_cfg *c, uint32_t epoch)
{
    uint32_t first = c->eval_after_epoch ? c->eval_after_epoch : 1;
    uint32_t every = c->eval_every ? c->eval_every : 1;
    return c->do_eval && epoch >= first && (epoch - first) % every == 0;
}

uint32_t lb_train_evals(const struct lb_train_cfg *c)
{
    uint32_t n = 0;
    for (uint32_t e = 1; c->do_eval && e <= c->epochs; e++)
        n += lb_train_eval_due(c, e) != 0;
    return n;
}

/* DLIO reads the valid set as the train one (the same readers, prefetch,
 * shuffle and seed, drop_last, each rank its contiguous shard), in
 * batches of batch_size_eval, computing eval_time per step; its _eval
 * has no barrier, no step cap and no checkpoint. */
int lb_train_eval_cfg(const struct lb_train_cfg *c, struct lb_train_cfg *e, char *dir,
                      size_t len)
{
    *e = *c;
    e->valid = true;
    e->do_eval = false;
    e->files = c->eval_files;
    e->batch_size = c->eval_batch_size;
    e->compute_ns = c->eval_ns;
    e->num_subfolders = c->eval_subfolders;
    e->epochs = lb_train_evals(c);
    e->epochs = e->epochs ? e->epochs : 1;
    e->barrier = false;
    e->total_training_steps = 0;
    e->checkpoint_steps = 0;
    e->checkpoint_epochs = 0;
    e->checkpoint_size = 0;
    e->on_sample = NULL;
    e->on_step = c->on_eval_step;
    e->on_step_arg = c->on_eval_step_arg;
    e->on_eval_step = NULL;
    if (c->dlio_names || !c->dir)
        return 0;                       /* DLIO's: dir/valid/img_F_of_N */
    int n = snprintf(dir, len, "%s/valid", c->dir);
    if (n < 0 || (size_t)n >= len)
        return -ENAMETOOLONG;
    e->dir = dir;
    return 0;
}

static int remove_set(const struct lb_train_cfg *c, uint64_t *removed, char *err, size_t len);

/* The evaluation's set too (do_eval), then its directory once empty. */
int lb_train_remove(const struct lb_train_cfg *c, uint64_t *removed,
                    char *err, size_t len)
{
    struct lb_train_cfg e;
    char dir[PATH_MAX];
    uint64_t n = 0;
    int rc = remove_set(c, removed, err, len);
    if (rc < 0 || !c->do_eval || c->paths)
        return rc;
    if ((rc = lb_train_eval_cfg(c, &e, dir, sizeof dir)) < 0)
        return fail(err, len, "unlink", c->dir, rc);
    rc = remove_set(&e, &n, err, len);
    *removed += n;
    if (rc == 0 && !e.dlio_names)
        rmdir(e.dir);                   /* stays when not empty */
    return rc;
}

static int remove_set(const struct lb_train_cfg *c, uint64_t *removed, char *err, size_t len)
{
    char path[PATH_MAX];
    *removed = 0;
    for (uint64_t f = 0; f < c->files; f++) {
        int rc = lb_train_path(c, f, path, sizeof path);
        if (rc >= 0)
            rc = lb_file_unlink_ours(path);
        if (rc == 0)
            (*removed)++;
        else if (rc != -ENOENT && rc != -EPERM)
            return fail(err, len, "unlink", path, rc);
    }
    for (int legacy = 0; legacy < 2; legacy++)
        if (manifest_name(c, path, sizeof path, legacy) >= 0)
            lb_file_unlink_ours(path);
    for (uint64_t i = 0; i < dataset_subdirs(c); i++)
        if (subdir_path(c, i, path, sizeof path) >= 0)
            rmdir(path);                /* stays when not empty */
    for (int k = 0; c->dlio_names && k < 2; k++)
        if (snprintf(path, sizeof path, "%s/%s", c->dir, k ? "valid" : "train") <
            (int)sizeof path)
            rmdir(path);
    return 0;
}
