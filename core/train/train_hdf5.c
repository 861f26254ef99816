/*
 * HDF5 as h5py writes DLIO's files with libver='latest': a version 3
 * superblock, version 2 object headers (OHDR), a compact root group (Link
 * Info, Group Info, one Link message per dataset), records_0 .. records_{N-1}
 * (DLIO's num_dset_per_record, uint8, each of shape (samples, sample bytes /
 * N), holding the sample's parts) and labels (int64 zeros, one per sample), each
 * with Dataspace, Datatype, Fill Value and Data Layout (version 4)
 * messages.  records_0 is contiguous, or chunked: one chunk indexed by the
 * layout itself (libhdf5's single-chunk index) or a Fixed Array (FAHD,
 * FADB, paged past 2^10 entries).  Every structure carries its lookup3
 * checksum, so h5py opens the files.
 *
 * The reader is h5py's File(f, 'r')['records_k'][j] for each k, as DLIO
 * reads a sample, the way libhdf5 1.10 does it: fstat and a shared flock,
 * the signature (8 bytes), the superblock (16, then the rest), getcwd for a
 * relative name and an lstat of it, a 512-byte speculative read of the root
 * group's header and a read of each continuation chunk (OCHK) it names
 * (h5py's root group of three or more datasets spills over into one; this
 * writer keeps all links in the first chunk), then per dataset a 512-byte
 * read of its header and for contiguous data the sieve buffer (64 KiB from the
 * sample, at most to the data's end) or, for a larger sample, the sample
 * itself; for chunked data the index (FAHD, the data block or its page)
 * and each chunk the sample touches whole, or only the sample's part of a
 * chunk larger than the chunk cache (1 MiB).  It parses what it reads and
 * checks the checksums, so files that h5py wrote are read too; filters,
 * dense groups, other chunk indexes and superblocks before version 2 are
 * refused by name.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "train/train_hdf5.h"

#define UNDEF UINT64_MAX                /* HDF5's undefined address */
#define SB_LEN 48u                      /* superblock version 2 and 3 */
#define OH_SPEC 512u                    /* libhdf5's speculative header read */
#define SIEVE (64u << 10)               /* its sieve buffer */
#define CHUNK_CACHE (1u << 20)          /* its chunk cache */
#define PAGE_BITS 10u                   /* Fixed Array entries per page, log2 */
#define FAHD_LEN 28u
#define FADB_PREFIX 14u                 /* signature, version, client, header */
#define DATA_ALIGN 4096u
static const uint8_t sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

/* ---- little-endian fields ---- */

static void put(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> 8 * i);
}

