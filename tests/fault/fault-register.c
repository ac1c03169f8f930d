/*
 * fault-register.c - write the fenced test register from a hook:
 *
 *   fault-register DIR NODE EPOCH SOURCE
 *
 * Exit 0 when the register accepted the write, 3 when it refused it (an
 * epoch older than the highest it has seen: a stale leader), 1 on an error,
 * 2 on a usage error. See reg.c for the register itself.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"

int
main(int argc, char **argv)
{
    char err[512], *end;
    uint64_t epoch;
    int rc;

    if (argc != 5) {
        fprintf(stderr, "usage: fault-register DIR NODE EPOCH SOURCE\n");
        return 2;
    }
    errno = 0;
    epoch = strtoull(argv[3], &end, 10);
    if (errno != 0 || end == argv[3] || *end != '\0' || argv[3][0] == '-') {
        fprintf(stderr, "fault-register: bad epoch '%s'\n", argv[3]);
        return 2;
    }
    rc = reg_write(argv[1], argv[2], epoch, argv[4], err, sizeof err);
    if (rc == -1) {
        fprintf(stderr, "fault-register: %s\n", err);
        return 1;
    }
    if (rc == REG_REFUSED) {
        fprintf(stderr, "fault-register: %s epoch %" PRIu64 " refused (stale)\n", argv[2], epoch);
        return 3;
    }
    return 0;
}
