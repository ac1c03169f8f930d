/*
 * scale.c - zkbench section 5 (see bench.h). Placeholder: being written.
 */
#include "config.h"

#include "bench.h"

int
section_scale(struct zkh *z, int members)
{
    (void)z;
    (void)members;
    printf("\nscale: not written yet\n");
    return 0;
}
