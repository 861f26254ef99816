/* Creating and extending the files a plan marked (layout.c). */
#ifndef LB_LAYOUT_H
#define LB_LAYOUT_H

#include "run/plan.h"

/* Lays out every file of p marked layout.  0 or -errno with the message
 * in lb_run_error; Ctrl-C or lb_run_stop ends it early with -EINTR. */
int lb_layout_files(struct lb_run *r, struct lb_plan *p);

#endif
