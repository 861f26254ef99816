/* The floor for lb.train's CPU per sample: the same files, the same bytes,
 * the least work a reader can do for them.  For each sample of each epoch
 * a thread opens the sample's file, seeks to its end, makes SMALL preads
 * of 64 bytes (where a container reader reads its headers: 7 for an npz
 * file, the zip end records, central directory, local header, name and
 * .npy header), reads the whole file front to back in CHUNK-byte preads
 * and closes it, nothing else: no shuffle, no queue, no timing, no
 * parsing.  With SIZE (> 0) it reads as lb.train reads a raw sample
 * instead: open, SIZE bytes at the sample's offset (its index in the file
 * times SIZE) in CHUNK-byte preads, close; no seek, no small reads, no
 * read at the end of the file.
 *
 *   pread_loop LIST SAMPLES_PER_FILE THREADS EPOCHS [CHUNK [SMALL [SIZE]]]
 *
 * LIST holds one path a line.  Prints "samples=N bytes=B" on stdout; the
 * caller measures the CPU of the process (getrusage of the child). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char **paths;
static uint64_t nfiles, spf, epochs, chunk = 256 * 1024, small, size;
static atomic_uint_fast64_t next_sample;
static atomic_uint_fast64_t total_bytes;

/* SIZE bytes at off in CHUNK-byte preads: the bytes read, or -1. */
static ssize_t read_raw(int fd, char *buf, uint64_t off)
{
    uint64_t done = 0;
    while (done < size) {
        uint64_t want = size - done < chunk ? size - done : chunk;
        ssize_t got = pread(fd, buf, want, (off_t)(off + done));
        if (got <= 0)
            return -1;
        done += (uint64_t)got;
    }
    return (ssize_t)done;
}

static void *reader(void *arg)
{
    (void)arg;
    char *buf = NULL;                   /* aligned as lb.train's buffer */
    uint64_t bytes = 0, n = nfiles * spf * epochs;
    if (posix_memalign((void **)&buf, 4096, chunk) != 0)
        return (void *)1;
    for (;;) {
        uint64_t s = atomic_fetch_add(&next_sample, 1);
        if (s >= n)
            break;
        const char *p = paths[(s % (nfiles * spf)) / spf];
        int fd = open(p, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            fprintf(stderr, "pread_loop: open %s: %s\n", p, strerror(errno));
            exit(1);
        }
        if (size) {
            ssize_t got = read_raw(fd, buf, (s % spf) * size);
            if (got < 0) {
                fprintf(stderr, "pread_loop: read %s: short or failed\n", p);
                exit(1);
            }
            bytes += (uint64_t)got;
            close(fd);
            continue;
        }
        off_t off = 0;
        ssize_t got = lseek(fd, 0, SEEK_END) < 0 ? -1 : 0;
        for (uint64_t i = 0; got >= 0 && i < small; i++)
            got = pread(fd, buf, 64, 0);
        while (got >= 0 && (got = pread(fd, buf, chunk, off)) > 0)
            off += got;
        if (got < 0) {
            fprintf(stderr, "pread_loop: read %s: %s\n", p, strerror(errno));
            exit(1);
        }
        bytes += (uint64_t)off;
        close(fd);
    }
    atomic_fetch_add(&total_bytes, bytes);
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: pread_loop LIST SAMPLES_PER_FILE THREADS EPOCHS [CHUNK [SMALL [SIZE]]]\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (f == NULL) {
        fprintf(stderr, "pread_loop: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    spf = strtoull(argv[2], NULL, 10);
    unsigned threads = (unsigned)strtoul(argv[3], NULL, 10);
    epochs = strtoull(argv[4], NULL, 10);
    if (argc > 5)
        chunk = strtoull(argv[5], NULL, 10);
    if (argc > 6)
        small = strtoull(argv[6], NULL, 10);
    if (argc > 7)
        size = strtoull(argv[7], NULL, 10);
    if (spf == 0 || threads == 0 || chunk == 0) {    /* EPOCHS 0: the start-up alone */
        fprintf(stderr, "pread_loop: SAMPLES_PER_FILE, THREADS and CHUNK must be > 0\n");
        return 2;
    }
    size_t cap = 0;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (!line[0])
            continue;
        if (nfiles == cap) {
            cap = cap ? 2 * cap : 1024;
            char **np = realloc(paths, cap * sizeof *paths);
            if (np == NULL)
                return 1;
            paths = np;
        }
        paths[nfiles++] = strdup(line);
    }
    fclose(f);
    if (nfiles == 0) {
        fprintf(stderr, "pread_loop: %s lists no file\n", argv[1]);
        return 2;
    }
    pthread_t *th = calloc(threads, sizeof *th);
    if (th == NULL)
        return 1;
    for (unsigned i = 0; i < threads; i++)
        if (pthread_create(&th[i], NULL, reader, NULL) != 0)
            return 1;
    for (unsigned i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
    printf("samples=%llu bytes=%llu\n", (unsigned long long)(nfiles * spf * epochs),
           (unsigned long long)atomic_load(&total_bytes));
    return 0;
}
