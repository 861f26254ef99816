/*
 * What the engine files share and the rest of the core does not see: the
 * ops tables the engine list in engine.c names, and small helpers for the
 * operations every file engine does the same way (trim, fsync, the reason
 * an init failed).  Defined in engine.c.
 */
#ifndef LB_ENGINES_INTERNAL_H
#define LB_ENGINES_INTERNAL_H

#include <stdint.h>
#include "engines/engine.h"

extern const struct lb_engine_ops lb_engine_null;
extern const struct lb_engine_ops lb_engine_sync;
extern const struct lb_engine_ops lb_engine_psync;
extern const struct lb_engine_ops lb_engine_pvsync2;
extern const struct lb_engine_ops lb_engine_libaio;
extern const struct lb_engine_ops lb_engine_posixaio;
extern const struct lb_engine_ops lb_engine_io_uring;
extern const struct lb_engine_ops lb_engine_mmap;
extern const struct lb_engine_ops lb_engine_fault;

/* Trim (punch a hole), fsync or fdatasync of io on fd, synchronously.
 * Returns io->len on success, else -errno. */
int64_t lb_eng_file_op(int fd, const struct lb_io *io);

/* Formats a reason into why (may be NULL). */
void lb_eng_why(char *why, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Formats a reason into cfg->why when the core gave one. */
#define lb_eng_cfg_why(cfg, ...) lb_eng_why((cfg)->why, (cfg)->why_len, __VA_ARGS__)

#endif
