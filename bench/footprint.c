/*
 * footprint.c - zkbench section 7 (see bench.h). Placeholder: being written.
 */
#include "config.h"

#include "bench.h"

int
section_footprint(struct zkh *z)
{
    (void)z;
    printf("\nfootprint: not written yet\n");
    return 0;
}
