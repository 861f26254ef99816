/*
 * Inside the options module: the value parsers options.c's table points
 * to (options_values.c).  Not a contract: use options.h.  Every setter
 * has the shape of struct lb_opt's set.
 */
#ifndef LB_OPTIONS_VALUES_H
#define LB_OPTIONS_VALUES_H

#include <stddef.h>
#include "job/options.h"

#define LB_RW_VALUES "read|write|trim|rw|randread|randwrite|randtrim|randrw|trimwrite|randtrimwrite"

/* Formats a message into err; @return -EINVAL. */
int lb_opt_say(char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Stores v into o's field by o's type. */
int lb_opt_set_generic(struct lb_job *j, const struct lb_opt *o, const char *v,
                       char *err, size_t n);

#define LB_OPT_SETTER(f) \
    int lb_opt_set_##f(struct lb_job *j, const char *v, char *err, size_t n);
LB_OPT_SETTER(rw)
LB_OPT_SETTER(rwmixwrite)
LB_OPT_SETTER(buffered)
LB_OPT_SETTER(zero_buffers)
LB_OPT_SETTER(refill_buffers)
LB_OPT_SETTER(scramble_buffers)
LB_OPT_SETTER(buffer_pattern)
LB_OPT_SETTER(dedupe_mode)
LB_OPT_SETTER(bs)
LB_OPT_SETTER(bsrange)
LB_OPT_SETTER(bssplit)
LB_OPT_SETTER(rate)
LB_OPT_SETTER(rate_iops)
LB_OPT_SETTER(rate_min)
LB_OPT_SETTER(nice)
LB_OPT_SETTER(write_hint)
LB_OPT_SETTER(rate_iops_min)
LB_OPT_SETTER(percentage_random)
LB_OPT_SETTER(offset)
LB_OPT_SETTER(offset_increment)
LB_OPT_SETTER(size)
LB_OPT_SETTER(kb_base)
LB_OPT_SETTER(file_service_type)
LB_OPT_SETTER(random_distribution)
LB_OPT_SETTER(continue_on_error)
LB_OPT_SETTER(ignore_error)
LB_OPT_SETTER(max_latency)
LB_OPT_SETTER(verify)
LB_OPT_SETTER(verify_pattern)
LB_OPT_SETTER(cpus_allowed)
LB_OPT_SETTER(null_lat)
LB_OPT_SETTER(fault_eio)
LB_OPT_SETTER(fault_short)
LB_OPT_SETTER(fault_enospc)
LB_OPT_SETTER(fault_delay)
#undef LB_OPT_SETTER

#endif
