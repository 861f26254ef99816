/*
 * Fuzzes the option setters and the unit parsers: the input is a list of
 * lines, each "name=value" (or a bare name), applied in order to one job
 * with lb_job_set as a Lua spec or a fio job file would; then the job is
 * checked, copied and freed.  Every value also goes through each unit
 * parser and the formatter.  Only crashes and sanitizer reports count:
 * refusing bad input is the parsers' job.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "options.h"
#include "units.h"

static void parse_units(const char *v)
{
    uint64_t u = 0;
    double d;
    int b, pct;
    char buf[32];

    if (lb_parse_size(v, 1024, &u) == 0)
        lb_fmt_bytes(u, buf, sizeof buf);
    lb_parse_size(v, 1000, &u);
    lb_parse_size(v, 7, &u);                  /* a kb_base the parser refuses */
    lb_parse_size_pct(v, 1024, &u, &pct);
    lb_parse_time_us(v, 1000000, &u);
    lb_parse_time_us(v, 1, &u);
    lb_parse_time_us(v, 0, &u);
    lb_parse_u64(v, &u);
    lb_parse_double(v, &d);
    lb_parse_bool(v, &b);
    lb_fmt_bytes(u, buf, (unsigned)(v[0] & 31));   /* short buffers too */
}

/* One line: name and value split at the first '='; no '=' is a bare flag. */
static void set_line(struct lb_job *j, char *line)
{
    char err[512];
    char *eq = strchr(line, '=');

    if (eq)
        *eq = 0;
    /* an unknown name costs a suggestion (an edit distance to every
     * option): most of the time the fuzzer spends */
    lb_job_set(j, line, eq ? eq + 1 : NULL, err, sizeof err);
    parse_units(eq ? eq + 1 : line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), *line, *save = NULL;
    struct lb_job j, copy;
    char err[512];

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;                     /* a NUL inside ends the text early */
    lb_job_init(&j);
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        set_line(&j, line);
    lb_job_check(&j, err, sizeof err);
    if (lb_job_copy(&copy, &j) == 0)
        lb_job_free(&copy);
    lb_job_free(&j);
    lb_job_free(&j);                    /* documented as safe twice */
    free(text);
    return 0;
}
