/*
 * Options are data: one table of descriptors (name, type, field, help)
 * serves Lua specs, fio job files, the command line, --help and the error
 * messages.  Values arrive as strings with fio's units.
 */
#ifndef LB_OPTIONS_H
#define LB_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "job/job.h"

enum lb_opt_type {
    LB_OPT_BOOL, LB_OPT_U32, LB_OPT_U64, LB_OPT_SIZE, LB_OPT_TIME_S,
    LB_OPT_TIME_US, LB_OPT_STR, LB_OPT_ENUM, LB_OPT_DOUBLE, LB_OPT_SPECIAL,
};

/* type says what a value looks like (a bare boolean flag is "" = true);
 * set, when not NULL, stores it instead of the generic code for the type,
 * and writes only the reason of a failure into err ("must be at least 1"):
 * lb_job_set adds "bad value 'V' for 'NAME': ". */
struct lb_opt {
    const char *name;
    const char *alias;           /* fio synonym or NULL */
    enum lb_opt_type type;
    size_t off;                  /* offset in struct lb_job */
    const char *values;          /* LB_OPT_ENUM: "a|b|c" in enum order */
    const char *help;
    int (*set)(struct lb_job *j, const char *v, char *err, size_t errlen);
    uint64_t min, max;           /* numeric bounds of the generic setter;
                                    max 0 = the field's limit */
    const char *arg;             /* value syntax for --help, NULL = the type's */
    const char *group;           /* heading in --help */
    bool first;                  /* set before the others when a whole spec is
                                    applied: kb_base changes how sizes read,
                                    and fio applies it first */
};

extern const struct lb_opt lb_opts[];   /* ends with a NULL name */

/* Options fio has that only tune fio's own internals: accepted, noted.
 * Ends with NULL. */
extern const char *const lb_opts_ignored[];
/* Why an ignored option is ignored (one line), or NULL if name is not one. */
const char *lb_opt_ignored_why(const char *name);

void lb_job_init(struct lb_job *j);      /* fio's defaults */
void lb_job_free(struct lb_job *j);      /* frees the strings; safe twice */
/* Deep copy; dst is overwritten, not freed first.  @return 0 or -ENOMEM
 * (dst then owns nothing). */
int lb_job_copy(struct lb_job *dst, const struct lb_job *src);

const struct lb_opt *lb_opt_find(const char *name);
/* The known option closest to name (edit distance), or NULL. */
const char *lb_opt_suggest(const char *name);
/* The TYPE column of --help: "bool", "int", "size", "time(s)", ... */
const char *lb_opt_type_name(const struct lb_opt *o);

/* Sets one option; a NULL value is "".  @return 0 (err is "" or, for an
 * option of lb_opts_ignored, a note: "option 'thread' is ignored: ...");
 * -ENOENT for an unknown name ("unknown option 'blocksze' (did you mean
 * 'blocksize'?)" in err); -EINVAL for a bad value ("bad value '0' for
 * 'bs': must be at least 1"); -ENOMEM.  On failure the job is unchanged. */
int lb_job_set(struct lb_job *j, const char *name, const char *value,
               char *err, size_t errlen);

/* Checks the combination (size < bs, direct with unaligned bs...).
 * @return 0 or -EINVAL with a message. */
int lb_job_check(const struct lb_job *j, char *err, size_t errlen);

/* Writes the option list for --help into buf (NUL-terminated, truncated to
 * len).  @return the length of the whole text, as snprintf does. */
size_t lb_opts_help(char *buf, size_t len);

#endif