static uint64_t get(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* ---- lookup3 ---- */

static uint32_t rot(uint32_t x, int k) { return x << k | x >> (32 - k); }

static void mix(uint32_t *a, uint32_t *b, uint32_t *c)
{
    *a -= *c; *a ^= rot(*c, 4);  *c += *b;
    *b -= *a; *b ^= rot(*a, 6);  *a += *c;
    *c -= *b; *c ^= rot(*b, 8);  *b += *a;
    *a -= *c; *a ^= rot(*c, 16); *c += *b;
    *b -= *a; *b ^= rot(*a, 19); *a += *c;
    *c -= *b; *c ^= rot(*b, 4);  *b += *a;
}

static void final(uint32_t *a, uint32_t *b, uint32_t *c)
{
    *c ^= *b; *c -= rot(*b, 14);
    *a ^= *c; *a -= rot(*c, 11);
    *b ^= *a; *b -= rot(*a, 25);
    *c ^= *b; *c -= rot(*b, 16);
    *a ^= *c; *a -= rot(*c, 4);
    *b ^= *a; *b -= rot(*a, 14);
    *c ^= *b; *c -= rot(*b, 24);
}

uint32_t lb_h5_checksum(const void *buf, size_t n)
{
    const uint8_t *k = buf;
    uint32_t v[3];
    v[0] = v[1] = v[2] = 0xdeadbeefu + (uint32_t)n;
    for (; n > 12; n -= 12, k += 12) {
        for (int i = 0; i < 3; i++)
            v[i] += (uint32_t)get(k + 4 * i, 4);
        mix(&v[0], &v[1], &v[2]);
    }
    if (n == 0)
        return v[2];                    /* nothing left: no final mix */
    for (size_t i = 0; i < n; i++)
        v[i / 4] += (uint32_t)k[i] << 8 * (i % 4);
    final(&v[0], &v[1], &v[2]);
    return v[2];
}

/* ---- the plan ---- */

int lb_h5_chunks(uint64_t spf, uint64_t len, uint64_t chunk, uint64_t *rows, uint64_t *cols)
{
    *rows = *cols = 0;
    if (chunk == 0)
        return 0;
    len = len ? len : 1;
    if (chunk >= len) {
        *rows = chunk / len < spf ? chunk / len : spf;
        *cols = len;
    } else {
        *rows = 1;
        *cols = chunk;
    }
    uint64_t n = (spf + *rows - 1) / *rows * ((len + *cols - 1) / *cols);
    return *rows * *cols > LB_H5_MAX_CHUNK || n > LB_H5_MAX_CHUNKS ? -EFBIG : 0;
}

static uint64_t fadb_len(uint64_t n)
{
    uint64_t page = 1ull << PAGE_BITS, pages = (n + page - 1) / page;
    if (n <= page)
        return FADB_PREFIX + 8 * n + 4;
    return FADB_PREFIX + (pages + 7) / 8 + 4 + 8 * n + 4 * pages;
}

/* Object header sizes: prefix (10) and checksum (4) around the messages. */
#define OH_LEN(msgs) (10u + (msgs) + 4u)
#define ROOT_MSGS (4u + 18 + 4 + 2 + 4 + 17)   /* and a link per dataset */
#define LAB_MSGS (4u + 20 + 4 + 12 + 4 + 2 + 4 + 18)

static unsigned enc_len(uint64_t v)
{
    unsigned n = 1;
    while (n < 8 && v >> 8 * n)
        n++;
    return n;
}

static uint64_t dset_msgs(const struct lb_h5_plan *p)
{
    uint64_t m = 4 + 36 + 4 + 12 + 4 + 2 + 4;
    if (p->crows == 0)
        return m + 18;
    unsigned e = enc_len(p->crows > p->ccols ? p->crows : p->ccols);
    return m + 5 + 3 * e + 1 + (p->nchunks > 1) + 8;
}

/* The Link message of records_k. */
static unsigned link_len(uint64_t k)
{
    char name[32];
    return 4u + 3 + (unsigned)snprintf(name, sizeof name, "records_%llu", (unsigned long long)k) + 8;
}

int lb_h5_plan(const struct lb_fmt_shape *s, struct lb_h5_plan *p)
{
    memset(p, 0, sizeof *p);
    p->ndset = s->dsets ? s->dsets : 1;
    if (p->ndset > LB_H5_MAX_DSETS || s->len % p->ndset)
        return -EINVAL;
    p->rows = s->spf;
    p->cols = s->len / p->ndset;
    int rc = lb_h5_chunks(s->spf, p->cols, s->chunk, &p->crows, &p->ccols);
    if (rc < 0)
        return rc;
    p->data_len = p->rows * p->cols;
    if (p->crows) {
        p->nchunks = (p->rows + p->crows - 1) / p->crows * ((p->cols + p->ccols - 1) / p->ccols);
        p->cbytes = p->crows * p->ccols;
        p->data_len = p->nchunks * p->cbytes;
        if (p->ndset * p->nchunks > LB_H5_MAX_CHUNKS)
            return -EFBIG;              /* the count is the file's, over its datasets */
    }
    uint64_t links = 0;
    for (uint64_t k = 0; k < p->ndset; k++)
        links += link_len(k);
    p->root = SB_LEN;
    p->dset = p->root + OH_LEN(ROOT_MSGS + links);
    p->dset_step = OH_LEN(dset_msgs(p));
    p->lab = p->dset + p->ndset * p->dset_step;
    uint64_t end = p->lab + OH_LEN(LAB_MSGS);
    if (p->crows && p->nchunks > 1) {
        p->fahd = end;
        p->fadb = end + FAHD_LEN;
        p->fa_step = FAHD_LEN + fadb_len(p->nchunks);
        end += p->ndset * p->fa_step;
    }
    p->meta = (end + DATA_ALIGN - 1) / DATA_ALIGN * DATA_ALIGN;
    p->data = p->meta;
    p->labels = p->data + p->ndset * p->data_len;
    p->eof = p->labels + 8 * p->rows;
    return 0;
}

/* ---- the metadata ---- */

struct oh {                      /* an object header being built */
    uint8_t *p, *m;              /* its start, the next message */
};

static uint8_t *msg(struct oh *o, int type, unsigned size, int flags)
{
    uint8_t *m = o->m;
    m[0] = (uint8_t)type;
    put(m + 1, size, 2);
    m[3] = (uint8_t)flags;
    o->m = m + 4 + size;
    return m + 4;
}

static void oh_begin(struct oh *o, uint8_t *p)
{
    o->p = p;
    o->m = p + 10;
}

static void oh_end(struct oh *o)
{
    memcpy(o->p, "OHDR", 4);
    o->p[4] = 2;
    o->p[5] = 0x02;                     /* chunk 0's size in 4 bytes */
    put(o->p + 6, (uint64_t)(o->m - o->p - 10), 4);
    put(o->m, lb_h5_checksum(o->p, (size_t)(o->m - o->p)), 4);
}

static void link_msg(struct oh *o, const char *name, uint64_t addr)
{
    size_t n = strlen(name);
    uint8_t *d = msg(o, 6, (unsigned)(3 + n + 8), 0);
    d[0] = 1;                           /* version; flags 0: a hard link */
    d[2] = (uint8_t)n;
    memcpy(d + 3, name, n);
    put(d + 3 + n, addr, 8);
}

static void space_msg(struct oh *o, int rank, uint64_t d0, uint64_t d1)
{
    uint8_t *d = msg(o, 1, 4 + 16u * (unsigned)rank, 0);
    d[0] = 2;
    d[1] = (uint8_t)rank;
    d[2] = 1;                           /* maximum dimensions stored */
    d[3] = 1;                           /* simple */
    put(d + 4, d0, 8);
    if (rank == 2)
        put(d + 12, d1, 8);
    memcpy(d + 4 + 8 * rank, d + 4, 8u * (unsigned)rank);
}

static void type_msg(struct oh *o, unsigned size, int sign)
{
    uint8_t *d = msg(o, 3, 12, 1);
    d[0] = 0x10;                        /* version 1, fixed-point */
    d[1] = sign ? 0x08 : 0;             /* little-endian */
    put(d + 4, size, 4);
    put(d + 10, 8 * size, 2);
}

static void fill_msg(struct oh *o, int chunked)
{
    uint8_t *d = msg(o, 5, 2, 1);
    d[0] = 3;
    d[1] = chunked ? 0x03 : 0x0a;       /* as h5py: incremental / late */
}

/* records_k's header, its data at data. */
static void dset_header(const struct lb_h5_plan *p, uint64_t k, uint8_t *b)
{
    struct oh o;
    uint64_t data = p->data + k * p->data_len, fahd = p->fahd + k * p->fa_step;
    oh_begin(&o, b + p->dset + k * p->dset_step);
    space_msg(&o, 2, p->rows, p->cols);
    type_msg(&o, 1, 0);
    fill_msg(&o, p->crows != 0);
    if (p->crows == 0) {
        uint8_t *d = msg(&o, 8, 18, 0);
        d[0] = 4;
        d[1] = 1;                       /* contiguous */
        put(d + 2, data, 8);
        put(d + 10, p->data_len, 8);
    } else {
        unsigned e = enc_len(p->crows > p->ccols ? p->crows : p->ccols), fa = p->nchunks > 1;
        uint8_t *d = msg(&o, 8, 5 + 3 * e + 1 + fa + 8, 0);
        d[0] = 4;
        d[1] = 2;                       /* chunked */
        d[3] = 3;                       /* rows, columns, the element */
        d[4] = (uint8_t)e;
        put(d + 5, p->crows, (int)e);
        put(d + 5 + e, p->ccols, (int)e);
        put(d + 5 + 2 * e, 1, (int)e);
        uint8_t *x = d + 5 + 3 * e;
        x[0] = fa ? 3 : 1;              /* Fixed Array, or the single chunk */
        if (fa)
            x[1] = PAGE_BITS;
        put(x + 1 + fa, fa ? fahd : data, 8);
    }
    oh_end(&o);
}

static void fixed_array(const struct lb_h5_plan *p, uint64_t k, uint8_t *b)
{
    uint64_t fahd = p->fahd + k * p->fa_step, fadb = p->fadb + k * p->fa_step;
    uint64_t data = p->data + k * p->data_len;
    uint8_t *h = b + fahd, *d = b + fadb;
    uint64_t n = p->nchunks, page = 1ull << PAGE_BITS, pages = (n + page - 1) / page;
    memcpy(h, "FAHD", 4);
    h[6] = 8;                           /* version 0, client 0: plain chunks */
    h[7] = PAGE_BITS;
    put(h + 8, n, 8);
    put(h + 16, fadb, 8);
    put(h + 24, lb_h5_checksum(h, 24), 4);
    memcpy(d, "FADB", 4);
    put(d + 6, fahd, 8);
    uint8_t *e = d + FADB_PREFIX;
    if (n > page) {                     /* paged: a bitmap, each page summed */
        for (uint64_t i = 0; i < pages; i++)
            e[i / 8] |= (uint8_t)(0x80 >> i % 8);
        e += (pages + 7) / 8;
        put(e, lb_h5_checksum(d, (size_t)(e - d)), 4);
        e += 4;
    }
    for (uint64_t i = 0, k = 0; i < n; i = k) {
        uint8_t *start = e;
        k = n > page && i + page < n ? i + page : n;
        for (uint64_t c = i; c < k; c++, e += 8)
            put(e, data + c * p->cbytes, 8);
        const uint8_t *from = n > page ? start : d;
        put(e, lb_h5_checksum(from, (size_t)(e - from)), 4);
        e += 4;
    }
}

int lb_h5_meta(const struct lb_h5_plan *p, uint8_t **out)
{
    uint8_t *b = calloc(1, p->meta);
    struct oh o;
    if ((*out = b) == NULL)
        return -ENOMEM;
    memcpy(b, sig, 8);
    b[8] = 3;                           /* superblock version 3 */
    b[9] = b[10] = 8;                   /* offsets and lengths of 8 bytes */
    put(b + 20, UNDEF, 8);              /* no superblock extension */
    put(b + 28, p->eof, 8);
    put(b + 36, p->root, 8);
    put(b + 44, lb_h5_checksum(b, 44), 4);
    oh_begin(&o, b + p->root);
    uint8_t *d = msg(&o, 2, 18, 0);     /* Link Info: compact, no heap */
    put(d + 2, UNDEF, 8);
    put(d + 10, UNDEF, 8);
    msg(&o, 10, 2, 0);                  /* Group Info: the defaults */
    for (uint64_t k = 0; k < p->ndset; k++) {
        char name[32];
        snprintf(name, sizeof name, "records_%llu", (unsigned long long)k);
        link_msg(&o, name, p->dset + k * p->dset_step);
    }
    link_msg(&o, "labels", p->lab);
    oh_end(&o);
    for (uint64_t k = 0; k < p->ndset; k++)
        dset_header(p, k, b);
    oh_begin(&o, b + p->lab);
    space_msg(&o, 1, p->rows, 0);
    type_msg(&o, 8, 1);
    fill_msg(&o, 0);
    d = msg(&o, 8, 18, 0);
    d[0] = 4;
    d[1] = 1;
    put(d + 2, p->labels, 8);
    put(d + 10, 8 * p->rows, 8);
    oh_end(&o);
    for (uint64_t k = 0; p->nchunks > 1 && k < p->ndset; k++)
        fixed_array(p, k, b);
    return 0;
}

/* ---- reading ---- */

#define MAX_RANK 32

struct h5r {                     /* one sample's read */
    int fd;
    struct lb_fmt_io *io;
    uint64_t eoa;                /* the superblock's end of file */
    char name[32];               /* the dataset being read: records_k */
};

struct h5set {                   /* records_k, as its header says */
    int rank, layout, index;     /* layout 1 contiguous, 2 chunked */
    uint64_t dims[MAX_RANK], cdims[MAX_RANK];
    uint64_t esize;              /* bytes per element */
    uint64_t addr, size;         /* data, or chunk index (chunked) */
    int page_bits;
};

static int bad(struct lb_fmt_io *io, int rc, const char *what)
{
    snprintf(io->msg, sizeof io->msg, "%s", what);
    return rc;
}

/* what: the rest of a message after the dataset's name. */
static int dbad(struct h5r *r, int rc, const char *what)
{
    snprintf(r->io->msg, sizeof r->io->msg, "%s%s", r->name, what);
    return rc;
}

static int rd(struct h5r *r, void *buf, uint64_t len, uint64_t off)
{
    char *p = buf;
    while (len) {
        ssize_t n = pread(r->fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0) {
            snprintf(r->io->msg, sizeof r->io->msg, "HDF5 file cut short: it ends before "
                     "byte %llu", (unsigned long long)(off + len));
            return -EILSEQ;
        }
        p += n;
        len -= (uint64_t)n;
        off += (uint64_t)n;
        r->io->bytes += (uint64_t)n;
    }
    return 0;
}

/* len bytes at off in reads of at most the scratch's length; io->member
 * keeps the longest, the scratch the reader wants next time. */
static int rd_span(struct h5r *r, uint64_t off, uint64_t len)
{
    int rc = 0;
    r->io->member = len > r->io->member ? len : r->io->member;
    while (rc == 0 && len) {
        uint64_t n = len < r->io->buflen ? len : r->io->buflen;
        rc = rd(r, r->io->buf, n, off);
        off += n;
        len -= n;
    }
    return rc;
}

static int summed(const uint8_t *p, size_t n)
{
    return lb_h5_checksum(p, n - 4) == (uint32_t)get(p + n - 4, 4);
}

/* The superblock as libhdf5 probes it: the signature, 16 bytes, the rest. */
static int superblock(struct h5r *r, uint64_t *root)
{
    uint8_t *b = (uint8_t *)r->io->buf;
    int rc = rd(r, b, 8, 0);
    if (rc == 0 && memcmp(b, sig, 8))
        return bad(r->io, -EILSEQ, "not an HDF5 file (no signature at byte 0)");
    if (rc == 0)
        rc = rd(r, b, 16, 0);
    if (rc < 0)
        return rc;
    if (b[8] < 2 || b[8] > 3)
        return bad(r->io, -ENOTSUP, "HDF5 superblock before version 2 (h5py's default "
                   "libver; DLIO writes libver='latest'): not supported");
    if (b[9] != 8 || b[10] != 8)
        return bad(r->io, -ENOTSUP, "HDF5 file with offsets or lengths not of 8 bytes");
    if ((rc = rd(r, b + 16, SB_LEN - 16, 16)) < 0)
        return rc;
    if (!summed(b, SB_LEN)) {
        if (!memcmp(b + 16, "lbh5", 4))
            return bad(r->io, -EILSEQ, "an HDF5-like file of an earlier luabench, not HDF5 "
                       "(relayout=1 lays it out again as HDF5)");
        return bad(r->io, -EILSEQ, "bad checksum in the HDF5 superblock");
    }
    if (get(b + 12, 8) != 0)
        return bad(r->io, -ENOTSUP, "HDF5 file with a base address: not supported");
    r->eoa = get(b + 28, 8);
    *root = get(b + 36, 8);
    return 0;
}

/* An object header (version 2) into the scratch, as libhdf5 reads one: 512
 * bytes (no further than the end of file) and then what it lacks. */
static int header(struct h5r *r, uint64_t addr, const char *what, const uint8_t **m,
                  uint64_t *mlen, int *crt)
{
    uint8_t *b = (uint8_t *)r->io->buf;
    char msg[96];
    snprintf(msg, sizeof msg, "%s: an object header past the end of file", what);
    if (addr >= r->eoa)
        return bad(r->io, -EILSEQ, msg);
    uint64_t n = r->eoa - addr < OH_SPEC ? r->eoa - addr : OH_SPEC;
    int rc = rd(r, b, n, addr);
    if (rc < 0)
        return rc;
    snprintf(msg, sizeof msg, "%s: not a version 2 object header (OHDR)", what);
    if (n < 16 || memcmp(b, "OHDR", 4) || b[4] != 2)
        return bad(r->io, -ENOTSUP, msg);
    uint64_t pos = 6 + (b[5] & 0x20 ? 16 : 0) + (b[5] & 0x10 ? 4 : 0), w = 1u << (b[5] & 3);
    uint64_t len = get(b + pos, (int)w), total = pos + w + len + 4;
    snprintf(msg, sizeof msg, "%s: an object header larger than the buffer", what);
    if (total > r->io->buflen || addr + total > r->eoa)
        return bad(r->io, -EILSEQ, msg);
    if (total > n && (rc = rd(r, b + n, total - n, addr + n)) < 0)
        return rc;
    snprintf(msg, sizeof msg, "bad checksum in the object header of %s", what);
    if (!summed(b, total))
        return bad(r->io, -EILSEQ, msg);
    *m = b + pos + w;
    *mlen = len;
    *crt = b[5] & 0x04 ? 2 : 0;         /* messages carry a creation order */
    return 0;
}

/* The next message: 1 with its type, flags, data and size; 0 at the end. */
static int next(const uint8_t **m, const uint8_t *end, int crt, int *type, int *flags,
                const uint8_t **d, uint64_t *size)
{
    if (end - *m < 4 + crt)
        return 0;
    *type = (*m)[0];
    *size = get(*m + 1, 2);
    *flags = (*m)[3];
    *d = *m + 4 + crt;
    if (*size > (uint64_t)(end - *d))
        return -1;
    *m = *d + *size;
    return 1;
}

/* The links of one chunk of the root group's header, at m (len bytes):
 * records_k's address into addr[k] for k below n; continuations found are
 * queued in cont (address, length pairs; *nc of them, at most max). */
static int root_links(struct h5r *r, const uint8_t *m, uint64_t len, int crt, uint64_t *addr,
                      unsigned n, uint64_t (*cont)[2], unsigned *nc, unsigned max)
{
    const uint8_t *end = m + len, *d;
    uint64_t size;
    int type, flags, k;
    while ((k = next(&m, end, crt, &type, &flags, &d, &size))) {
        if (k < 0)
            return bad(r->io, -EILSEQ, "a malformed message in the root group's header");
        if (type == 0x11)
            return bad(r->io, -ENOTSUP, "an old-style root group (symbol table): not supported");
        if (type == 2 && size >= 10 && get(d + 2, 8) != UNDEF)
            return bad(r->io, -ENOTSUP, "a root group of many links (dense storage): not "
                       "supported");
        if (type == 0x10 && size >= 16) {
            if (*nc == max)
                return bad(r->io, -ENOTSUP, "a root group's header in too many chunks");
            cont[*nc][0] = get(d, 8);
            cont[(*nc)++][1] = get(d + 8, 8);
        }
        if (type != 6 || size < 4 || d[0] != 1)
            continue;
        uint64_t q = 2, ltype = 0, w = 1u << (d[1] & 3);
        if (d[1] & 0x08)
            ltype = d[q++];
        q += (d[1] & 0x04 ? 8 : 0) + (d[1] & 0x10 ? 1 : 0);
        uint64_t nl = q + w <= size ? get(d + q, (int)w) : size;
        q += w;
        char name[32];
        for (unsigned i = 0; ltype == 0 && q + nl + 8 <= size && i < n; i++) {
            int nn = snprintf(name, sizeof name, "records_%u", i);
            if (nl == (uint64_t)nn && !memcmp(d + q, name, nl))
                addr[i] = get(d + q + nl, 8);
        }
    }
    return 0;
}

/* The root group's hard links records_0 .. records_{n-1}: its header,
 * then each continuation chunk in the order named, as libhdf5 loads it. */
static int find_records(struct h5r *r, uint64_t root, uint64_t *addr, unsigned n)
{
    const uint8_t *m = NULL;
    uint64_t len = 0, cont[16][2];
    unsigned nc = 0;
    int crt, rc = header(r, root, "the root group", &m, &len, &crt);
    for (unsigned i = 0; i < n; i++)
        addr[i] = UNDEF;
    if (rc == 0)
        rc = root_links(r, m, len, crt, addr, n, cont, &nc, 16);
    uint8_t *b = (uint8_t *)r->io->buf;
    for (unsigned i = 0; rc == 0 && i < nc; i++) {
        uint64_t at = cont[i][0], clen = cont[i][1];
        if (clen < 8 || clen > r->io->buflen || at > r->eoa || clen > r->eoa - at)
            return bad(r->io, -EILSEQ, "the root group: a continuation past the end of file");
        if ((rc = rd(r, b, clen, at)) < 0)
            return rc;
        if (memcmp(b, "OCHK", 4) || !summed(b, clen))
            return bad(r->io, -EILSEQ, "the root group: a bad continuation chunk (OCHK)");
        rc = root_links(r, b + 4, clen - 8, crt, addr, n, cont, &nc, 16);
    }
    for (unsigned i = 0; rc == 0 && i < n; i++)
        if (addr[i] == UNDEF) {
            snprintf(r->io->msg, sizeof r->io->msg, "no dataset records_%u in the root group%s",
                     i, i ? " (a file of fewer num_dset_per_record)" : "");
            return -EILSEQ;
        }
    return rc;
}

static int space(struct h5r *r, const uint8_t *d, uint64_t size, struct h5set *s)
{
    uint64_t at = d[0] == 1 ? 8 : 4;
    if ((d[0] != 1 && d[0] != 2) || size < at)
        return dbad(r, -ENOTSUP, ": a dataspace of an unknown version");
    s->rank = d[1];
    if (s->rank == 0 || s->rank > MAX_RANK || (d[0] == 2 && d[3] != 1) || at + 8 * s->rank > size)
        return dbad(r, -ENOTSUP, " is not an array (scalar or empty)");
    for (int k = 0; k < s->rank; k++)
        s->dims[k] = get(d + at + 8 * k, 8);
    return 0;
}

static int layout(struct h5r *r, const uint8_t *d, uint64_t size, struct h5set *s)
{
    if (size < 5 || (d[0] != 3 && d[0] != 4) || d[1] == 0 || d[1] > 2)
        return dbad(r, -ENOTSUP, " is neither contiguous nor chunked (compact, "
                   "virtual or an old layout version): not supported");
    s->layout = d[1];
    if (d[1] == 1) {
        if (size < 18)
            return dbad(r, -EILSEQ, ": a malformed contiguous layout");
        s->addr = get(d + 2, 8);
        s->size = get(d + 10, 8);
        return 0;
    }
    if (d[0] == 3)
        return dbad(r, -ENOTSUP, "'s chunks are indexed by a version 1 B-tree "
                   "(layout version 3): not supported");
    uint64_t nd = d[3], e = d[4], q = 5 + nd * e;
    if (nd < 2 || nd != (uint64_t)s->rank + 1 || e == 0 || e > 8 ||
        q + 9 + (q < size && d[q] == 3) > size)
        return dbad(r, -EILSEQ, ": a malformed chunked layout");
    for (uint64_t k = 0; k < nd; k++)
        s->cdims[k] = get(d + 5 + k * e, (int)e);
    s->index = d[q];
    if (d[2] & 0x02 || (s->index != 1 && s->index != 2 && s->index != 3))
        return dbad(r, -ENOTSUP, "'s chunk index is none of single chunk, implicit "
                   "and Fixed Array (a resizable dataset): not supported");
    s->page_bits = s->index == 3 ? d[q + 1] : 0;
    s->addr = get(d + q + 1 + (s->index == 3), 8);
    return 0;
}

/* records_k's shape, type and layout from its object header. */
static int dataset(struct h5r *r, uint64_t addr, struct h5set *s)
{
    const uint8_t *m = NULL, *d;
    uint64_t len = 0, size;
    int crt, type, flags, k, rc = header(r, addr, r->name, &m, &len, &crt), seen = 0;
    if (rc < 0)
        return rc;
    const uint8_t *end = m + len;
    while (rc == 0 && (k = next(&m, end, crt, &type, &flags, &d, &size))) {
        if (k < 0)
            return bad(r->io, -EILSEQ, "'s header: a malformed message");
        if ((type == 1 || type == 3 || type == 8) && flags & 0x02)
            return dbad(r, -ENOTSUP, " shares a message (a committed datatype): "
                       "not supported");
        if (type == 1)
            rc = space(r, d, size, s), seen |= 1;
        else if (type == 3 && size >= 8) {
            s->esize = get(d + 4, 4), seen |= 2;
            if ((d[0] & 0x0f) == 9 || s->esize == 0)
                return dbad(r, -ENOTSUP, " is of variable length: not supported");
        } else if (type == 8)
            rc = layout(r, d, size, s), seen |= 4;
        else if (type == 0x0b)
            return dbad(r, -ENOTSUP, " is filtered (compressed): not supported");
        else if (type == 0x10)
            return dbad(r, -ENOTSUP, "'s header continues elsewhere: not supported");
    }
    if (rc == 0 && seen != 7)
        return dbad(r, -EILSEQ, "'s header lacks its dataspace, datatype or layout");
    if (rc == 0 && s->layout == 2 && s->cdims[s->rank] != s->esize)
        return dbad(r, -EILSEQ, ": chunks of another element size");
    return rc;
}

/* Contiguous: through the sieve buffer (64 KiB from the sample, no further
 * than the data's end) when the sample fits in it, else the sample. */
static int contiguous(struct h5r *r, const struct h5set *s, uint64_t j, uint64_t len)
{
    if (s->addr == UNDEF)
        return 0;                       /* never written: the fill value */
    if (s->size < s->dims[0] * len || s->addr + s->size > r->eoa)
        return dbad(r, -EILSEQ, "'s data runs past the end of the file");
    uint64_t off = s->addr + j * len, end = s->addr + s->size;
    if (len > SIEVE)
        return rd_span(r, off, len);
    return rd_span(r, off, end - off < SIEVE ? end - off : SIEVE);
}

/* Room for n chunk addresses in io->zbuf. */
static uint64_t *addr_room(struct lb_fmt_io *io, uint64_t n)
{
    size_t want = n * 8 > LB_FMT_NPY_BUFFER ? n * 8 : LB_FMT_NPY_BUFFER;
    if (io->zbuf == NULL || io->zlen < want) {
        char *p = realloc(io->zbuf, want);
        if (p == NULL)
            return NULL;
        io->zbuf = p;
        io->zlen = want;
    }
    return (uint64_t *)(void *)io->zbuf;
}

/* The Fixed Array's entries lo..lo+n-1 into a: its header, then the data
 * block whole or, paged, its prefix and each page the entries are in. */
static int fixed_array_get(struct h5r *r, const struct h5set *s, uint64_t total, uint64_t lo,
                           uint64_t n, uint64_t *a)
{
    uint8_t *b = (uint8_t *)r->io->buf;
    int rc = rd(r, b, FAHD_LEN, s->addr);
    if (rc < 0)
        return rc;
    if (memcmp(b, "FAHD", 4) || b[4] != 0 || !summed(b, FAHD_LEN))
        return dbad(r, -EILSEQ, ": a bad Fixed Array header (FAHD)");
    if (b[5] != 0 || b[6] != 8)
        return dbad(r, -ENOTSUP, ": Fixed Array entries of filtered chunks");
    uint64_t pb = b[7], max = get(b + 8, 8), db = get(b + 16, 8), page = 1ull << pb;
    if (max < total || pb > 30)
        return dbad(r, -EILSEQ, ": a Fixed Array of fewer entries than chunks");
    for (uint64_t i = 0; i < n; i++)
        a[i] = UNDEF;
    if (db == UNDEF)
        return 0;
    uint64_t pages = (max + page - 1) / page, bm = max > page ? (pages + 7) / 8 : 0;
    uint64_t pre = FADB_PREFIX + bm + (bm ? 4 : 8 * max + 4);
    if (pre > r->io->buflen)
        return dbad(r, -EFBIG, ": a Fixed Array larger than the buffer");
    if ((rc = rd(r, b, pre, db)) < 0)
        return rc;
    if (memcmp(b, "FADB", 4) || !summed(b, pre))
        return dbad(r, -EILSEQ, ": a bad Fixed Array data block (FADB)");
    if (!bm) {
        for (uint64_t i = 0; i < n; i++)
            a[i] = get(b + FADB_PREFIX + 8 * (lo + i), 8);
        return 0;
    }
    uint8_t map[4096];                  /* the bitmap: up to 2^15 pages */
    if (bm > sizeof map)
        return dbad(r, -EFBIG, ": a Fixed Array of too many pages");
    memcpy(map, b + FADB_PREFIX, bm);
    for (uint64_t i = 0, p; rc == 0 && i < n; i = (p + 1) * page - lo) {
        p = (lo + i) / page;
        uint64_t cnt = p + 1 < pages ? page : max - p * page, len = 8 * cnt + 4;
        if (!(map[p / 8] & 0x80 >> p % 8))
            continue;                   /* a page never written */
        if (len > r->io->buflen)
            return dbad(r, -EFBIG, ": a Fixed Array page larger than the buffer");
        if ((rc = rd(r, b, len, db + pre + p * (8 * page + 4))) < 0)
            return rc;
        if (!summed(b, len))
            return dbad(r, -EILSEQ, ": bad checksum in a Fixed Array page");
        for (uint64_t e = lo + i; e < (p + 1) * page && e < lo + n; e++)
            a[e - lo] = get(b + 8 * (e - p * page), 8);
    }
    return rc;
}

/* Chunked: the index entries of the chunks of row j, then each chunk
 * whole (it goes to the chunk cache) or, one larger than the cache, the
 * sample's part of it (first to last byte). */
static int chunked(struct h5r *r, const struct h5set *s, uint64_t j)
{
    uint64_t grid[MAX_RANK], per = 1, total, cb = s->esize;
    for (int k = 0; k < s->rank; k++) {
        if (s->cdims[k] == 0)
            return dbad(r, -EILSEQ, ": a chunk dimension of 0");
        grid[k] = (s->dims[k] + s->cdims[k] - 1) / s->cdims[k];
        per *= k ? grid[k] : 1;
        cb *= s->cdims[k];
    }
    total = grid[0] * per;
    uint64_t lo = j / s->cdims[0] * per, *a = addr_room(r->io, per);
    if (a == NULL)
        return -ENOMEM;
    int rc = 0;
    if (s->index == 3)
        rc = fixed_array_get(r, s, total, lo, per, a);
    else if (s->index == 1 && total != 1)
        return dbad(r, -EILSEQ, ": a single-chunk index over many chunks");
    for (uint64_t i = 0; s->index != 3 && i < per; i++)
        a[i] = s->addr == UNDEF ? UNDEF : s->addr + (lo + i) * cb;     /* implicit */
    for (uint64_t i = 0; rc == 0 && i < per; i++) {
        if (a[i] == UNDEF)
            continue;
        if (a[i] + cb > r->eoa)
            return dbad(r, -EILSEQ, ": a chunk past the end of the file");
        if (cb <= CHUNK_CACHE) {
            rc = rd_span(r, a[i], cb);
            continue;
        }
        uint64_t rest = lo + i, nk[MAX_RANK], first = j % s->cdims[0], last = first;
        for (int k = s->rank - 1; k >= 1; k--) {
            uint64_t c0 = rest % grid[k] * s->cdims[k];
            nk[k] = s->dims[k] - c0 < s->cdims[k] ? s->dims[k] - c0 : s->cdims[k];
            rest /= grid[k];
        }
        for (int k = 1; k < s->rank; k++) {
            first *= s->cdims[k];
            last = last * s->cdims[k] + nk[k] - 1;
        }
        rc = rd_span(r, a[i] + first * s->esize, (last - first + 1) * s->esize);
    }
    return rc;
}

/* Sample j of the dataset at addr (r->name): its header, then its data. */
static int read_dataset(struct h5r *r, uint64_t addr, uint64_t j, uint64_t *len)
{
    struct h5set s = {0};
    int rc = dataset(r, addr, &s);
    if (rc < 0)
        return rc;
    uint64_t n = s.esize;
    for (int k = 1; k < s.rank; k++)
        n *= s.dims[k];
    *len += n;
    if (j >= s.dims[0]) {
        snprintf(r->io->msg, sizeof r->io->msg, "%s holds %llu samples, sample %llu asked for",
                 r->name, (unsigned long long)s.dims[0], (unsigned long long)j);
        return -EILSEQ;
    }
    return s.layout == 1 ? contiguous(r, &s, j, n) : chunked(r, &s, j);
}

int lb_fmt_hdf5_read(int fd, const char *path, uint64_t j, unsigned ndset, struct lb_fmt_io *io,
                     uint64_t *len)
{
    struct h5r r = {.fd = fd, .io = io};
    struct stat st;
    uint64_t root, addr[LB_H5_MAX_DSETS];
    ndset = ndset ? ndset : 1;
    if (ndset > LB_H5_MAX_DSETS)
        return bad(io, -EINVAL, "num_dset_per_record above what is read");
    if (fstat(fd, &st) < 0)
        return -errno;
    (void)flock(fd, LOCK_SH | LOCK_NB);  /* libhdf5's lock; closing drops it */
    int rc = superblock(&r, &root);
    if (rc == 0 && path[0] != '/') {
        char cwd[PATH_MAX];             /* a relative name made absolute */
        (void)!getcwd(cwd, sizeof cwd);
    }
    if (rc == 0)
        (void)fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW);   /* its name resolved */
    if (rc == 0)
        rc = find_records(&r, root, addr, ndset);
    *len = 0;
    for (unsigned k = 0; rc == 0 && k < ndset; k++) {
        snprintf(r.name, sizeof r.name, "records_%u", k);
        rc = read_dataset(&r, addr[k], j, len);
    }
    return rc;
}
