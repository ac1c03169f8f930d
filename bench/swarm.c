/*
 * swarm.c - zkbench-swarm (section 5). Placeholder: being written.
 */
#include "config.h"

#include <stdio.h>

int
main(void)
{
    fprintf(stderr, "zkbench-swarm: not written yet\n");
    return 1;
}
